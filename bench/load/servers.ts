/**
 * The server side of a load run, in one of two layouts:
 *
 *   one    `npm start`'s layout: one process, both roles, the in-process bus;
 *   G+Z    a cluster on this machine: a nats-server, Z zone hosts and G gateways (gateway k on
 *          consecutive TCP and HTTP ports, as the cluster's port scheme has it), one SQLite
 *          file shared by all (one machine), the bots spread over the gateways.
 *
 * Every server-side process (the nats-server too) is pinned to the server core, so a cluster
 * is measured on the same one core as the single process: what the split adds shows up as CPU
 * against CPU. Each process's CPU is read from /proc (utime + stime), so the nats-server counts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer, type NatsServer } from '../../test/helpers/nats.js';
import { adopt, freePort, pinned, sleep, stopChild, TASKSET, untilHealthy } from './children.js';
import { parseMetrics, type Samples } from '../../tools/net/prometheus.js';

export interface Layout {
  /** 0: one process holding both roles. */
  readonly gateways: number;
  readonly zoneHosts: number;
}

export const ONE: Layout = { gateways: 0, zoneHosts: 0 };

export function layoutName(l: Layout): string {
  return l.gateways === 0 ? 'one' : `${l.gateways}+${l.zoneHosts}`;
}

/** `one`, or `G+Z` (gateways + zone hosts). */
export function parseLayout(text: string): Layout {
  if (text === 'one') return ONE;
  const m = /^(\d+)\+(\d+)$/.exec(text);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new Error(`layout ${text}: expected one, or G+Z (gateways + zone hosts, e.g. 1+1, 2+1)`);
  return { gateways: Number(m[1]), zoneHosts: Number(m[2]) };
}

export interface ServerProcess {
  /** `server`, `gw-0`, `zh-0`, `nats`. */
  readonly id: string;
  readonly pid: number;
  /** Its /metrics and /healthz, when it serves them. */
  readonly httpPort: number | undefined;
  readonly proc: ChildProcess | undefined;
}

export interface Servers {
  readonly layout: Layout;
  /** Gateway 0's ports (the single process's in layout one); gateway k adds k. */
  readonly tcpPort: number;
  readonly httpPort: number;
  readonly processes: readonly ServerProcess[];
  readonly dir: string;
  readonly wsEngine: string;
  readonly profileDir: string | undefined;
  stop(): Promise<void>;
}

export interface ServerSettings {
  readonly layout: Layout;
  readonly core: number | undefined;
  readonly wsEngine: string;
  readonly tickRate: number;
  readonly dataDir: string;
  readonly profile: boolean;
  readonly root: string;
}

/** `count` consecutive free loopback ports. */
async function freeRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await freePort();
    let ok = true;
    for (let k = 1; k < count && ok; k++) ok = await isFree(first + k);
    if (ok) return first;
  }
  throw new Error(`no ${count} consecutive free ports`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used, from /proc/PID/stat; NaN once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** Resident set size of a process (bytes), from /proc/PID/statm. */
export function rssBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return NaN;
  }
}

/** Every process's /metrics, summed series by series (counters and histogram buckets add up). */
export async function scrapeAll(servers: Servers): Promise<Samples> {
  const texts = await Promise.all(
    servers.processes
      .filter((p) => p.httpPort !== undefined)
      .map((p) => fetch(`http://127.0.0.1:${p.httpPort}/metrics`).then((r) => r.text())),
  );
  return sumMetrics(texts);
}

/** Several /metrics texts as one: each series (name and labels) summed over the texts. */
export function sumMetrics(texts: readonly string[]): Samples {
  const sums = new Map<string, Map<string, number>>();
  for (const text of texts) {
    for (const [name, rows] of parseMetrics(text)) {
      const byLabels = sums.get(name) ?? new Map<string, number>();
      for (const r of rows) byLabels.set(r.labels, (byLabels.get(r.labels) ?? 0) + r.value);
      sums.set(name, byLabels);
    }
  }
  const out: Samples = new Map();
  for (const [name, byLabels] of sums)
    out.set(
      name,
      [...byLabels].map(([labels, value]) => ({ labels, value })),
    );
  return out;
}

function nodeChild(
  settings: ServerSettings,
  env: Record<string, string>,
  logFile: string,
  profileDir: string | undefined,
): ChildProcess {
  const nodeArgs = [
    '--import',
    'tsx',
    ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
    // Extra flags for the server's node, e.g. --perf-basic-prof for `perf record`.
    ...(process.env['WYVERN_SERVER_NODE_ARGS']?.split(' ').filter(Boolean) ?? []),
    join(settings.root, 'server/main.ts'),
  ];
  const [cmd, cmdArgs] = pinned(settings.core, nodeArgs);
  const proc = spawn(cmd, cmdArgs, {
    cwd: settings.root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TICK_RATE: String(settings.tickRate),
      MAX_CONNECTIONS: '100000',
      MAX_CONNECTIONS_PER_IP: '100000',
      // Logins share the server's one core: one SRP worker, not one per core of the machine.
      SRP_WORKERS: '1',
      DATA_DIR: settings.dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  adopt(proc);
  const out = createWriteStream(logFile);
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  return proc;
}

export async function startServers(settings: ServerSettings): Promise<Servers> {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-load-'));
  const profileDir = settings.profile ? join(dir, 'profile') : undefined;
  const database = `sqlite:${join(dir, 'wyvern.db')}`;
  const { layout } = settings;
  if (layout.gateways === 0) {
    const [httpPort, tcpPort] = [await freePort(), await freePort()];
    const proc = nodeChild(
      settings,
      {
        HTTP_PORT: String(httpPort),
        TCP_PORT: String(tcpPort),
        DATABASE_URL: database,
        WS_ENGINE: settings.wsEngine,
      },
      join(dir, 'server.log'),
      profileDir,
    );
    const health = await untilHealthy(proc, httpPort, `; see ${join(dir, 'server.log')}`);
    return {
      layout,
      tcpPort,
      httpPort,
      processes: [{ id: 'server', pid: proc.pid!, httpPort, proc }],
      dir,
      wsEngine: typeof health.wsEngine === 'string' ? health.wsEngine : '?',
      profileDir,
      stop: () => stopChild(proc),
    };
  }

  if (settings.profile) throw new Error('--profile: only with layout one');
  const nats: NatsServer = await startNatsServer();
  if (settings.core !== undefined && nats.pid !== undefined)
    execFileSync(TASKSET, ['-a', '-p', '-c', String(settings.core), String(nats.pid)], { stdio: 'ignore' });
  const common = {
    NATS_URL: nats.url,
    DATABASE_URL: database,
    WYVERN_SECRET: randomBytes(32).toString('hex'),
  };
  const processes: ServerProcess[] = [{ id: 'nats', pid: nats.pid!, httpPort: undefined, proc: undefined }];
  const stopAll = async (): Promise<void> => {
    // Gateways first, then zone hosts (they save everyone), then the bus they need for it.
    for (const kind of ['gw-', 'zh-']) {
      await Promise.all(
        processes.filter((p) => p.id.startsWith(kind) && p.proc).map((p) => stopChild(p.proc!)),
      );
    }
    await nats.stop();
  };
  try {
    for (let i = 0; i < layout.zoneHosts; i++) {
      const id = `zh-${i}`;
      const httpPort = await freePort();
      const proc = nodeChild(
        settings,
        { ...common, ROLE: 'zone-host', NODE_ID: id, HTTP_PORT: String(httpPort) },
        join(dir, `${id}.log`),
        undefined,
      );
      // Older zone hosts have no HTTP listener: their metrics are then missing from the sums.
      const serves = await untilHealthy(proc, httpPort, `; see ${join(dir, `${id}.log`)}`, 10_000).then(
        () => true,
        () => false,
      );
      processes.push({ id, pid: proc.pid!, httpPort: serves ? httpPort : undefined, proc });
    }
    const [tcpBase, httpBase] = [await freeRun(layout.gateways), await freeRun(layout.gateways)];
    let wsEngine = '?';
    for (let k = 0; k < layout.gateways; k++) {
      const id = `gw-${k}`;
      const proc = nodeChild(
        settings,
        {
          ...common,
          ROLE: 'gateway',
          GATEWAY_ID: id,
          NODE_ID: id,
          TCP_PORT: String(tcpBase + k),
          HTTP_PORT: String(httpBase + k),
          WS_ENGINE: settings.wsEngine,
        },
        join(dir, `${id}.log`),
        undefined,
      );
      const health = await untilHealthy(proc, httpBase + k, `; see ${join(dir, `${id}.log`)}`);
      if (typeof health.wsEngine === 'string') wsEngine = health.wsEngine;
      processes.push({ id, pid: proc.pid!, httpPort: httpBase + k, proc });
    }
    await untilZonesServed(httpBase, layout.zoneHosts);
    return {
      layout,
      tcpPort: tcpBase,
      httpPort: httpBase,
      processes,
      dir,
      wsEngine,
      profileDir: undefined,
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/** Waits until gateway 0 sees every zone host with its zones claimed. */
async function untilZonesServed(httpPort: number, zoneHosts: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const health = (await fetch(`http://127.0.0.1:${httpPort}/healthz`).then((r) => r.json())) as {
      cluster?: { zoneHosts?: { zones: string[] }[] };
    };
    const hosts = health.cluster?.zoneHosts ?? [];
    if (hosts.length >= zoneHosts && hosts.every((h) => h.zones.length > 0)) return;
    if (Date.now() > deadline)
      throw new Error(`the gateway saw ${hosts.length}/${zoneHosts} zone hosts in 30 s`);
    await sleep(250);
  }
}
