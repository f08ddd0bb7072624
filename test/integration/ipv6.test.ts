/**
 * Per-address limits over IPv6: a connection from ::1 counts under its /64 on every transport
 * and engine alike (uWebSockets.js writes addresses out in full, node shortens them), and on a
 * dual-stack listener an IPv4 client counts as its IPv4 address on every transport. Run as
 * root where `ip netns` works, 25 addresses of one /64 on a namespace's loopback guess one
 * account's password: they are throttled as one address, and the owner, on another /64, logs
 * in; elsewhere that part says it skipped, and why.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoginProof, LoginStart } from '../../shared/protocol/account.js';
import { Hello } from '../../shared/protocol/session.js';
import { accountHandlers } from '../../server/session/account.js';
import { AccountService } from '../../server/session/accounts.js';
import { LoginLimiter } from '../../server/session/login-limiter.js';
import { SrpPool } from '../../server/session/srp.js';
import { openStore, type Store } from '../../server/store/index.js';
import { Netns } from '../helpers/hostile-netns.js';
import { connectRaw, hello, type RawClient } from '../helpers/raw-client.js';
import { startTestServer, stopTestServers } from './harness.js';

const open: RawClient[] = [];
let store: Store;
let pool: SrpPool;

beforeAll(async () => {
  store = await openStore('sqlite::memory:');
  pool = new SrpPool({ size: 1 });
  await pool.ready();
});

afterEach(async () => {
  for (const c of open.splice(0)) c.close();
  await stopTestServers();
});

afterAll(async () => {
  await pool?.close();
  await store?.close();
});

async function connect(transport: 'tcp' | 'ws', port: number, host: string): Promise<RawClient> {
  const c = await connectRaw(transport, port, { host });
  open.push(c);
  return c;
}

/** The first frame from the `from`th on whose name is one of `names`. */
async function next(c: RawClient, names: readonly string[], from = 0, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const f = c.frames.slice(from).find((frame) => names.includes(frame.name));
    if (f) return f;
    if (Date.now() > deadline) throw new Error(`none of ${names.join(', ')} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A connection's first answer to Hello: Welcome, or the Error that refused it. */
function greeted(c: RawClient) {
  c.send(Hello, hello());
  return next(c, ['Welcome', 'Error']);
}

/** One wrong password (a made-up proof) for `account`: the code the server answers with. */
async function wrongLogin(c: RawClient, account: string): Promise<string> {
  c.send(Hello, hello());
  await next(c, ['Welcome']);
  const from = c.frames.length;
  c.send(LoginStart, { account, deviceToken: new Uint8Array(0) });
  const answer = await next(c, ['LoginChallenge', 'Error'], from);
  if (answer.name === 'Error') return answer.payload['code'] as string;
  const after = c.frames.length;
  c.send(LoginProof, { A: randomBytes(256), M1: randomBytes(64) });
  return (await next(c, ['Error', 'LoginOk'], after)).payload['code'] as string;
}

describe.each(['uws', 'ws'] as const)('per-address limits over IPv6, %s engine', (engine) => {
  it('counts TCP and WebSocket connections from ::1 under one /64', async () => {
    const server = await startTestServer({ HOST: '::', WS_ENGINE: engine, MAX_CONNECTIONS_PER_IP: '2' });
    const tcp = await connect('tcp', server.tcpPort, '::1');
    const ws = await connect('ws', server.httpPort, '::1');
    expect((await greeted(tcp)).name).toBe('Welcome');
    expect((await greeted(ws)).name).toBe('Welcome');
    for (const [transport, port] of [
      ['tcp', server.tcpPort],
      ['ws', server.httpPort],
    ] as const) {
      const third = await connect(transport, port, '::1');
      const refused = await greeted(third);
      expect(refused.payload).toMatchObject({ code: 'ERR_TOO_MANY_FROM_ADDRESS', fatal: true });
      expect(refused.payload['reason']).toContain('per /64');
    }
  });

  it('counts an IPv4 client of a dual-stack listener as its IPv4 address on both transports', async () => {
    const server = await startTestServer({ HOST: '::', WS_ENGINE: engine, MAX_CONNECTIONS_PER_IP: '2' });
    expect((await greeted(await connect('ws', server.httpPort, '127.0.0.1'))).name).toBe('Welcome');
    expect((await greeted(await connect('tcp', server.tcpPort, '127.0.0.1'))).name).toBe('Welcome');
    const third = await greeted(await connect('ws', server.httpPort, '127.0.0.1'));
    expect(third.payload).toMatchObject({ code: 'ERR_TOO_MANY_FROM_ADDRESS' });
    expect(third.payload['reason']).not.toContain('/');
  });

  it('throttles wrong passwords from ::1 whichever transport they come over', async () => {
    const accounts = new AccountService({
      store,
      srp: pool,
      secret: new Uint8Array(32).fill(6),
      limiter: new LoginLimiter({ perAccountAddress: 4 }),
    });
    const server = await startTestServer(
      { HOST: '::', WS_ENGINE: engine },
      { handlers: [accountHandlers({ accounts })] },
    );
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const transport = i % 2 === 0 ? 'tcp' : 'ws';
      const c = await connect(transport, transport === 'tcp' ? server.tcpPort : server.httpPort, '::1');
      codes.push(await wrongLogin(c, 'ipv6_target'));
      c.close();
    }
    expect(codes).toEqual([
      'ERR_BAD_LOGIN',
      'ERR_BAD_LOGIN',
      'ERR_BAD_LOGIN',
      'ERR_BAD_LOGIN',
      'ERR_LOGIN_THROTTLED',
      'ERR_LOGIN_THROTTLED',
    ]);
  });
});

describe('guessing from 25 addresses of one /64 (in a network namespace)', () => {
  const why = Netns.unavailable();
  if (why) {
    it.skip(`skipped: ${why}`, () => {});
    return;
  }

  it(
    'throttles them as one address, and the owner on another /64 logs in',
    { timeout: 120_000 },
    async () => {
      const name = `wyvern-v6-${process.pid % 100_000}`;
      const inNs = (...args: string[]) =>
        execFileSync('ip', ['netns', 'exec', name, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      const owner = '2001:db8:1:9::1';
      const guessers = Array.from({ length: 25 }, (_, i) => `2001:db8:1:2::${(i + 1).toString(16)}`);
      execFileSync('ip', ['netns', 'add', name]);
      try {
        inNs('ip', 'link', 'set', 'lo', 'up');
        for (const a of [owner, ...guessers])
          inNs('ip', '-6', 'addr', 'add', `${a}/64`, 'dev', 'lo', 'nodad');
        const root = join(import.meta.dirname, '../..');
        const child = spawn(
          'ip',
          [
            'netns',
            'exec',
            name,
            process.execPath,
            '--import',
            'tsx',
            join(root, 'test/helpers/ipv6-guessers.ts'),
            join(root, 'data/test'),
            owner,
            ...guessers,
          ],
          { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
        const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
        clearTimeout(timer);
        expect(code, err).toBe(0);
        const result = JSON.parse(out.trim().split('\n').at(-1)!) as { guesses: string[]; owner: string };
        // One (account, address) budget for the whole /64: five wrong passwords, then throttled.
        expect(result.guesses).toEqual([
          ...Array<string>(5).fill('ERR_BAD_LOGIN'),
          ...Array<string>(20).fill('ERR_LOGIN_THROTTLED'),
        ]);
        expect(result.owner).toBe('OK');
      } finally {
        execFileSync('ip', ['netns', 'del', name]);
      }
    },
  );
});
