/**
 * The bot swarm: N bots log in (registering accounts bot1..botN the first time), enter the
 * world and play like people (stroll with a few turns and pauses, cast at mobs, chat; movement
 * sent as state: start, stop, turn, heartbeat), measuring move -> observer latency, round
 * trips, entity updates and bytes received, and errors. A progress line a second, a summary
 * at the end.
 *
 *   npx tsx tools/bots.ts --count 200 --transport mix --duration 30
 *       [--url 127.0.0.1] [--tcp-port 7777] [--http-port 8080] [--gateways 1]
 *       [--spread R | --area x,y,w,h | --dense | --in-view 40] [--step-hz 20] [--measure-every 4]
 *       [--login-concurrency 32] [--connect-rate 0] [--prefix bot] [--json out.json] [--quiet]
 *
 * With --ipc (run by bench/load.ts as a child with an IPC channel) it takes orders instead:
 *   { id, type: 'grow', count, area? } -> { id, type: 'grown', report }
 *   { id, type: 'mark' }               -> { id, type: 'marked' }
 *   { id, type: 'snapshot' }           -> { id, type: 'snapshot', report }
 *   { id, type: 'stop' }               -> { id, type: 'stopped' }, then the process exits
 */
import { writeFileSync } from 'node:fs';
import { runSwarm, Swarm, type AreaSpec } from './bots/swarm.js';
import type { SwarmOptions } from './bots/state.js';

interface Args {
  count: number;
  duration: number;
  json: string | undefined;
  ipc: boolean;
  area: AreaSpec;
  swarm: Partial<SwarmOptions>;
}

const HELP = `Usage: npx tsx tools/bots.ts --count N [options]
  --count N               bots (default 10)
  --transport tcp|ws|mix  (default tcp; mix alternates by bot number)
  --duration S            seconds of measured play after every bot entered (default 30)
  --url HOST              server address (default 127.0.0.1)
  --tcp-port P            (default 7777)      --http-port P  (default 8080)
  --gateways G            a cluster's G gateways: bot n uses gateway n mod G, at
                          tcp-port + k and http-port + k (default 1); a dropped bot
                          resumes on the next gateway that answers
  --spread R              live within R of where new characters enter
  --area x,y,w,h          live in this rectangle (world coordinates; it may reach across a
                          border near the line, and the bots are handed back and forth)
  --dense                 everyone within one interest radius
  --in-view P             spread so each bot sees about P players (default 40)
  --step-hz H             bot simulation steps a second (default 20); movement states go
                          out on start, stop, turn and every 250 ms while walking
  --login-concurrency C   logins in flight at once (default 32)
  --connect-rate R        most new connections a second (default: unbounded)
  --prefix NAME           account names NAME1..NAMEn (default bot)
  --json FILE             write the summary as JSON
  --quiet                 no progress lines`;

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    count: 10,
    duration: 30,
    json: undefined,
    ipc: false,
    area: { kind: 'density', playersInView: 40 },
    swarm: {},
  };
  const num = (flag: string, v: string | undefined, min = 0): number => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < min)
      throw new Error(`${flag}: expected a number >= ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string | undefined => argv[++i];
    switch (flag) {
      case '--count':
        args.count = Math.floor(num(flag, value(), 1));
        break;
      case '--duration':
        args.duration = num(flag, value());
        break;
      case '--transport': {
        const t = value();
        if (t !== 'tcp' && t !== 'ws' && t !== 'mix') throw new Error('--transport: expected tcp, ws or mix');
        args.swarm.transport = t;
        break;
      }
      case '--url': {
        const v = value();
        if (!v) throw new Error('--url: expected a host');
        args.swarm.host = v.replace(/^[a-z]+:\/\//i, '').replace(/[:/].*$/, '');
        break;
      }
      case '--tcp-port':
        args.swarm.tcpPort = num(flag, value(), 1);
        break;
      case '--http-port':
        args.swarm.httpPort = num(flag, value(), 1);
        break;
      case '--gateways':
        args.swarm.gateways = Math.floor(num(flag, value(), 1));
        break;
      case '--spread':
        args.area = { kind: 'spread', radius: num(flag, value(), 1) };
        break;
      case '--area': {
        const parts = (value() ?? '').split(',').map(Number);
        if (parts.length !== 4 || parts.some((p) => !Number.isFinite(p)))
          throw new Error('--area: expected x,y,w,h');
        const [x, y, w, h] = parts as [number, number, number, number];
        args.area = { kind: 'rect', area: { x, y, w, h } };
        break;
      }
      case '--dense':
        args.area = { kind: 'dense' };
        break;
      case '--in-view':
        args.area = { kind: 'density', playersInView: num(flag, value(), 1) };
        break;
      case '--step-hz':
        args.swarm.stepHz = num(flag, value(), 1);
        break;
      case '--measure-every':
        args.swarm.measureEvery = Math.floor(num(flag, value(), 1));
        break;
      case '--login-concurrency':
        args.swarm.loginConcurrency = Math.floor(num(flag, value(), 1));
        break;
      case '--connect-rate':
        args.swarm.connectRate = num(flag, value());
        break;
      case '--prefix': {
        const v = value();
        if (!v || !/^[A-Za-z0-9_]{1,20}$/.test(v))
          throw new Error('--prefix: expected 1-20 letters, digits or _');
        args.swarm.prefix = v;
        break;
      }
      case '--json':
        args.json = value();
        break;
      case '--quiet':
        args.swarm.progress = false;
        break;
      case '--ipc':
        args.ipc = true;
        break;
      default:
        throw new Error(`unknown option ${flag} (see --help)`);
    }
  }
  return args;
}

type Order =
  | { id: number; type: 'grow'; count: number; area?: AreaSpec }
  | { id: number; type: 'mark' }
  | { id: number; type: 'snapshot' }
  | { id: number; type: 'stop' };

function serveIpc(args: Args): void {
  const swarm = new Swarm(args.swarm, args.area);
  swarm.start();
  const reply = (msg: object) => process.send?.(msg);
  const stop = async (id?: number) => {
    await swarm.stop();
    reply({ id, type: 'stopped' });
    process.exit(0);
  };
  process.on('message', (order: Order) => {
    switch (order.type) {
      case 'grow':
        void swarm
          .grow(order.count, order.area)
          .then((report) => reply({ id: order.id, type: 'grown', report }));
        break;
      case 'mark':
        swarm.markPhase();
        reply({ id: order.id, type: 'marked' });
        break;
      case 'snapshot':
        reply({ id: order.id, type: 'snapshot', report: swarm.snapshot() });
        break;
      case 'stop':
        void stop(order.id);
        break;
    }
  });
  // The parent went away: nothing left to report to.
  process.on('disconnect', () => void stop());
  // Told to stop now: exit through node (so a --cpu-prof profile is written).
  process.once('SIGINT', () => process.exit(130));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`bots: ${(e as Error).message}\n`);
    process.exit(2);
  }
  if (args.ipc) {
    serveIpc(args);
    return;
  }
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    process.stderr.write('bots: interrupted\n');
    process.exit(130);
  });
  const summary = await runSwarm({
    ...args.swarm,
    count: args.count,
    duration: args.duration,
    area: args.area,
  });
  if (interrupted) return;
  const p = summary.play;
  process.stdout.write(
    `\n${summary.count} bots over ${summary.transport}: ${summary.grow.inWorld} entered the world ` +
      `(${summary.grow.failed} failed) in ${summary.grow.seconds} s, ${summary.grow.loginsPerSecond} logins/s\n` +
      `move -> observer latency ms: p50 ${p.latency.p50} p90 ${p.latency.p90} p99 ${p.latency.p99} max ${p.latency.max} (${p.latency.count} samples)\n` +
      `rtt ms: p50 ${p.rtt.p50} p99 ${p.rtt.p99}; per client ${Math.round(p.perClient.bytesPerSecond)} B/s, ${Math.round(p.perClient.framesPerSecond)} frames/s\n` +
      `in view: ${p.inView.entities} (${p.inView.players} players, ${p.inView.mobs} mobs); moves/s ${p.moves.sentPerSecond} (${p.moves.sentRatio} of due)\n` +
      `entity records/s ${p.updates.recordsPerSecond} (${p.updates.recordsPerClientPerSecond} per client, movement ${p.updates.movementPerSecond}); ` +
      `${p.updates.bytesPerMovementUpdate} B per movement update, ${p.updates.bytesPerRecord} B per record (headers included)\n` +
      `errors ${JSON.stringify(p.errors)}, disconnects ${p.disconnects} (resumed ${p.resumes}, lost ${p.resumeFailures}), corrections ${p.corrections}, deaths ${p.deaths}; ` +
      `bot cpu ${p.botCpuPercent}% of a core, step loop lag p99 ${p.loopLag.p99} ms\n`,
  );
  if (args.json) writeFileSync(args.json, `${JSON.stringify(summary, null, 2)}\n`);
  process.exit(0);
}

void main().catch((e: unknown) => {
  process.stderr.write(`bots: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
