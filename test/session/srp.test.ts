import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createVerifierAndSalt, SRPClientSession, SRPParameters, SRPRoutines } from 'tssrp6a';
import {
  bigIntToBytes,
  bytesToBigInt,
  SrpError,
  SrpPool,
  srpIdentity,
  type SrpServerState,
} from '../../server/session/srp.js';

const routines = new SRPRoutines(new SRPParameters());

/** What a client sends at registration, computed the way the client SDK does. */
async function registration(
  account: string,
  password: string,
): Promise<{ salt: Uint8Array; verifier: Uint8Array }> {
  const { s, v } = await createVerifierAndSalt(routines, srpIdentity(account), password, 64);
  return { salt: bigIntToBytes(s), verifier: bigIntToBytes(v) };
}

/** A full login against the pool with a real tssrp6a client; resolves once the client accepted M2. */
async function login(
  pool: SrpPool,
  account: string,
  password: string,
  stored: { salt: Uint8Array; verifier: Uint8Array },
): Promise<void> {
  const identity = srpIdentity(account);
  const { B, serverState } = await pool.step1(identity, stored.salt, stored.verifier);
  const client = await new SRPClientSession(routines).step1(identity, password);
  const proof = await client.step2(bytesToBigInt(stored.salt), bytesToBigInt(B));
  const M2 = await pool.step2(serverState, bigIntToBytes(proof.A), bigIntToBytes(proof.M1));
  await proof.step3(bytesToBigInt(M2));
}

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SrpError) return err.code;
    throw err;
  }
  throw new Error('expected an SrpError');
}

describe('SRP pool', () => {
  let pool: SrpPool;
  let alice: { salt: Uint8Array; verifier: Uint8Array };

  beforeAll(async () => {
    pool = new SrpPool({ size: 2 });
    alice = await registration('Alice', 'correct horse');
    await pool.ready();
  });
  afterAll(() => pool.close());

  it('logs in with the right password and the client accepts the server proof', async () => {
    await expect(login(pool, 'Alice', 'correct horse', alice)).resolves.toBeUndefined();
  });

  it("reports its workers' heaps, which the main thread's heap figures leave out", async () => {
    await login(pool, 'Alice', 'correct horse', alice);
    // A worker's isolate holds at least a few MB; 0 would mean no reply carried its heap.
    expect(pool.workerHeapBytes).toBeGreaterThan(1_000_000);
  });

  it('logs in whatever the case of the account name', async () => {
    await expect(login(pool, 'ALICE', 'correct horse', alice)).resolves.toBeUndefined();
  });

  it('refuses a wrong password with a bad proof', async () => {
    expect(await errorCode(login(pool, 'Alice', 'wrong horse', alice))).toBe('bad-proof');
  });

  it('refuses A = 0, an empty A and an empty M1 as a bad proof', async () => {
    const { serverState } = await pool.step1('alice', alice.salt, alice.verifier);
    const M1 = new Uint8Array(64).fill(7);
    expect(await errorCode(pool.step2(serverState, new Uint8Array([0]), M1))).toBe('bad-proof');
    expect(await errorCode(pool.step2(serverState, new Uint8Array(0), M1))).toBe('bad-proof');
    expect(await errorCode(pool.step2(serverState, new Uint8Array([5]), new Uint8Array(0)))).toBe(
      'bad-proof',
    );
  });

  it('refuses a proof made for another challenge', async () => {
    const identity = 'alice';
    const first = await pool.step1(identity, alice.salt, alice.verifier);
    const second = await pool.step1(identity, alice.salt, alice.verifier);
    const client = await new SRPClientSession(routines).step1(identity, 'correct horse');
    const proof = await client.step2(bytesToBigInt(alice.salt), bytesToBigInt(first.B));
    const replayed: SrpServerState = second.serverState;
    expect(await errorCode(pool.step2(replayed, bigIntToBytes(proof.A), bigIntToBytes(proof.M1)))).toBe(
      'bad-proof',
    );
  });
});

describe('SRP pool queue', () => {
  const pools: SrpPool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.close();
  });
  function newPool(size: number, workerUrl?: URL): SrpPool {
    const pool = new SrpPool(workerUrl ? { size, workerUrl } : { size });
    pools.push(pool);
    return pool;
  }

  it('completes 20 concurrent logins first come first served, reporting queue positions in order', async () => {
    const pool = newPool(1);
    const stored = await registration('queued', 'pw');
    await pool.ready();
    const positions: number[][] = [];
    const lengths: number[] = [];
    const started: number[] = [];

    const logins = Array.from({ length: 20 }, async (_, i) => {
      positions[i] = [];
      const { B, serverState } = await pool.step1('queued', stored.salt, stored.verifier, {
        onPosition: (position, length) => {
          positions[i]?.push(position);
          lengths.push(length);
        },
      });
      started.push(i);
      const client = await new SRPClientSession(routines).step1('queued', 'pw');
      const proof = await client.step2(bytesToBigInt(stored.salt), bytesToBigInt(B));
      const M2 = await pool.step2(serverState, bigIntToBytes(proof.A), bigIntToBytes(proof.M1));
      await proof.step3(bytesToBigInt(M2));
    });
    await Promise.all(logins);

    // The first job went straight to the idle worker; job i waited behind i-1 others.
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(positions[0]).toEqual([]);
    for (let i = 1; i < 20; i++) {
      const seen = positions[i] ?? [];
      expect(seen[0]).toBe(i);
      expect(seen.at(-1)).toBe(1);
      for (let k = 1; k < seen.length; k++) expect(seen[k]).toBe((seen[k - 1] ?? 0) - 1);
    }
    expect(Math.max(...lengths)).toBeLessThanOrEqual(19);
    expect(pool.queueLength).toBe(0);
  });

  it('drops an abandoned job from the queue and moves the others up', async () => {
    const pool = newPool(1);
    const stored = await registration('quitter', 'pw');
    await pool.ready();
    const controller = new AbortController();
    const lastPositions: number[] = [];

    const running = pool.step1('quitter', stored.salt, stored.verifier);
    const abandoned = pool.step1('quitter', stored.salt, stored.verifier, { signal: controller.signal });
    const last = pool.step1('quitter', stored.salt, stored.verifier, {
      onPosition: (position) => lastPositions.push(position),
    });
    controller.abort();

    expect(await errorCode(abandoned)).toBe('aborted');
    await expect(running).resolves.toBeDefined();
    await expect(last).resolves.toBeDefined();
    expect(lastPositions).toEqual([2, 1]);
  });

  it('fails only the job of a crashed worker and keeps serving', async () => {
    const crashing = new URL('./fixtures/crashing-srp-worker.ts', import.meta.url);
    const pool = newPool(1, crashing);
    const stored = await registration('survivor', 'pw');
    await pool.ready();

    const crash = pool.step1('crash', stored.salt, stored.verifier);
    const after = login(pool, 'survivor', 'pw', stored);

    expect(await errorCode(crash)).toBe('worker-crashed');
    await expect(after).resolves.toBeUndefined();
  });

  it('reports unavailable workers instead of restarting them forever', async () => {
    const pool = newPool(1, new URL('./fixtures/no-such-worker.ts', import.meta.url));
    expect(await errorCode(pool.ready())).toBe('unavailable');
    expect(await errorCode(pool.step1('x', new Uint8Array([1]), new Uint8Array([1])))).toBe('unavailable');
  });

  it('fails waiting jobs when closed', async () => {
    const pool = newPool(1);
    const stored = await registration('closing', 'pw');
    await pool.ready();
    const jobs = [1, 2, 3].map((): Promise<string> =>
      errorCode(pool.step1('closing', stored.salt, stored.verifier)),
    );
    await pool.close();
    expect(await Promise.all(jobs)).toEqual(['closed', 'closed', 'closed']);
    expect(await errorCode(pool.step1('closing', stored.salt, stored.verifier))).toBe('closed');
  });
});
