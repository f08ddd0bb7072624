/**
 * The server under test for the fuzz and soak tools: `node --import tsx server/main.ts` as a
 * child process on 127.0.0.1 with ephemeral ports and a fresh SQLite file in a temporary
 * directory, its pino log (JSON lines on stdout) read as it comes, its stderr kept, and
 * its memory and descriptors read from /proc and /metrics. The child is killed when the
 * tool exits, fails or is interrupted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from '../net/free-port.js';
import { parseMetrics, total } from '../net/prometheus.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** pino's numeric levels: error and fatal. */
const ERROR_LEVEL = 50;
/** Node's report of an exception or rejection that nothing caught (it then exits). */
const UNCAUGHT = /^(?:Uncaught |\[?Unhandled|node:internal\/process\/promises|\w*Error(?: \[\w+\])?: )/;

export interface LogTally {
  /** Lines logged at error level or above. */
  errors: number;
  /** The first few of them, as logged. */
  samples: string[];
  /** stderr lines that report an uncaught exception or unhandled rejection. */
  uncaught: number;
  stderr: string[];
}

export interface ServerChild {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly tcpPort: number;
  readonly httpPort: number;
  readonly dbFile: string;
  readonly log: LogTally;
  /** Set once the process has exited, with its code or signal. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, wait, SIGKILL if it lingers; removes the temporary directory unless kept. */
  stop(waitMs?: number): Promise<void>;
}

export interface StartOptions {
  readonly env?: Record<string, string>;
  /** Reuse this directory's database (a restart) instead of a new one. */
  readonly dir?: string;
  readonly startTimeoutMs?: number;
  /** Keep the directory on stop (the caller owns it). */
  readonly keepDir?: boolean;
}

const children = new Set<ChildProcess>();
let exitHooked = false;

function killAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

export async function startServerChild(options: StartOptions = {}): Promise<ServerChild> {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', killAll);
  }
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'wyvern-tool-'));
  const dbFile = join(dir, 'wyvern.db');
  // Chosen here rather than read from the log: at the quiet level the log has no "up" line.
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      HTTP_PORT: String(httpPort),
      TCP_PORT: String(tcpPort),
      DATABASE_URL: `sqlite:${dbFile}`,
      LOG_LEVEL: 'warn',
      SRP_WORKERS: '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  const log: LogTally = { errors: 0, samples: [], uncaught: 0, stderr: [] };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => {
      children.delete(proc);
      resolve({ code, signal });
    }),
  );
  createInterface({ input: proc.stderr! }).on('line', (line) => {
    if (log.stderr.length < 200) log.stderr.push(line);
    if (UNCAUGHT.test(line)) log.uncaught++;
  });
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    let entry: { level?: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return;
    }
    if ((entry.level ?? 0) >= ERROR_LEVEL) {
      log.errors++;
      if (log.samples.length < 10) log.samples.push(line);
    }
  });
  const ports = (async () => {
    const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
    let gone: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void exited.then((e) => (gone = e));
    for (;;) {
      if (gone)
        throw new Error(
          `the server exited (${gone.code ?? gone.signal}) before it was up:\n${log.stderr.join('\n')}`,
        );
      try {
        const r = await fetch(`http://127.0.0.1:${httpPort}/healthz`, { signal: AbortSignal.timeout(2000) });
        if (r.ok) return { tcp: tcpPort, http: httpPort };
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error('the server did not come up in time');
      await sleep(200);
    }
  })();
  let up: { tcp: number; http: number };
  try {
    up = await ports;
  } catch (e) {
    proc.kill('SIGKILL');
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const child: ServerChild = {
    proc,
    pid: proc.pid!,
    tcpPort: up.tcp,
    httpPort: up.http,
    dbFile,
    log,
    exit: undefined,
    exited,
    async stop(waitMs = 15_000) {
      if (child.exit === undefined) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), waitMs);
        await exited;
        clearTimeout(timer);
      }
      if (!options.keepDir && !options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  void exited.then((e) => (child.exit = e));
  return child;
}

export interface ProcessSample {
  /** Resident set size from /proc (bytes). */
  rss: number;
  /** V8 heap in use (bytes), from /metrics. */
  heap: number;
  /** V8 heap reserved, in use or not (bytes), from /metrics: RSS that the heap holds. */
  heapTotal?: number;
  /** Memory outside the V8 heap that JS objects own (ArrayBuffers, Buffers), from /metrics. */
  external?: number;
  /** The SRP worker threads' V8 heaps (bytes), from /metrics: in RSS, not in heapTotal. */
  srpHeap?: number;
  /** Open file descriptors (/proc/PID/fd). */
  fds: number;
  /** Active libuv handles (nodejs_active_handles_total). */
  handles: number;
  /** Open connections, as /healthz counts them. */
  connections: number;
}

export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

export async function sampleProcess(server: ServerChild): Promise<ProcessSample> {
  const base = `http://127.0.0.1:${server.httpPort}`;
  const [metrics, health] = await Promise.all([
    fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) }).then((r) => r.text()),
    fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.json() as Promise<{ connections?: number }>,
    ),
  ]);
  const s = parseMetrics(metrics);
  return {
    rss: rssOf(server.pid),
    heap: total(s, 'nodejs_heap_size_used_bytes'),
    heapTotal: total(s, 'nodejs_heap_size_total_bytes'),
    external: total(s, 'nodejs_external_memory_bytes'),
    srpHeap: total(s, 'wyvern_srp_worker_heap_bytes'),
    fds: readdirSync(`/proc/${server.pid}/fd`).length,
    handles: total(s, 'nodejs_active_handles_total'),
    connections: health.connections ?? 0,
  };
}

/** Quantile of an ascending array (nearest rank); 0 when empty. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function stamp(date = new Date()): string {
  return date.toISOString().slice(0, 19).replace(/:/g, '-');
}
