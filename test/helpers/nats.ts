/**
 * A throwaway nats-server for tests and benchmarks: Debian's /usr/sbin/nats-server (package
 * `nats-server`, JetStream included) started with -js on 127.0.0.1, an ephemeral port and a
 * temp store directory; `restart` brings it back on the same port and store (a NATS restart
 * under live clients), `stop` ends it and removes the store. A server the test forgot is
 * killed when the process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NATS_SERVER_PATH = process.env['WYVERN_NATS_SERVER'] ?? '/usr/sbin/nats-server';

export function natsServerAvailable(): boolean {
  return existsSync(NATS_SERVER_PATH);
}

/** The line a test file prints when it skips for want of nats-server. */
export const NATS_SKIP_MESSAGE = `nats-server not found at ${NATS_SERVER_PATH} (apt-get install nats-server, or set WYVERN_NATS_SERVER): NATS tests skipped.`;

const STARTUP_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killLeftovers(): void {
  for (const child of live) child.kill('SIGKILL');
}

export interface NatsServer {
  /** nats://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** The running server's process id (undefined while it is down). */
  readonly pid: number | undefined;
  /** Stops the server (SIGTERM, or SIGKILL for a crash) and starts it again on the same port and store. */
  restart(options?: { signal?: NodeJS.Signals; downMs?: number }): Promise<void>;
  /** Stops the server without removing the store (for a test that restarts it by hand). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts a killed server again on the same port and store. */
  start(): Promise<void>;
  /** Stops the server and removes its store. */
  stop(): Promise<void>;
}

/** Starts nats-server with JetStream on 127.0.0.1 and waits until it accepts connections. */
export async function startNatsServer(): Promise<NatsServer> {
  if (!natsServerAvailable()) throw new Error(NATS_SKIP_MESSAGE);
  if (!exitHookInstalled) {
    process.on('exit', killLeftovers);
    exitHookInstalled = true;
  }
  const storeDir = await mkdtemp(join(tmpdir(), 'wyvern-nats-'));
  let child: ChildProcess | undefined;
  let port = -1;

  async function launch(): Promise<void> {
    const proc = spawn(NATS_SERVER_PATH, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    live.add(proc);
    proc.once('exit', () => live.delete(proc));
    child = proc;
    port = await listeningPort(proc);
    await waitAccepting(port);
  }

  async function kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  await launch();
  return {
    get url() {
      return `nats://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    get pid() {
      return child?.pid;
    },
    storeDir,
    async restart(options = {}) {
      await kill(options.signal);
      if (options.downMs) await new Promise((r) => setTimeout(r, options.downMs));
      await launch();
    },
    kill,
    start: launch,
    async stop() {
      await kill();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

/** Reads the port from the server's "Listening for client connections on HOST:PORT" line. */
function listeningPort(proc: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => fail(new Error('nats-server did not start in time')), STARTUP_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const m = /Listening for client connections on [^\s]*:(\d+)/.exec(log);
      if (m) {
        cleanup();
        // Keep draining stderr so a chatty server never blocks on a full pipe.
        proc.stderr?.resume();
        resolve(Number(m[1]));
      }
    };
    const onExit = (code: number | null) =>
      fail(new Error(`nats-server exited (${code}) before listening:\n${log}`));
    function cleanup() {
      clearTimeout(timer);
      proc.stderr?.off('data', onData);
      proc.off('exit', onExit);
    }
    function fail(err: Error) {
      cleanup();
      proc.kill('SIGKILL');
      reject(err);
    }
    proc.stderr?.on('data', onData);
    proc.once('exit', onExit);
  });
}

async function waitAccepting(port: number): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nats-server on port ${port} does not accept connections`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
