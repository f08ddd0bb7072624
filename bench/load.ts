/**
 * Load benchmark: how many moving players one server holds on this machine.
 *
 *   npx tsx bench/load.ts [--transport tcp|ws|mix|all] [--steps 250,500,1000,2000,4000]
 *       [--settle 20] [--hold 20] [--dense] [--in-view 50] [--tick-rate 20] [--profile]
 *
 * For each transport: a server child process (fresh temp SQLite database, LOG_LEVEL=warn,
 * generous per-address connection limit, default rate limits) and a bot swarm child
 * (tools/bots.ts --ipc). For each step N the swarm grows to N bots (the same bots stay
 * connected; only new ones log in), spread so each sees about --in-view entities (players
 * and mobs), waits for them to reach their places, settles, then measures for --hold seconds:
 * tick time from the server's wyvern_tick_seconds histogram (bucket deltas between two
 * scrapes), server CPU and RSS, move -> observer latency and round trips from the bots,
 * bytes per client, drops, errors. It stops ramping once a step is over the limits (tick
 * p99 over the tick interval, latency p99 over 100 ms, or bots that cannot get in).
 *
 * Writes bench/results/load-<date>.{json,md,svg}. Every connection is to 127.0.0.1; every
 * child is killed on exit, error or Ctrl-C. --profile runs the server with --cpu-prof and
 * prints its hottest functions (the profile covers the whole run, logins included).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AreaSpec, GrowReport, PhaseReport } from '../tools/bots/swarm.js';
import {
  delta,
  histogram,
  maxBound,
  parseMetrics,
  quantile,
  total,
  type Samples,
} from './load/prometheus.js';
import { topFunctions } from './load/profile.js';
import { markdown, svgChart, type RunResult, type StepResult } from './load/report.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LATENCY_LIMIT_MS = 100;
/** Mobs in view on average (Greenvale: 220 spawns on 2000 x 2000, radius 250), subtracted from --in-view. */
const EXPECTED_MOBS_IN_VIEW = 10;

interface Args {
  transports: ('tcp' | 'ws' | 'mix')[];
  steps: number[];
  settle: number;
  hold: number;
  arriveTimeout: number;
  dense: boolean;
  inView: number;
  tickRate: number;
  profile: boolean;
  loginConcurrency: number;
  out: string;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    transports: ['tcp'],
    steps: [250, 500, 1000, 2000, 4000],
    settle: 20,
    hold: 20,
    arriveTimeout: 45,
    dense: false,
    inView: 50,
    tickRate: 20,
    profile: false,
    loginConcurrency: 32,
    out: join(ROOT, 'bench/results'),
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${flag}: expected a value`);
      return x;
    };
    const num = () => {
      const n = Number(v());
      if (!Number.isFinite(n) || n < 0) throw new Error(`${flag}: expected a number`);
      return n;
    };
    switch (flag) {
      case '--transport': {
        const t = v();
        if (t === 'all') a.transports = ['tcp', 'ws', 'mix'];
        else if (t === 'tcp' || t === 'ws' || t === 'mix') a.transports = [t];
        else throw new Error('--transport: expected tcp, ws, mix or all');
        break;
      }
      case '--steps':
        a.steps = v()
          .split(',')
          .map((s) => Math.floor(Number(s)));
        if (a.steps.some((n) => !Number.isFinite(n) || n < 2))
          throw new Error('--steps: expected numbers >= 2');
        a.steps.sort((x, y) => x - y);
        break;
      case '--settle':
        a.settle = num();
        break;
      case '--hold':
        a.hold = num();
        break;
      case '--arrive-timeout':
        a.arriveTimeout = num();
        break;
      case '--dense':
        a.dense = true;
        break;
      case '--in-view':
        a.inView = num();
        break;
      case '--tick-rate':
        a.tickRate = num();
        break;
      case '--login-concurrency':
        a.loginConcurrency = num();
        break;
      case '--profile':
        a.profile = true;
        break;
      case '--out':
        a.out = v();
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return a;
}

const children = new Set<ChildProcess>();
function killChildren(): void {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
}
process.on('exit', killChildren);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    process.stderr.write(`load: ${sig}, stopping\n`);
    killChildren();
    process.exit(130);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);

interface ServerChild {
  proc: ChildProcess;
  httpPort: number;
  tcpPort: number;
  dir: string;
  profileDir: string | undefined;
}

async function startServerChild(args: Args): Promise<ServerChild> {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-load-'));
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const profileDir = args.profile ? join(dir, 'profile') : undefined;
  const execArgv = ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])];
  const out = createWriteStream(join(dir, 'server.log'));
  const proc = spawn(process.execPath, [...execArgv, join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      HTTP_PORT: String(httpPort),
      TCP_PORT: String(tcpPort),
      DATABASE_URL: `sqlite:${join(dir, 'wyvern.db')}`,
      LOG_LEVEL: 'warn',
      TICK_RATE: String(args.tickRate),
      MAX_CONNECTIONS: '100000',
      MAX_CONNECTIONS_PER_IP: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`the server exited (${proc.exitCode}); see ${join(dir, 'server.log')}`);
    try {
      const r = await fetch(`http://127.0.0.1:${httpPort}/healthz`);
      if (r.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('the server did not come up in 30 s');
    await sleep(250);
  }
  return { proc, httpPort, tcpPort, dir, profileDir };
}

async function stopChild(
  proc: ChildProcess,
  signal: NodeJS.Signals = 'SIGINT',
  waitMs = 15_000,
): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill(signal);
  await Promise.race([exited, sleep(waitMs)]);
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  children.delete(proc);
}

/** The swarm child and a request/reply channel over its IPC. */
class SwarmChild {
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: any) => void>();

  constructor(readonly proc: ChildProcess) {
    proc.on('message', (msg: { id?: number }) => {
      if (msg.id === undefined) return;
      this.waiting.get(msg.id)?.(msg);
      this.waiting.delete(msg.id);
    });
  }

  static start(server: ServerChild, transport: string, args: Args, dir: string): SwarmChild {
    const out = createWriteStream(join(dir, 'bots.log'));
    const proc = fork(
      join(ROOT, 'tools/bots.ts'),
      [
        '--ipc',
        '--transport',
        transport,
        '--url',
        '127.0.0.1',
        '--tcp-port',
        String(server.tcpPort),
        '--http-port',
        String(server.httpPort),
        '--login-concurrency',
        String(args.loginConcurrency),
      ],
      { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    children.add(proc);
    proc.stdout!.pipe(out);
    proc.stderr!.pipe(out);
    return new SwarmChild(proc);
  }

  request<T>(order: object, timeoutMs = 30 * 60_000): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the swarm did not answer ${JSON.stringify(order)}`)),
        timeoutMs,
      );
      const onExit = () => reject(new Error('the swarm process exited'));
      this.proc.once('exit', onExit);
      this.waiting.set(id, (msg) => {
        clearTimeout(timer);
        this.proc.off('exit', onExit);
        resolve(msg as T);
      });
      this.proc.send({ ...order, id });
    });
  }
}

async function scrape(server: ServerChild): Promise<{ at: number; samples: Samples }> {
  const r = await fetch(`http://127.0.0.1:${server.httpPort}/metrics`);
  return { at: performance.now(), samples: parseMetrics(await r.text()) };
}

function round(v: number, d = 2): number {
  const k = 10 ** d;
  return Math.round(v * k) / k;
}

async function runTransport(transport: 'tcp' | 'ws' | 'mix', args: Args): Promise<RunResult> {
  const server = await startServerChild(args);
  log(`\n== ${transport}: server on tcp ${server.tcpPort}, http ${server.httpPort} (logs in ${server.dir})`);
  const swarm = SwarmChild.start(server, transport, args, server.dir);
  const intervalMs = 1000 / args.tickRate;
  const steps: StepResult[] = [];
  try {
    for (const n of args.steps) {
      const area: AreaSpec = args.dense
        ? { kind: 'dense' }
        : { kind: 'density', playersInView: Math.max(1, args.inView - EXPECTED_MOBS_IN_VIEW) };
      log(`-- ${transport} N=${n}: logging in ${n - (steps.at(-1)?.n ?? 0)} more bots`);
      const grown = (await swarm.request<{ report: GrowReport }>({ type: 'grow', count: n, area })).report;
      log(
        `   ${grown.inWorld} in world, ${grown.failed} failed, ${grown.seconds} s (${grown.loginsPerSecond} logins/s)`,
      );
      // Wait for the bots to walk to their places, then let things settle.
      const arriveBy = performance.now() + args.arriveTimeout * 1000;
      let snap: PhaseReport | undefined;
      for (;;) {
        await swarm.request({ type: 'mark' });
        await sleep(1000);
        snap = (await swarm.request<{ report: PhaseReport }>({ type: 'snapshot' })).report;
        if (snap.bots.atHome >= 0.95 * snap.bots.inWorld || performance.now() > arriveBy) break;
      }
      log(`   ${snap.bots.atHome}/${snap.bots.inWorld} at their places; settling ${args.settle} s`);
      await sleep(args.settle * 1000);
      const before = await scrape(server);
      await swarm.request({ type: 'mark' });
      await sleep(args.hold * 1000);
      const after = await scrape(server);
      const play = (await swarm.request<{ report: PhaseReport }>({ type: 'snapshot' })).report;
      const seconds = (after.at - before.at) / 1000;
      const tick = delta(
        histogram(before.samples, 'wyvern_tick_seconds'),
        histogram(after.samples, 'wyvern_tick_seconds'),
      );
      const d = (name: string) => total(after.samples, name) - total(before.samples, name);
      const step: StepResult = {
        transport,
        n,
        inWorld: play.bots.inWorld,
        failedLogins: grown.failed,
        login: {
          seconds: grown.seconds,
          perSecond: grown.loginsPerSecond,
          p50Ms: grown.login.p50,
          p99Ms: grown.login.p99,
        },
        area: play.area,
        atHome: play.bots.atHome,
        holdSeconds: round(seconds),
        tick: {
          p50Ms: round(quantile(tick, 0.5) * 1000),
          p99Ms: round(quantile(tick, 0.99) * 1000),
          maxMs: round(maxBound(tick) * 1000),
          meanMs: round(tick.count > 0 ? (tick.sum / tick.count) * 1000 : NaN),
          count: tick.count,
          intervalMs,
        },
        server: {
          cpuPercent: round((d('process_cpu_seconds_total') / seconds) * 100, 1),
          rssMb: round(total(after.samples, 'process_resident_memory_bytes') / 2 ** 20, 1),
          droppedPackets: d('wyvern_dropped_packets_total'),
          bytesOutPerSecond: round(d('wyvern_bytes_out_total') / seconds, 0),
          framesOutPerSecond: round(d('wyvern_frames_out_total') / seconds, 0),
        },
        latency: play.latency,
        rttP50: play.rtt.p50,
        rttP99: play.rtt.p99,
        perClient: play.perClient,
        inView: play.inView,
        movesPerSecond: play.movesPerSecond,
        entityMovesPerSecond: play.entityMovesPerSecond,
        errors: play.errors,
        disconnects: play.disconnects,
        botCpuPercent: play.botCpuPercent,
        over: [],
      };
      if (!(step.tick.p99Ms < intervalMs))
        step.over.push(`tick p99 ${step.tick.p99Ms} ms >= ${intervalMs} ms`);
      if (!(play.latency.p99 !== null && play.latency.p99 <= LATENCY_LIMIT_MS))
        step.over.push(`latency p99 ${play.latency.p99} ms > ${LATENCY_LIMIT_MS} ms`);
      if (step.inWorld < n) step.over.push(`${n - step.inWorld} bots not in the world`);
      steps.push(step);
      log(
        `   tick p50 ${step.tick.p50Ms} p99 ${step.tick.p99Ms} ms | server cpu ${step.server.cpuPercent}% rss ${step.server.rssMb} MB | ` +
          `latency p50 ${play.latency.p50} p99 ${play.latency.p99} ms | rtt p50 ${play.rtt.p50} | ${Math.round(play.perClient.bytesPerSecond)} B/s per client | ` +
          `in view ${play.inView.entities} | dropped ${step.server.droppedPackets} | bot cpu ${play.botCpuPercent}% | ` +
          `${step.over.length === 0 ? 'within limits' : `OVER: ${step.over.join('; ')}`}`,
      );
      if (step.over.length > 0) break;
    }
  } finally {
    await swarm.request({ type: 'stop' }, 20_000).catch(() => {});
    await stopChild(swarm.proc, 'SIGTERM', 5_000);
    await stopChild(server.proc);
  }
  if (server.profileDir) {
    try {
      const files = readdirSync(server.profileDir).filter((f) => f.endsWith('.cpuprofile'));
      for (const file of files) {
        log(`   server profile ${join(server.profileDir, file)}: hottest functions (self time)`);
        for (const fn of topFunctions(join(server.profileDir, file), 25)) {
          log(`     ${fn.selfPercent.toFixed(1).padStart(5)}%  ${fn.name}  ${fn.where}`);
        }
      }
    } catch (e) {
      log(`   no profile: ${(e as Error).message}`);
    }
  } else {
    rmSync(server.dir, { recursive: true, force: true });
  }
  const ok = steps.filter((s) => s.over.length === 0);
  return {
    transport,
    dense: args.dense,
    steps,
    capacity: ok.length > 0 ? Math.max(...ok.map((s) => s.n)) : 0,
  };
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`load: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const started = new Date();
  const runs: RunResult[] = [];
  for (const t of args.transports) runs.push(await runTransport(t, args));
  const stamp = started.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
  const suffix = args.dense ? '-dense' : '';
  mkdirSync(args.out, { recursive: true });
  const base = join(args.out, `load-${stamp}${suffix}`);
  const meta = {
    date: started.toISOString(),
    machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    'tick rate': `${args.tickRate} Hz (interval ${1000 / args.tickRate} ms)`,
    placement: args.dense
      ? 'dense: everyone within one interest radius'
      : `spread for about ${args.inView} entities in view (players + mobs)`,
    'per step': `logins, bots walk to their places (up to ${args.arriveTimeout} s), ${args.settle} s settle, ${args.hold} s measured`,
    'bots and server': 'share this machine (bot CPU reported per step)',
  };
  writeFileSync(`${base}.json`, `${JSON.stringify({ meta, runs }, null, 2)}\n`);
  writeFileSync(`${base}.md`, `${markdown(meta, runs)}\n`);
  writeFileSync(`${base}.svg`, svgChart(runs, 1000 / args.tickRate));
  log(`\nwrote ${base}.json, .md, .svg`);
  for (const r of runs) log(`capacity ${r.transport}${args.dense ? ' (dense)' : ''}: ${r.capacity} clients`);
  process.exit(0);
}

void main().catch((e: unknown) => {
  process.stderr.write(`load: ${(e as Error).stack ?? String(e)}\n`);
  killChildren();
  process.exit(1);
});
