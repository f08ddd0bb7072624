/**
 * Load benchmark: how many moving players one server core holds.
 *
 *   npx tsx bench/load.ts [--transport tcp,uws,mix | all] [--steps 500,1000,1500,2000]
 *       [--settle 10] [--hold 20] [--arrive-timeout 60] [--dense] [--in-view 50]
 *       [--tick-rate 20] [--cores 0,1 | --no-pin] [--shipped-zone] [--data data] [--profile]
 *       [--layout one,1+1,2+1]
 *
 * Setup, per transport: the server alone on one core and the bot swarm alone on another
 * (`taskset -c`), so neither steals the other's CPU; a fresh temp SQLite database; a temp copy
 * of the data directory whose one zone is a 4096 × 4096 field tiled from the shipped zone with
 * its mob density (bench/load/zone.ts), so that bots spread for --in-view keep that density as
 * N grows (--shipped-zone runs on the shipped zone instead).
 *
 *   tcp   bots over raw TCP
 *   uws   bots over WebSocket, server WS_ENGINE=uws
 *   ws    bots over WebSocket, server WS_ENGINE=ws
 *   mix   half TCP, half WebSocket, server WS_ENGINE=uws
 *
 * --layout runs each transport against each server layout (bench/load/servers.ts): `one` (the
 * default: one process, both roles, as `npm start`) or `G+Z`, G gateways and Z zone hosts over a
 * local nats-server, every server-side process pinned to the server core and the bots spread
 * over the gateways; the server's CPU is then the sum over its processes, each also reported.
 *
 * Per step N the swarm grows to N bots (the same bots stay; only new ones log in), every bot
 * walks to its place, things settle, then --hold seconds are measured between two scrapes of
 * the server's /metrics and a mark/snapshot of the bots:
 *
 *   server   CPU (% of its core, and per client), RSS and RSS per client over the idle
 *            baseline, heap, GC time (nodejs_gc_duration_seconds), tick p50/p99
 *            (wyvern_tick_seconds), bytes written per client, records encoded, drops
 *   bots     move -> observer p50/p99 (the server's move record matched to the send it
 *            carries), rtt, bytes and WorldUpdate frames received per client, entity updates
 *            (records) delivered per second and per server CPU-second, bytes per movement
 *            update (headers included), players and mobs in view, moves sent against moves due
 *
 * A step is INVALID (the bots were the bottleneck, so it says nothing about the server) when
 * the bot process used over 85% of its core, or sent under 95% of the movement states its
 * send policy asked for; the ramp stops there. A valid step is OVER the limits when tick p99
 * reaches the tick interval, move -> observer p99 passes 100 ms, or bots could not get in;
 * the ramp stops there too. Capacity: the largest valid step within the limits.
 *
 * Writes bench/results/load-<date>.{json,md,svg}. Every connection is to 127.0.0.1; every
 * child is killed on exit, error or Ctrl-C. --profile runs the server with --cpu-prof and
 * prints and records its hottest functions (the profile covers the whole run, logins included);
 * WYVERN_PROFILE_BOTS=DIR writes the bot swarm's --cpu-prof profile into DIR, and
 * WYVERN_SERVER_NODE_ARGS adds flags to every server process's node (--perf-basic-prof, so that
 * `perf record -p <pid>` names the JavaScript functions beside the kernel's and node's own).
 */
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AreaSpec, GrowReport, PhaseReport } from '../tools/bots/swarm.js';
import { DEFAULT_SWARM_OPTIONS } from '../tools/bots/state.js';
import { delta, histogram, maxBound, quantile, total, type Samples } from '../tools/net/prometheus.js';
import {
  IpcChild,
  killChildren,
  killChildrenOnExit,
  sleep,
  stopChild,
  pinned,
  TASKSET,
} from './load/children.js';
import { topFunctions } from './load/profile.js';
import { markdown, svgChart, type RunResult, type StepResult, type Transport } from './load/report.js';
import {
  cpuSeconds,
  layoutName,
  ONE,
  parseLayout,
  rssBytes,
  scrapeAll,
  startServers,
  type Layout,
  type Servers,
} from './load/servers.js';
import { writeBenchData, type BenchZoneSummary } from './load/zone.js';
import { CLIENT_HEARTBEAT_MS } from '../shared/game/motion.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LATENCY_LIMIT_MS = 100;
/** Bots over this much of their core, or sending under this share of what is due, make a step invalid. */
const BOT_CPU_LIMIT = 85;
const MOVES_SENT_MIN = 0.95;

interface Args {
  transports: Transport[];
  steps: number[];
  settle: number;
  hold: number;
  arriveTimeout: number;
  dense: boolean;
  inView: number;
  tickRate: number;
  profile: boolean;
  loginConcurrency: number;
  /** [server core, bots core], or undefined: no pinning. */
  cores: [number, number] | undefined;
  shippedZone: boolean;
  data: string;
  out: string;
  /** Server layouts, each run for every transport. */
  layouts: Layout[];
}

const TRANSPORTS: readonly Transport[] = ['tcp', 'uws', 'ws', 'mix'];

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    transports: ['tcp', 'uws', 'mix'],
    steps: [500, 1000, 1500, 2000],
    settle: 10,
    hold: 20,
    arriveTimeout: 60,
    dense: false,
    inView: 50,
    tickRate: 20,
    profile: false,
    loginConcurrency: 32,
    cores: [0, 1],
    shippedZone: false,
    data: join(ROOT, 'data'),
    out: join(ROOT, 'bench/results'),
    layouts: [ONE],
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
      case '--transport':
      case '--transports': {
        const t = v();
        if (t === 'all') a.transports = ['tcp', 'uws', 'mix'];
        else {
          const list = t.split(',');
          for (const x of list) {
            if (!TRANSPORTS.includes(x as Transport))
              throw new Error(`${flag}: expected a list of ${TRANSPORTS.join(', ')} (or all)`);
          }
          a.transports = list as Transport[];
        }
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
      case '--cores': {
        const c = v().split(',').map(Number);
        if (c.length !== 2 || c.some((n) => !Number.isInteger(n) || n < 0) || c[0] === c[1])
          throw new Error('--cores: expected two different core numbers, server first (e.g. 0,1)');
        a.cores = [c[0]!, c[1]!];
        break;
      }
      case '--no-pin':
        a.cores = undefined;
        break;
      case '--shipped-zone':
        a.shippedZone = true;
        break;
      case '--data':
        a.data = v();
        break;
      case '--profile':
        a.profile = true;
        break;
      case '--out':
        a.out = v();
        break;
      case '--layout':
      case '--layouts':
        a.layouts = v().split(',').map(parseLayout);
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return a;
}

killChildrenOnExit('load');

const log = (line: string) => process.stdout.write(`${line}\n`);

function wsEngineFor(t: Transport): string {
  return t === 'ws' ? 'ws' : t === 'tcp' ? 'auto' : 'uws';
}

/** The swarm child (tools/bots.ts --ipc), asked over its IPC. */
const SwarmChild = {
  start(server: Servers, transport: Transport, args: Args, dir: string): IpcChild {
    const out = createWriteStream(join(dir, 'bots.log'));
    const nodeArgs = [
      ...(process.env.WYVERN_PROFILE_BOTS
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.WYVERN_PROFILE_BOTS]
        : []),
      '--import',
      'tsx',
      join(ROOT, 'tools/bots.ts'),
      '--ipc',
      '--transport',
      transport === 'tcp' || transport === 'mix' ? transport : 'ws',
      '--url',
      '127.0.0.1',
      '--tcp-port',
      String(server.tcpPort),
      '--http-port',
      String(server.httpPort),
      '--login-concurrency',
      String(args.loginConcurrency),
      '--gateways',
      String(Math.max(1, server.layout.gateways)),
    ];
    const [cmd, cmdArgs] = pinned(args.cores?.[1], nodeArgs);
    const proc = spawn(cmd, cmdArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    proc.stdout!.pipe(out);
    proc.stderr!.pipe(out);
    return new IpcChild(proc);
  },
};

interface Scrape {
  at: number;
  /** Every server process's /metrics, summed. */
  samples: Samples;
  /** CPU seconds and RSS bytes of each server process (the nats-server too), from /proc. */
  cpu: Map<string, number>;
  rss: Map<string, number>;
}

async function scrape(servers: Servers): Promise<Scrape> {
  const samples = await scrapeAll(servers);
  const cpu = new Map<string, number>();
  const rss = new Map<string, number>();
  for (const p of servers.processes) {
    cpu.set(p.id, cpuSeconds(p.pid));
    rss.set(p.id, rssBytes(p.pid));
  }
  return { at: performance.now(), samples, cpu, rss };
}

const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

function round(v: number, d = 2): number {
  const k = 10 ** d;
  return Math.round(v * k) / k;
}

/** The sum of a metric's samples whose labels contain `label` (e.g. kind="major"). */
function totalWith(s: Samples, name: string, label: string): number {
  return (s.get(name) ?? []).reduce((a, x) => a + (x.labels.includes(label) ? x.value : 0), 0);
}

function measureStep(
  transport: Transport,
  n: number,
  args: Args,
  grown: GrowReport,
  play: PhaseReport,
  before: Scrape,
  after: Scrape,
  baseline: Scrape,
  previous: { n: number; rss: number },
): StepResult {
  const seconds = (after.at - before.at) / 1000;
  const intervalMs = 1000 / args.tickRate;
  const zoneTick = delta(
    histogram(before.samples, 'wyvern_tick_seconds'),
    histogram(after.samples, 'wyvern_tick_seconds'),
  );
  // The tick's socket writes happen on the gateway, after the zone host's tick: a tick is
  // judged by both (their p50s and p99s added: an upper bound for the p99 of the sum).
  const batch = delta(
    histogram(before.samples, 'wyvern_gateway_batch_seconds'),
    histogram(after.samples, 'wyvern_gateway_batch_seconds'),
  );
  const tick = zoneTick;
  const plus = (q: number) => quantile(zoneTick, q) + (batch.count > 0 ? quantile(batch, q) : 0);
  const moveDelay = delta(
    histogram(before.samples, 'wyvern_move_input_delay_seconds'),
    histogram(after.samples, 'wyvern_move_input_delay_seconds'),
  );
  const hold = delta(
    histogram(before.samples, 'wyvern_input_hold_seconds'),
    histogram(after.samples, 'wyvern_input_hold_seconds'),
  );
  const d = (name: string) => total(after.samples, name) - total(before.samples, name);
  const per = Math.max(1, play.bots.inWorld);
  const processes = [...after.cpu.keys()].map((id) => ({
    id,
    cpuPercent: round((((after.cpu.get(id) ?? NaN) - (before.cpu.get(id) ?? NaN)) / seconds) * 100, 1),
    rssMb: round((after.rss.get(id) ?? NaN) / 2 ** 20, 1),
  }));
  const cpuPercent = processes.reduce((a, p) => a + p.cpuPercent, 0);
  const rss = sum(after.rss);
  const heap = total(after.samples, 'nodejs_heap_size_used_bytes');
  const rss0 = sum(baseline.rss);
  const heap0 = total(baseline.samples, 'nodejs_heap_size_used_bytes');
  const gcSeconds = d('nodejs_gc_duration_seconds_sum');
  const majorGc =
    totalWith(after.samples, 'nodejs_gc_duration_seconds_sum', 'kind="major"') -
    totalWith(before.samples, 'nodejs_gc_duration_seconds_sum', 'kind="major"');
  const bytesOut = d('wyvern_bytes_out_total') / seconds;
  const cpuFraction = cpuPercent / 100;
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
    walking: play.bots.walking,
    holdSeconds: round(seconds),
    tick: {
      p50Ms: round(plus(0.5) * 1000),
      p99Ms: round(plus(0.99) * 1000),
      maxMs: round((maxBound(tick) + (batch.count > 0 ? maxBound(batch) : 0)) * 1000),
      meanMs: round(
        (tick.count > 0 ? tick.sum / tick.count : NaN) * 1000 +
          (batch.count > 0 ? (batch.sum / batch.count) * 1000 : 0),
      ),
      zoneP99Ms: round(quantile(zoneTick, 0.99) * 1000),
      flushP99Ms: round(batch.count > 0 ? quantile(batch, 0.99) * 1000 : NaN),
      count: tick.count,
      intervalMs,
    },
    server: {
      cpuPercent: round(cpuPercent, 1),
      cpuPercentPerClient: round(cpuPercent / per, 4),
      rssMb: round(rss / 2 ** 20, 1),
      rssPerClientKb: round((rss - rss0) / per / 1024, 1),
      rssMarginalKb: round((rss - previous.rss) / Math.max(1, per - previous.n) / 1024, 1),
      heapUsedMb: round(heap / 2 ** 20, 1),
      heapPerClientKb: round((heap - heap0) / per / 1024, 1),
      gcMsPerSecond: round((gcSeconds / seconds) * 1000, 1),
      majorGcMsPerSecond: round((majorGc / seconds) * 1000, 1),
      gcCount: d('nodejs_gc_duration_seconds_count'),
      droppedPackets: d('wyvern_dropped_packets_total'),
      bytesOutPerSecond: round(bytesOut, 0),
      bytesOutPerClient: round(bytesOut / per, 0),
      framesOutPerSecond: round(d('wyvern_frames_out_total') / seconds, 0),
      recordsEncodedPerSecond: round(d('wyvern_replication_records_total') / seconds, 0),
    },
    processes,
    moveInputDelay: {
      p50Ms: round(quantile(moveDelay, 0.5) * 1000),
      p99Ms: round(quantile(moveDelay, 0.99) * 1000),
    },
    inputHold:
      hold.count > 0
        ? { p50Ms: round(quantile(hold, 0.5) * 1000), p99Ms: round(quantile(hold, 0.99) * 1000) }
        : undefined,
    latency: play.latency,
    rttP50: play.rtt.p50,
    rttP99: play.rtt.p99,
    perClient: play.perClient,
    inView: play.inView,
    moves: play.moves,
    updates: {
      ...play.updates,
      perServerCpuSecond: cpuFraction > 0 ? round(play.updates.recordsPerSecond / cpuFraction, 0) : null,
    },
    errors: play.errors,
    disconnects: play.disconnects,
    corrections: play.corrections,
    botCpuPercent: play.botCpuPercent,
    botLoopLagP99Ms: play.loopLag.p99,
    invalid: [],
    over: [],
  };
  if (play.botCpuPercent > BOT_CPU_LIMIT)
    step.invalid.push(`bot process at ${play.botCpuPercent}% of its core (> ${BOT_CPU_LIMIT}%)`);
  if (play.moves.sentRatio < MOVES_SENT_MIN)
    step.invalid.push(
      `bots sent ${Math.round(play.moves.sentRatio * 100)}% of the moves due (< ${MOVES_SENT_MIN * 100}%)`,
    );
  if (!(step.tick.p99Ms < intervalMs)) step.over.push(`tick p99 ${step.tick.p99Ms} ms >= ${intervalMs} ms`);
  if (!(play.latency.p99 !== null && play.latency.p99 <= LATENCY_LIMIT_MS))
    step.over.push(`latency p99 ${play.latency.p99} ms > ${LATENCY_LIMIT_MS} ms`);
  if (step.inWorld < n) step.over.push(`${n - step.inWorld} bots not in the world`);
  return step;
}

async function runTransport(
  transport: Transport,
  layout: Layout,
  args: Args,
  dataDir: string,
  expectedMobsInView: number,
): Promise<RunResult> {
  const server = await startServers({
    layout,
    core: args.cores?.[0],
    wsEngine: wsEngineFor(transport),
    tickRate: args.tickRate,
    dataDir,
    profile: args.profile,
    root: ROOT,
  });
  log(
    `\n== ${transport}, layout ${layoutName(layout)} (${server.processes.map((p) => p.id).join(', ')}): ` +
      `gateway 0 on tcp ${server.tcpPort}, http ${server.httpPort}, ws engine ${server.wsEngine}` +
      `${args.cores ? `, server on core ${args.cores[0]}, bots on core ${args.cores[1]}` : ', not pinned'} (logs in ${server.dir})`,
  );
  if ((transport === 'uws' || transport === 'mix') && server.wsEngine !== 'uws')
    throw new Error(`${transport}: the server runs WebSocket engine ${server.wsEngine}, not uws`);
  // The idle server's memory (once startup garbage is collected): what clients add is measured from here.
  await sleep(5_000);
  const baseline = await scrape(server);
  let previous = { n: 0, rss: sum(baseline.rss) };
  const swarm = SwarmChild.start(server, transport, args, server.dir);
  const steps: StepResult[] = [];
  try {
    for (const n of args.steps) {
      const area: AreaSpec = args.dense
        ? { kind: 'dense' }
        : { kind: 'density', playersInView: Math.max(1, args.inView - expectedMobsInView) };
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
      const step = measureStep(transport, n, args, grown, play, before, after, baseline, previous);
      previous = { n: step.inWorld, rss: sum(after.rss) };
      steps.push(step);
      const verdict =
        step.invalid.length > 0
          ? `INVALID (bots were the bottleneck): ${step.invalid.join('; ')}`
          : step.over.length === 0
            ? 'within limits'
            : `OVER: ${step.over.join('; ')}`;
      log(
        `   tick p50 ${step.tick.p50Ms} p99 ${step.tick.p99Ms} ms | server cpu ${step.server.cpuPercent}% ` +
          `rss ${step.server.rssMb} MB (${step.server.rssPerClientKb} KB/client) gc ${step.server.gcMsPerSecond} ms/s | ` +
          `latency p50 ${play.latency.p50} p99 ${play.latency.p99} ms | ${Math.round(play.perClient.bytesPerSecond)} B/s per client | ` +
          `${Math.round(play.updates.recordsPerSecond)} updates/s, ${play.updates.bytesPerMovementUpdate} B per movement update | ` +
          `in view ${play.inView.entities} | moves ${play.moves.sentPerSecond}/s (${play.moves.sentRatio} of due) | ` +
          `bot cpu ${play.botCpuPercent}% | ${verdict}`,
      );
      if (step.processes && step.processes.length > 1)
        log(
          `   cpu by process: ${step.processes.map((p) => `${p.id} ${p.cpuPercent}%`).join(', ')} | ` +
            `move input delay p50 ${step.moveInputDelay?.p50Ms} p99 ${step.moveInputDelay?.p99Ms} ms`,
        );
      log(`   input hold p50 ${step.inputHold?.p50Ms} p99 ${step.inputHold?.p99Ms} ms (over player-seconds)`);
      if (step.invalid.length > 0 || step.over.length > 0) break;
    }
  } finally {
    await swarm.request({ type: 'stop' }, 20_000).catch(() => {});
    // SIGINT: the swarm's own handler exits (writing a --cpu-prof profile, if asked for).
    await stopChild(swarm.proc, 'SIGINT', 5_000);
    await server.stop();
  }
  let profile: RunResult['profile'];
  if (server.profileDir) {
    try {
      // One file per thread; the main thread's is the first (the SRP workers' follow).
      const files = readdirSync(server.profileDir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .sort();
      for (const file of files) {
        const top = topFunctions(join(server.profileDir, file), 25, true);
        profile ??= top;
        log(`   server profile ${join(server.profileDir, file)}: hottest functions (self, % of busy time)`);
        for (const fn of top) log(`     ${fn.selfPercent.toFixed(1).padStart(5)}%  ${fn.name}  ${fn.where}`);
      }
    } catch (e) {
      log(`   no profile: ${(e as Error).message}`);
    }
  } else {
    rmSync(server.dir, { recursive: true, force: true });
  }
  const ok = steps.filter((s) => s.invalid.length === 0 && s.over.length === 0);
  return {
    transport,
    layout: layoutName(layout),
    wsEngine: server.wsEngine,
    dense: args.dense,
    steps,
    capacity: ok.length > 0 ? Math.max(...ok.map((s) => s.n)) : 0,
    ...(profile ? { profile } : {}),
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
  if (args.cores) {
    const n = cpus().length;
    if (!existsSync(TASKSET) || Math.max(...args.cores) >= n) {
      process.stderr.write(
        `load: cannot pin to cores ${args.cores.join(',')} (${n} cores, taskset ${existsSync(TASKSET) ? 'present' : 'missing'}); use --no-pin or --cores\n`,
      );
      process.exit(2);
    }
  }
  const started = new Date();
  const work = mkdtempSync(join(tmpdir(), 'wyvern-load-data-'));
  let dataDir = args.data;
  let zone: BenchZoneSummary | undefined;
  if (!args.shippedZone) {
    dataDir = join(work, 'data');
    zone = writeBenchData(args.data, dataDir);
    log(
      `bench zone ${zone.name}: ${zone.size} x ${zone.size} from ${zone.tiles} copies of ${zone.source}, ` +
        `${zone.obstacles} walls, ${zone.mobs} mobs (${zone.mobDensity} per million units², source ${zone.sourceMobDensity}), ` +
        `player spawn (${zone.playerSpawn.x}, ${zone.playerSpawn.y})`,
    );
  }
  // Mobs expected in view (spawn points per area times the interest circle); the rest of
  // --in-view is made of players.
  const rules = JSON.parse(readFileSync(join(dataDir, 'rules.json'), 'utf8')) as { interestRadius?: number };
  const interestRadius = rules.interestRadius ?? 250;
  const mobDensity = (zone?.mobDensity ?? 71.75) / 1e6;
  const expectedMobsInView = Math.round(mobDensity * Math.PI * interestRadius * interestRadius);
  const runs: RunResult[] = [];
  try {
    for (const layout of args.layouts)
      for (const t of args.transports)
        runs.push(await runTransport(t, layout, args, dataDir, expectedMobsInView));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const stamp = started.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
  const suffix = args.dense ? '-dense' : '';
  mkdirSync(args.out, { recursive: true });
  const base = join(args.out, `load-${stamp}${suffix}`);
  const meta: Record<string, string> = {
    date: started.toISOString(),
    machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    'tick rate': `${args.tickRate} Hz (interval ${1000 / args.tickRate} ms)`,
    layouts: args.layouts
      .map((l) =>
        l.gateways === 0
          ? 'one: one process, both roles, the in-process bus'
          : `${layoutName(l)}: ${l.gateways} gateway${l.gateways > 1 ? 's' : ''} and ${l.zoneHosts} zone host${l.zoneHosts > 1 ? 's' : ''} over a local nats-server, the bots spread over the gateways`,
      )
      .join('; '),
    cores: args.cores
      ? `server pinned to core ${args.cores[0]} (in a cluster layout every server-side process, the nats-server too), bots to core ${args.cores[1]} (taskset)`
      : 'not pinned: server and bots share the machine',
    zone: zone
      ? `${zone.name} ${zone.size} x ${zone.size}: ${zone.tiles} copies of the shipped zone, ${zone.mobs} mobs (${zone.mobDensity} per million units², shipped ${zone.sourceMobDensity})`
      : `the shipped zone(s) in ${args.data}`,
    placement: args.dense
      ? 'dense: everyone within one interest radius'
      : `spread for about ${args.inView} entities in view (${args.inView - expectedMobsInView} players + ~${expectedMobsInView} mobs)`,
    movement: `bots stroll near their places with a few turns and pauses, sending movement state (start, stop, turn, heartbeat every ${CLIENT_HEARTBEAT_MS} ms while walking)`,
    'per step': `logins, bots walk to their places (up to ${args.arriveTimeout} s), ${args.settle} s settle, ${args.hold} s measured`,
    latency: `move -> observer measured by one bot in ${DEFAULT_SWARM_OPTIONS.measureEvery} (each resolves every moveBy it receives to a position and matches it to the mover's send); the others only count records`,
    validity: `a step is invalid when the bot process used over ${BOT_CPU_LIMIT}% of its core or sent under ${MOVES_SENT_MIN * 100}% of the moves due`,
  };
  const nodeArgs = process.env['WYVERN_SERVER_NODE_ARGS']?.trim();
  if (nodeArgs) meta['server node flags'] = nodeArgs;
  writeFileSync(`${base}.json`, `${JSON.stringify({ meta, runs }, null, 2)}\n`);
  writeFileSync(`${base}.md`, `${markdown(meta, runs)}\n`);
  writeFileSync(`${base}.svg`, svgChart(runs, 1000 / args.tickRate));
  log(`\nwrote ${base}.json, .md, .svg`);
  for (const r of runs)
    log(
      `capacity ${r.transport}, layout ${r.layout ?? 'one'}${args.dense ? ' (dense)' : ''}: ${r.capacity} clients`,
    );
  process.exit(0);
}

void main().catch((e: unknown) => {
  process.stderr.write(`load: ${(e as Error).stack ?? String(e)}\n`);
  killChildren();
  process.exit(1);
});
