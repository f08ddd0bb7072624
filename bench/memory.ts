/**
 * Memory benchmark: what one more logged-in player costs the server, in RSS and in heap.
 *
 *   npx tsx bench/memory.ts [--transport tcp|ws|mix] [--steps 250,500,1000] [--warm 32]
 *       [--settle 10] [--arrive-timeout 60] [--in-view 50] [--readings 3]
 *       [--snapshots 250,1000] [--keep-snapshots DIR] [--label NAME]
 *
 * The real server runs as a child (node --expose-gc, WYVERN_MEMORY_PROBE=1 and an IPC
 * channel: server/metrics/memory-probe.ts) on the load benchmark's zone (bench/load/zone.ts)
 * with a fresh temp SQLite database; the bot swarm (tools/bots.ts --ipc) runs as another.
 *
 *   warm-up   --warm bots log in, play a few seconds and leave: the SRP workers, lazily
 *             loaded modules, JIT code and the store's caches exist from here on, so they
 *             are not charged to the players measured after (the same bots log in again
 *             later, to accounts and characters that exist by then)
 *   N = 0     readings with nobody connected
 *   N = step  the swarm grows to N bots (the same bots stay), they walk to their places
 *             spread for about --in-view entities in view, things settle, then readings
 *
 * A reading is a full GC (twice) in the server, then process.memoryUsage(); each point is
 * the median of --readings readings a second apart. Marginal cost per player between two
 * points is (memory at the second - memory at the first) / (players added); the headline is
 * from the first step to the last, past the fixed costs that load itself brings (V8's young
 * generation grows from 1 to 32 MB once allocation picks up, and stays). --snapshots writes
 * a V8 heap snapshot at those N (after the readings; compare two with
 * bench/memory/heapdiff.ts): writing one grows RSS by itself, so the RSS of later steps in
 * the same run is not comparable; take figures from a run without snapshots.
 *
 * Writes bench/results/memory-<date>[-label].{json,md}. Every connection is to 127.0.0.1;
 * every child is killed on exit, error or Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProbeOrder, ProbeReply } from '../server/metrics/memory-probe.js';
import type { AreaSpec, GrowReport, PhaseReport } from '../tools/bots/swarm.js';
import {
  freePort,
  IpcChild,
  killChildren,
  killChildrenOnExit,
  sleep,
  untilHealthy,
} from './load/children.js';
import { writeBenchData } from './load/zone.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

type Transport = 'tcp' | 'ws' | 'mix';

interface Args {
  transport: Transport;
  steps: number[];
  warm: number;
  settle: number;
  arriveTimeout: number;
  inView: number;
  readings: number;
  snapshots: number[];
  keepSnapshots: string | undefined;
  label: string | undefined;
  out: string;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    transport: 'tcp',
    steps: [250, 500, 1000],
    warm: 32,
    settle: 10,
    arriveTimeout: 60,
    inView: 50,
    readings: 3,
    snapshots: [],
    keepSnapshots: undefined,
    label: undefined,
    out: join(ROOT, 'bench/results'),
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${flag}: expected a value`);
      return x;
    };
    const num = (min = 0) => {
      const n = Number(v());
      if (!Number.isFinite(n) || n < min) throw new Error(`${flag}: expected a number >= ${min}`);
      return n;
    };
    const list = () =>
      v()
        .split(',')
        .filter((s) => s !== '')
        .map((s) => {
          const n = Math.floor(Number(s));
          if (!Number.isFinite(n) || n < 1) throw new Error(`${flag}: expected numbers >= 1`);
          return n;
        })
        .sort((x, y) => x - y);
    switch (flag) {
      case '--transport': {
        const t = v();
        if (t !== 'tcp' && t !== 'ws' && t !== 'mix') throw new Error('--transport: expected tcp, ws or mix');
        a.transport = t;
        break;
      }
      case '--steps':
        a.steps = list();
        if (a.steps.some((n) => n > 5000)) throw new Error('--steps: at most 5000 bots');
        break;
      case '--warm':
        a.warm = Math.floor(num(1));
        break;
      case '--settle':
        a.settle = num();
        break;
      case '--arrive-timeout':
        a.arriveTimeout = num();
        break;
      case '--in-view':
        a.inView = num(1);
        break;
      case '--readings':
        a.readings = Math.floor(num(1));
        break;
      case '--snapshots':
        a.snapshots = list();
        break;
      case '--keep-snapshots':
        a.keepSnapshots = v();
        break;
      case '--label': {
        const x = v();
        if (!/^[A-Za-z0-9_-]{1,40}$/.test(x))
          throw new Error('--label: expected 1-40 letters, digits, - or _');
        a.label = x;
        break;
      }
      case '--out':
        a.out = v();
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return a;
}

killChildrenOnExit('memory');

const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

interface ServerChild {
  ipc: IpcChild;
  httpPort: number;
  tcpPort: number;
  dir: string;
}

async function startServer(args: Args, dataDir: string, dir: string): Promise<ServerChild> {
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const out = createWriteStream(join(dir, 'server.log'));
  const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      HTTP_PORT: String(httpPort),
      TCP_PORT: String(tcpPort),
      DATABASE_URL: `sqlite:${join(dir, 'wyvern.db')}`,
      DATA_DIR: dataDir,
      WS_ENGINE: 'auto',
      LOG_LEVEL: 'warn',
      MAX_CONNECTIONS: '100000',
      MAX_CONNECTIONS_PER_IP: '100000',
      // As in the load benchmark: one SRP worker, whatever the machine.
      SRP_WORKERS: '1',
      WYVERN_MEMORY_PROBE: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  const ipc = new IpcChild(proc);
  await untilHealthy(proc, httpPort, `; see ${dir}/server.log`);
  return { ipc, httpPort, tcpPort, dir };
}

function startSwarm(server: ServerChild, args: Args, name: string): IpcChild {
  const out = createWriteStream(join(server.dir, `${name}.log`));
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'tools/bots.ts'),
      '--ipc',
      '--transport',
      args.transport,
      '--url',
      '127.0.0.1',
      '--tcp-port',
      String(server.tcpPort),
      '--http-port',
      String(server.httpPort),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  return new IpcChild(proc);
}

async function connections(server: ServerChild): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${server.httpPort}/healthz`);
  return ((await r.json()) as { connections: number }).connections;
}

interface Usage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Bytes reserved for V8's young generation (new_space): it grows under load and stays. */
  newSpace: number;
  /** RSS less newSpace: what stays when the young generation's size is set aside. */
  rssLessNewSpace: number;
}
const FIELDS = [
  'rss',
  'rssLessNewSpace',
  'newSpace',
  'heapTotal',
  'heapUsed',
  'external',
  'arrayBuffers',
] as const;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function read(server: ServerChild, readings: number): Promise<Usage> {
  const all: Usage[] = [];
  for (let i = 0; i < readings; i++) {
    if (i > 0) await sleep(1000);
    const r = await server.ipc.request<ProbeReply>({ type: 'memory' } satisfies Omit<ProbeOrder, 'id'>);
    if (r.type !== 'memory') throw new Error(`probe: ${JSON.stringify(r)}`);
    if (!r.gc) throw new Error('probe: the server has no gc() (--expose-gc missing)');
    const newSpace = r.spaces.find((x) => x.name === 'new_space')?.size ?? 0;
    all.push({ ...r.usage, newSpace, rssLessNewSpace: r.usage.rss - newSpace });
  }
  const out = {} as Usage;
  for (const f of FIELDS) out[f] = median(all.map((u) => u[f]));
  return out;
}

interface Point {
  n: number;
  inWorld: number;
  connections: number;
  walking: number;
  inView: { entities: number; players: number; mobs: number } | null;
  usage: Usage;
}

interface Marginal {
  from: number;
  to: number;
  /** KB per player added, by field. */
  kb: Record<(typeof FIELDS)[number], number>;
}

function marginal(a: Point, b: Point): Marginal {
  const added = Math.max(1, b.inWorld - a.inWorld);
  const kb = {} as Marginal['kb'];
  for (const f of FIELDS) kb[f] = round((b.usage[f] - a.usage[f]) / added / 1024);
  return { from: a.inWorld, to: b.inWorld, kb };
}

async function settleBots(swarm: IpcChild, args: Args): Promise<PhaseReport> {
  const arriveBy = performance.now() + args.arriveTimeout * 1000;
  let snap: PhaseReport;
  for (;;) {
    await swarm.request({ type: 'mark' });
    await sleep(1000);
    snap = (await swarm.request<{ report: PhaseReport }>({ type: 'snapshot' })).report;
    if (snap.bots.atHome >= 0.95 * snap.bots.inWorld || performance.now() > arriveBy) break;
  }
  await sleep(args.settle * 1000);
  await swarm.request({ type: 'mark' });
  await sleep(2000);
  return (await swarm.request<{ report: PhaseReport }>({ type: 'snapshot' })).report;
}

function markdown(
  meta: Record<string, string>,
  points: Point[],
  steps: Marginal[],
  overall: Marginal,
  steady: Marginal | undefined,
): string {
  const mb = (b: number) => round(b / 2 ** 20, 1);
  const lines = ['# Wyvern memory benchmark', ''];
  for (const [k, v] of Object.entries(meta)) lines.push(`- ${k}: ${v}`);
  lines.push(
    '',
    'Memory after a forced full GC (median of the readings), MB:',
    '',
    '| N | in world | in view (players + mobs) | RSS | RSS less new space | new space | heap total | heap used | external | array buffers |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const p of points) {
    const view = p.inView ? `${p.inView.entities} (${p.inView.players} + ${p.inView.mobs})` : '-';
    lines.push(
      `| ${p.n} | ${p.inWorld} | ${view} | ${mb(p.usage.rss)} | ${mb(p.usage.rssLessNewSpace)} | ${mb(p.usage.newSpace)} | ${mb(p.usage.heapTotal)} | ${mb(p.usage.heapUsed)} | ${mb(p.usage.external)} | ${mb(p.usage.arrayBuffers)} |`,
    );
  }
  lines.push(
    '',
    'Marginal KB per player added:',
    '',
    '| players | RSS | RSS less new space | new space | heap total | heap used | external | array buffers |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const m of [...steps, overall, ...(steady ? [steady] : [])]) {
    const name =
      m === overall
        ? `${m.from} -> ${m.to} (all)`
        : m === steady
          ? `**${m.from} -> ${m.to} (first step to last)**`
          : `${m.from} -> ${m.to}`;
    lines.push(
      `| ${name} | ${m.kb.rss} | ${m.kb.rssLessNewSpace} | ${m.kb.newSpace} | ${m.kb.heapTotal} | ${m.kb.heapUsed} | ${m.kb.external} | ${m.kb.arrayBuffers} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`memory: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const started = new Date();
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-memory-'));
  const dataDir = join(dir, 'data');
  const zone = writeBenchData(join(ROOT, 'data'), dataDir);
  const rules = JSON.parse(readFileSync(join(dataDir, 'rules.json'), 'utf8')) as { interestRadius?: number };
  const radius = rules.interestRadius ?? 250;
  const mobsInView = Math.round((zone.mobDensity / 1e6) * Math.PI * radius * radius);
  const area: AreaSpec = { kind: 'density', playersInView: Math.max(1, args.inView - mobsInView) };
  const server = await startServer(args, dataDir, dir);
  log(`server on tcp ${server.tcpPort}, http ${server.httpPort} (work dir ${dir})`);
  const points: Point[] = [];
  const snapshots: string[] = [];
  let swarm: IpcChild | undefined;
  try {
    log(`warm-up: ${args.warm} bots log in, play and leave`);
    const warm = startSwarm(server, args, 'warm');
    const warmed = (await warm.request<{ report: GrowReport }>({ type: 'grow', count: args.warm, area }))
      .report;
    if (warmed.inWorld < args.warm) throw new Error(`warm-up: only ${warmed.inWorld} bots got in`);
    await sleep(5000);
    await warm.request({ type: 'stop' }, 20_000).catch(() => {});
    await warm.stop('SIGTERM', 5000);
    for (let i = 0; i < 30 && (await connections(server)) > 0; i++) await sleep(1000);
    await sleep(args.settle * 1000);
    const idle = await read(server, args.readings);
    points.push({
      n: 0,
      inWorld: 0,
      connections: await connections(server),
      walking: 0,
      inView: null,
      usage: idle,
    });
    log(`N=0: rss ${round(idle.rss / 2 ** 20)} MB, heap used ${round(idle.heapUsed / 2 ** 20)} MB`);

    swarm = startSwarm(server, args, 'bot');
    for (const n of args.steps) {
      const grown = (await swarm.request<{ report: GrowReport }>({ type: 'grow', count: n, area })).report;
      log(`N=${n}: ${grown.inWorld} in world, ${grown.failed} failed, ${grown.seconds} s of logins`);
      const play = await settleBots(swarm, args);
      const usage = await read(server, args.readings);
      const point: Point = {
        n,
        inWorld: play.bots.inWorld,
        connections: await connections(server),
        walking: play.bots.walking,
        inView: play.inView,
        usage,
      };
      points.push(point);
      const m = marginal(points.at(-2)!, point);
      log(
        `   rss ${round(usage.rss / 2 ** 20)} MB, heap used ${round(usage.heapUsed / 2 ** 20)} MB, ` +
          `in view ${play.inView.entities} (${play.inView.players} + ${play.inView.mobs}), ${play.bots.walking} walking; ` +
          `marginal KB/player: rss ${m.kb.rss}, heap ${m.kb.heapUsed}, external ${m.kb.external}, array buffers ${m.kb.arrayBuffers}`,
      );
      if (args.snapshots.includes(n)) {
        const path = join(args.keepSnapshots ?? dir, `heap-${n}.heapsnapshot`);
        if (args.keepSnapshots) mkdirSync(args.keepSnapshots, { recursive: true });
        const r = await server.ipc.request<ProbeReply>({ type: 'heapsnapshot', path });
        if (r.type !== 'heapsnapshot') throw new Error(`probe: ${JSON.stringify(r)}`);
        snapshots.push(r.path);
        log(`   heap snapshot ${r.path}`);
      }
    }
  } finally {
    if (swarm) {
      await swarm.request({ type: 'stop' }, 20_000).catch(() => {});
      await swarm.stop('SIGTERM', 5000);
    }
    await server.ipc.stop('SIGINT', 15_000);
    if (!args.keepSnapshots && args.snapshots.length === 0) rmSync(dir, { recursive: true, force: true });
  }
  const steps = points.slice(1).map((p, i) => marginal(points[i]!, p));
  const overall = marginal(points[0]!, points.at(-1)!);
  // From the first step on, the fixed costs that load itself brings (the young generation
  // grown to its working size, socket and allocator pools) are already paid: the figure
  // that says what one more player costs.
  const steady = points.length > 2 ? marginal(points[1]!, points.at(-1)!) : undefined;
  const meta: Record<string, string> = {
    date: started.toISOString(),
    machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    transport: args.transport,
    zone: `${zone.name} ${zone.size} x ${zone.size}, ${zone.mobs} mobs`,
    placement: `spread for about ${args.inView} entities in view (${area.kind === 'density' ? area.playersInView : '?'} players + ~${mobsInView} mobs); bots walk (stroll, pause, cast, chat)`,
    method: `warm-up of ${args.warm} bots who then leave; at each N, after the bots reach their places and ${args.settle} s settle, the median of ${args.readings} readings of process.memoryUsage() each after a forced full GC`,
  };
  if (args.snapshots.length > 0)
    meta.snapshots = `heap snapshots at N = ${args.snapshots.join(', ')}: RSS after the first one includes what writing it took`;
  const stamp = started.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
  mkdirSync(args.out, { recursive: true });
  const base = join(args.out, `memory-${stamp}${args.label ? `-${args.label}` : ''}`);
  writeFileSync(
    `${base}.json`,
    `${JSON.stringify({ meta, points, marginal: steps, overall, steady }, null, 2)}\n`,
  );
  writeFileSync(`${base}.md`, `${markdown(meta, points, steps, overall, steady)}\n`);
  log(`\nwrote ${base}.json, .md`);
  log(
    `marginal KB per player ${overall.from} -> ${overall.to}: rss ${overall.kb.rss}, heap used ${overall.kb.heapUsed}, ` +
      `external ${overall.kb.external}, array buffers ${overall.kb.arrayBuffers}`,
  );
  if (steady)
    log(
      `marginal KB per player ${steady.from} -> ${steady.to}: rss ${steady.kb.rss} (less new space ${steady.kb.rssLessNewSpace}), ` +
        `heap used ${steady.kb.heapUsed}, external ${steady.kb.external}, array buffers ${steady.kb.arrayBuffers}`,
    );
  if (snapshots.length > 0) log(`heap snapshots (delete when done): ${snapshots.join(' ')}`);
  process.exit(0);
}

void main().catch((e: unknown) => {
  process.stderr.write(`memory: ${(e as Error).stack ?? String(e)}\n`);
  killChildren();
  process.exit(1);
});
