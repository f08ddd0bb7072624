/**
 * The cluster tests' processes: `tsx server/main.ts` with one role's settings, its stdout kept
 * line by line (the log is JSON lines there) so a test can wait for what a process says, and
 * stopped by the test: SIGTERM (a clean stop), or SIGKILL (a crash).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const TEST_DATA = join(ROOT, 'data/test');
const UP_TIMEOUT_MS = 60_000;

/**
 * The settings every role of a test's cluster shares: loopback and ports the system picks,
 * one database, one data dir and one secret, one SRP worker, a quick shutdown; `more` adds
 * to them or overrides them.
 */
export function clusterEnv(
  shared: { databaseUrl: string; dataDir: string; natsUrl: string; logLevel: string },
  more: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    HTTP_PORT: '0',
    TCP_PORT: '0',
    DATABASE_URL: shared.databaseUrl,
    DATA_DIR: shared.dataDir,
    LOG_LEVEL: shared.logLevel,
    SRP_WORKERS: '1',
    SHUTDOWN_TIMEOUT_MS: '2000',
    WYVERN_SECRET: '00112233445566778899aabbccddeeff',
    NATS_URL: shared.natsUrl,
    ...more,
  };
}

/** What a gateway says once it listens: its HTTP port, then its TCP port. */
export const GATEWAY_UP =
  /open https?:\/\/localhost:(\d+)\/ in a browser; native clients connect to TCP port (\d+)\./;
/** What a zone host says once it runs its zones. */
export const zoneHostUp = (id: string): RegExp => new RegExp(`zone host ${id} is running`);

export interface RoleProcess {
  readonly proc: ChildProcess;
  /** The captures of the line that said it is up (undefined until then, for a standby). */
  readonly up: Promise<RegExpExecArray>;
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  /** The first line from `since` (an index into `lines`) matching `re`; `timeoutMs` bounds the wait. */
  waitFor(re: RegExp, options?: { since?: number; timeoutMs?: number }): Promise<RegExpExecArray>;
  /** A clean stop (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** A crash: SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

/** Starts `server/main.ts` with `env`; `up` resolves at the first stdout line matching `ready`. */
export function spawnRole(env: Record<string, string>, ready: RegExp): RoleProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const name = `${env['ROLE']} ${env['NODE_ID'] ?? env['GATEWAY_ID'] ?? ''}`.trim();
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const lines: string[] = [];
  const watchers = new Set<{ re: RegExp; since: number; resolve: (m: RegExpExecArray) => void }>();
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let partial = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of watchers) {
        const m = w.re.exec(line);
        if (m) {
          watchers.delete(w);
          w.resolve(m);
        }
      }
    }
  });
  const gone = (): boolean => proc.exitCode !== null || proc.signalCode !== null;
  const waitFor = (re: RegExp, options: { since?: number; timeoutMs?: number } = {}) => {
    const since = options.since ?? 0;
    for (let i = since; i < lines.length; i++) {
      const m = re.exec(lines[i]!);
      if (m) return Promise.resolve(m);
    }
    return new Promise<RegExpExecArray>((resolve, reject) => {
      const w = { re, since, resolve };
      watchers.add(w);
      const timeoutMs = options.timeoutMs ?? UP_TIMEOUT_MS;
      const timer = setTimeout(() => {
        watchers.delete(w);
        reject(new Error(`${name}: no line matching ${re} within ${timeoutMs} ms: ${stderr}`));
      }, timeoutMs);
      timer.unref();
      void exited.then((code) => {
        if (!watchers.delete(w)) return;
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code}) before a line matching ${re}: ${stderr}`));
      });
    });
  };
  const stop = async (): Promise<void> => {
    if (gone()) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const kill = async (): Promise<void> => {
    if (gone()) return;
    proc.kill('SIGKILL');
    await exited;
  };
  const up = waitFor(ready);
  // A standby's `up` may never come; its rejection is the test's to see, not unhandled.
  up.catch(() => {});
  return { proc, up, lines, waitFor, stop, kill };
}

/** Starts a role and waits until it is up; stops it if it is not. */
export async function startRole(
  env: Record<string, string>,
  ready: RegExp,
): Promise<RoleProcess & { ready: RegExpExecArray }> {
  const role = spawnRole(env, ready);
  try {
    return { ...role, ready: await role.up };
  } catch (e) {
    await role.stop();
    throw e;
  }
}
