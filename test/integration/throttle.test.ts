/**
 * Login throttling over real sockets: wrong passwords from one address slow that address
 * down (ERR_LOGIN_THROTTLED with retry-after) without locking the account's owner out from
 * another address, and the throttled address cannot tell an existing account from a name
 * nobody registered. The owner connects from 127.0.0.2, the attacker from 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { MemoryDeviceTokens, type DeviceTokenStore } from '../../shared/client/device-tokens.js';
import { WyvernError } from '../../shared/client/errors.js';
import type { ServerHandle } from '../../server/main.js';
import { accountHandlers } from '../../server/session/account.js';
import { AccountService } from '../../server/session/accounts.js';
import { SrpPool } from '../../server/session/srp.js';
import { openStore, type Store } from '../../server/store/index.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import { startTestServer, stopTestServers } from './harness.js';

const ATTEMPTS = 20;

/** A client whose TCP connection starts from `localAddress` (any 127.0.0.x is this machine). */
async function clientFrom(port: number, localAddress: string): Promise<WyvernClient> {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress }, () => resolve(s));
    s.once('error', reject);
  });
  const client = new WyvernClient(new TcpTransport(socket), { requestTimeoutMs: 20_000 });
  await client.hello({ clientKind: 'bot', clientName: 'throttle' });
  return client;
}

/** One login attempt on a fresh connection (as a guesser would, to dodge per-connection rate limits). */
async function attempt(
  port: number,
  from: string,
  account: string,
  password: string,
  deviceTokens?: DeviceTokenStore,
) {
  const client = await clientFrom(port, from);
  try {
    await client.login(account, password, { deviceTokens });
    return { code: 'OK', reason: '' };
  } catch (err) {
    if (!(err instanceof WyvernError)) throw err;
    return { code: err.code, reason: err.reason };
  } finally {
    client.close();
  }
}

describe('login throttling by address', () => {
  let dir: string;
  let store: Store;
  let pool: SrpPool;
  let server: ServerHandle;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-throttle-'));
    store = await openStore(`sqlite:${join(dir, 'wyvern.db')}`);
    pool = new SrpPool({ size: 1 });
    await pool.ready();
    // The server's own defaults: 5 per (account, address), 20 per address, 10 addresses lock.
    const accounts = new AccountService({ store, srp: pool, secret: new Uint8Array(32).fill(9) });
    server = await startTestServer({}, { handlers: [accountHandlers({ accounts })] });
  });

  afterAll(async () => {
    await stopTestServers();
    await pool?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('slows the guessing address and tells it when to retry; the owner logs in at once from elsewhere', async () => {
    const owner = await clientFrom(server.tcpPort, '127.0.0.2');
    await owner.register('frodo', 'the right password');

    const results = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      results.push(await attempt(server.tcpPort, '127.0.0.1', 'frodo', `guess ${i}`));
    }
    const codes = results.map((r) => r.code);
    expect(codes.slice(0, 5)).toEqual(Array(5).fill('ERR_BAD_LOGIN'));
    expect(codes.slice(5)).toEqual(Array(ATTEMPTS - 5).fill('ERR_LOGIN_THROTTLED'));
    for (const { reason } of results.slice(5)) {
      const seconds = Number(/retry-after=(\d+)$/.exec(reason)?.[1]);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
    }
    // Even the right password, from the guessing address, waits its turn.
    expect((await attempt(server.tcpPort, '127.0.0.1', 'frodo', 'the right password')).code).toBe(
      'ERR_LOGIN_THROTTLED',
    );

    const ok = await owner.login('frodo', 'the right password');
    expect(ok.account).toBe('frodo');
    owner.close();
  });

  it("lets the owner's known device in while 12 addresses guess the password; the guessers and new devices stay locked", async () => {
    const owner = await clientFrom(server.tcpPort, '127.0.0.5');
    await owner.register('samwise', 'po-tay-toes');
    owner.close();
    // The owner's device logged in once before: it keeps the token LoginOk gave it.
    const ownersDevice = new MemoryDeviceTokens();
    expect((await attempt(server.tcpPort, '127.0.0.5', 'samwise', 'po-tay-toes', ownersDevice)).code).toBe(
      'OK',
    );
    expect(ownersDevice.get('Samwise')).toHaveLength(32);

    const guessers = Array.from({ length: 12 }, (_, i) => `127.0.1.${i + 1}`);
    const guesses = [];
    for (const [i, from] of guessers.entries()) {
      guesses.push((await attempt(server.tcpPort, from, 'samwise', `guess ${i}`)).code);
    }
    // One wrong password each from ten addresses locks the account against the rest.
    expect(guesses).toEqual([
      ...Array<string>(10).fill('ERR_BAD_LOGIN'),
      'ERR_LOGIN_THROTTLED',
      'ERR_LOGIN_THROTTLED',
    ]);

    // The owner's device logs in, from its own address and from one it never used.
    expect((await attempt(server.tcpPort, '127.0.0.5', 'samwise', 'po-tay-toes', ownersDevice)).code).toBe(
      'OK',
    );
    expect((await attempt(server.tcpPort, '127.0.0.6', 'samwise', 'po-tay-toes', ownersDevice)).code).toBe(
      'OK',
    );
    // A device the account never logged in from waits, even with the right password...
    const fresh = await attempt(
      server.tcpPort,
      '127.0.0.7',
      'samwise',
      'po-tay-toes',
      new MemoryDeviceTokens(),
    );
    expect(fresh.code).toBe('ERR_LOGIN_THROTTLED');
    expect(fresh.reason).toMatch(/retry-after=\d+$/);
    // ...and so does every guesser, before and after the owner's logins.
    for (const from of guessers.slice(0, 3)) {
      expect((await attempt(server.tcpPort, from, 'samwise', 'another guess')).code).toBe(
        'ERR_LOGIN_THROTTLED',
      );
    }
  });

  it('answers a name nobody registered exactly as it answers a real account', async () => {
    const results = [];
    for (let i = 0; i < 8; i++)
      results.push(await attempt(server.tcpPort, '127.0.0.3', 'nobody_here', `g${i}`));
    const real = [];
    for (let i = 0; i < 8; i++) real.push(await attempt(server.tcpPort, '127.0.0.4', 'frodo', `g${i}`));
    const shape = (rs: { code: string; reason: string }[]) =>
      rs.map((r) => `${r.code} ${r.reason.replace(/\d+/g, 'N')}`);
    expect(shape(results)).toEqual(shape(real));
    expect(results.at(-1)!.code).toBe('ERR_LOGIN_THROTTLED');
  });
});
