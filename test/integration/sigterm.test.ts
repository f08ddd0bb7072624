/**
 * SIGTERM in the middle of a login storm, on the real server process (`tsx server/main.ts`
 * as a child, its own SQLite file, one SRP worker so that logins queue): every login in
 * flight is answered, with its result or with ERR_SHUTDOWN, never ERR_INTERNAL; every
 * client hears Bye and is closed; the server logs no error and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { LoginProof, LoginStart } from '../../shared/protocol/account.js';
import { Hello } from '../../shared/protocol/session.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import { closedWithin, connectRaw, hello, type RawClient } from '../helpers/raw-client.js';

const STORM = 100;
const ROOT = join(import.meta.dirname, '../..');

let child: ChildProcess | undefined;
let dir: string | undefined;
const open: RawClient[] = [];

afterEach(() => {
  for (const c of open.splice(0)) c.close();
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Running {
  proc: ChildProcess;
  tcpPort: number;
  /** Every stdout line so far (pino JSON, plus one line for people). */
  lines: string[];
  exited: Promise<number | null>;
}

async function startServerProcess(): Promise<Running> {
  dir = mkdtempSync(join(tmpdir(), 'wyvern-sigterm-'));
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'wyvern.db')}`,
      LOG_LEVEL: 'info',
      SRP_WORKERS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const parts = text.split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        const m = /native clients connect to TCP port (\d+)\.$/.exec(line);
        if (m) resolve(Number(m[1]));
      }
    });
    proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    void exited.then((code) => reject(new Error(`the server exited (${code}) before it was up: ${stderr}`)));
    setTimeout(() => reject(new Error('the server did not come up in 30 s')), 30_000).unref();
  });
  return { proc, tcpPort: await port, lines, exited };
}

it(
  'answers logins in flight with ERR_SHUTDOWN on SIGTERM, logs no error and exits 0',
  { timeout: 90_000 },
  async () => {
    const server = await startServerProcess();

    // A player already logged in: it must hear Bye.
    const transport = await TcpTransport.connect({ host: '127.0.0.1', port: server.tcpPort });
    const player = new WyvernClient(transport, { requestTimeoutMs: 20_000 });
    await player.hello({ clientKind: 'bot', clientName: 'player' });
    await player.register('steady', 'a password');
    await player.login('steady', 'a password');

    // The storm: every connection sends LoginStart at once; a challenge is answered with a
    // (wrong) proof at once, so both SRP steps are in flight.
    const storm = await Promise.all(Array.from({ length: STORM }, () => connectRaw('tcp', server.tcpPort)));
    open.push(...storm);
    let queued!: () => void;
    const someoneQueued = new Promise<void>((resolve) => (queued = resolve));
    storm.forEach((c, i) => {
      c.send(Hello, hello(`storm${i}`));
      c.send(LoginStart, { account: `storm_${i}`, deviceToken: new Uint8Array(0) });
      void c.waitFor('LoginQueue', 20_000).then(queued, () => {});
      void c.waitFor('LoginChallenge', 20_000).then(
        () => c.send(LoginProof, { A: randomBytes(256), M1: randomBytes(64) }),
        () => {},
      );
    });
    // Every connection accepted and its LoginStart submitted (Welcome comes in the same turn),
    // and logins waiting for the SRP worker.
    await Promise.all(storm.map((c) => c.waitFor('Welcome', 20_000)));
    await someoneQueued;
    server.proc.kill('SIGTERM');

    const code = await Promise.race([
      server.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no exit within 30 s')), 30_000)),
    ]);
    await Promise.all(storm.map((c) => closedWithin(c, 5000)));
    await player.closed;

    expect(code).toBe(0);
    const logged = server.lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as { level: number; msg: string }];
      } catch {
        return [];
      }
    });
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
    expect(logged.some((l) => l.msg === 'stopped')).toBe(true);

    const errors = storm.flatMap((c) => c.frames.filter((f) => f.name === 'Error').map((f) => f.payload));
    expect(errors.map((e) => e.code)).not.toContain('ERR_INTERNAL');
    // Logins still queued when the signal came were refused for the shutdown, as requests...
    const shutdown = errors.filter((e) => e.code === 'ERR_SHUTDOWN');
    expect(shutdown.length).toBeGreaterThan(0);
    for (const e of shutdown) {
      // (a Hello, LoginStart or LoginProof that came in after the signal)
      expect([Hello.opcode, LoginStart.opcode, LoginProof.opcode]).toContain(e.opcode);
      expect(e.fatal).toBe(false);
    }
    for (const c of storm) {
      // ...every LoginStart got its answer (a challenge or a refusal) and every client a Bye.
      const names = c.frames.map((f) => f.name);
      const startAnswered =
        names.includes('LoginChallenge') ||
        c.frames.some((f) => f.name === 'Error' && f.payload.opcode === LoginStart.opcode);
      expect(startAnswered, names.join(' ')).toBe(true);
      // Bye, and nothing after it.
      expect(names.indexOf('Bye'), names.join(' ')).toBe(names.length - 1);
    }
    expect(player.closeReason).toBeDefined();
  },
);
