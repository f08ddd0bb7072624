/**
 * npm run fuzz -- [--frames 100000] [--concurrency 16] [--seed 1] [--transports tcp,ws]
 *     [--deadline-ms 8000] [--settle-ms 10000] [--warmup-frames 50000] [--max-minutes 60]
 *     [--tcp-port P --http-port P [--pid PID]] [--write]
 *
 * Hostile input over TCP and WebSocket against a server it starts (or one already running on
 * 127.0.0.1 at the given ports), an observer pinging in the world throughout. Prints the
 * figures; --write also records bench/results/fuzz-<time>.{json,md}. Exits 1 when a target is
 * missed: a crash, an uncaught exception, an error logged, the observer lost or its p99 at
 * or over 50 ms, RSS not back within 10%, a connection neither answered nor closed.
 * See tools/fuzz/cases.ts for what is sent and tools/fuzz/run.ts for how a case is judged.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { intOption, parseCommandLine } from './cli.js';
import type { FuzzTransport } from './fuzz/cases.js';
import { runFuzz, type FuzzResult } from './fuzz/run.js';
import { ROOT, stamp } from './fuzz/server.js';

const P99_TARGET_MS = 50;
const RSS_TARGET_PCT = 10;

const USAGE = `Usage: npm run fuzz -- [options]

Hostile frames over TCP and WebSocket against a server child it starts (or a server already
running on 127.0.0.1), an observer pinging in the world throughout. Prints the figures and
exits 1 when a target is missed (a crash, an uncaught exception, an error logged, the
observer lost or slow, RSS not back within ${RSS_TARGET_PCT}%, a connection neither answered nor closed).

  --frames N          hostile frames to send (default 100000)
  --concurrency N     cases at once, 1-64 (default 16)
  --seed N            case i of seed s is always the same bytes: replay a finding (default 1)
  --transports LIST   tcp, ws or tcp,ws (default tcp,ws)
  --deadline-ms MS    longest a case waits for an answer or a close (default 8000)
  --settle-ms MS      wait before RSS is read again after the warm-up and the run (default 10000)
  --warmup-frames N   frames sent first, before RSS is read cold (default 50000)
  --max-minutes M     hard limit on the run (default 60)
  --tcp-port P        fuzz a running server: its TCP port (with --http-port)
  --http-port P       ... and its HTTP port (WebSocket at /ws)
  --pid PID           ... and its process id, for RSS
  --write             also record bench/results/fuzz-<time>.{json,md}
  -h, --help          this text`;

const cli = parseCommandLine('fuzz', USAGE, {
  frames: { type: 'string', default: '100000' },
  concurrency: { type: 'string', default: '16' },
  seed: { type: 'string', default: '1' },
  transports: { type: 'string', default: 'tcp,ws' },
  'deadline-ms': { type: 'string', default: '8000' },
  'settle-ms': { type: 'string', default: '10000' },
  'warmup-frames': { type: 'string', default: '50000' },
  'max-minutes': { type: 'string', default: '60' },
  'tcp-port': { type: 'string' },
  'http-port': { type: 'string' },
  pid: { type: 'string' },
  write: { type: 'boolean', default: false },
});
const { values } = cli;

const transports = values.transports.split(',').map((t) => t.trim()) as FuzzTransport[];
if (!transports.every((t) => t === 'tcp' || t === 'ws')) cli.fail('--transports: tcp, ws or tcp,ws');
const frames = intOption(cli, 'frames', values.frames, 1);
const concurrency = intOption(cli, 'concurrency', values.concurrency, 1, 64);
const seed = intOption(cli, 'seed', values.seed, 0);
const deadlineMs = intOption(cli, 'deadline-ms', values['deadline-ms'], 1);
const settleMs = intOption(cli, 'settle-ms', values['settle-ms'], 0);
const warmupFrames = intOption(cli, 'warmup-frames', values['warmup-frames'], 0);
const maxMinutes = intOption(cli, 'max-minutes', values['max-minutes'], 1);
const external = values['tcp-port'] !== undefined || values['http-port'] !== undefined;
if (external && !(values['tcp-port'] && values['http-port'])) {
  cli.fail('a running server needs both --tcp-port and --http-port');
}
const target = external
  ? {
      tcpPort: intOption(cli, 'tcp-port', values['tcp-port'] ?? '', 1, 65535),
      httpPort: intOption(cli, 'http-port', values['http-port'] ?? '', 1, 65535),
      pid: values.pid === undefined ? undefined : intOption(cli, 'pid', values.pid, 1),
    }
  : undefined;

const result = await runFuzz({
  frames,
  concurrency,
  seed,
  transports,
  deadlineMs,
  settleMs,
  warmupFrames,
  maxRunMs: maxMinutes * 60_000,
  target,
  verbose: true,
});

const misses = missed(result);
const md = markdown(result, misses);
process.stdout.write(md);
if (values.write) {
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `fuzz-${stamp(new Date(result.startedAt))}`);
  writeFileSync(`${base}.json`, JSON.stringify({ ...result, missed: misses }, null, 2) + '\n');
  writeFileSync(`${base}.md`, md);
  process.stdout.write(`\nwritten: ${base}.{json,md}\n`);
}
process.exit(misses.length ? 1 : 0);

export function missed(r: FuzzResult): string[] {
  const out: string[] = [];
  if (r.crashes) out.push(`${r.crashes} crash(es)`);
  if (r.uncaught) out.push(`${r.uncaught} uncaught exception line(s)`);
  if (r.serverErrors) out.push(`${r.serverErrors} error line(s) logged`);
  if (!r.observer.alive) out.push('the observer was disconnected');
  if (r.observer.worstWindowP99 >= P99_TARGET_MS)
    out.push(`observer p99 ${r.observer.worstWindowP99} ms in a window`);
  if (r.rss && Math.abs(r.rss.changePct) > RSS_TARGET_PCT) out.push(`RSS changed ${r.rss.changePct}%`);
  if (r.outcomes.silent) out.push(`${r.outcomes.silent} connection(s) neither answered nor closed`);
  if (r.errorCodes.ERR_INTERNAL) out.push(`${r.errorCodes.ERR_INTERNAL} ERR_INTERNAL answer(s)`);
  return out;
}

function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

function table(map: Record<string, number>): string[] {
  return Object.entries(map)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `| ${k} | ${v} |`);
}

function markdown(r: FuzzResult, misses: string[]): string {
  const o = r.options;
  return [
    `# Fuzz, ${r.startedAt}`,
    '',
    `${r.framesSent.toLocaleString('en')} hostile frames in ${r.cases.toLocaleString('en')} cases over ` +
      `${o.transports.join(' and ')}, ${o.concurrency} at a time, seed ${o.seed}, ${r.elapsedS} s ` +
      `(${o.external ? 'a running server' : 'a server child with short deadlines and high rate limits'}). ` +
      `Result: **${misses.length ? `targets missed: ${misses.join('; ')}` : 'targets met'}**.`,
    '',
    '| figure | value | target |',
    '| --- | --- | --- |',
    `| frames sent | ${r.framesSent} (${mb(r.bytesSent)} MB), the first ${r.warmupFramesSent} to warm up | |`,
    `| connections | ${r.connections} | |`,
    `| crashes | ${r.crashes} | 0 |`,
    `| uncaught exceptions | ${r.uncaught} | 0 |`,
    `| server error lines logged | ${r.serverErrors} | 0 |`,
    `| ERR_INTERNAL answers | ${r.errorCodes.ERR_INTERNAL ?? 0} | 0 |`,
    `| closed / answered / neither within ${o.deadlineMs} ms | ${r.outcomes.closed} / ${r.outcomes.answered} / ${r.outcomes.silent} | neither: 0 |`,
    `| observer alive | ${r.observer.alive ? 'yes' : 'no'} (${r.observer.pings} pings, ${r.observer.failed} failed) | yes |`,
    `| observer round trip p50 / p99 / max | ${r.observer.p50} / ${r.observer.p99} / ${r.observer.max} ms | |`,
    `| observer p99, worst 10 s window | ${r.observer.worstWindowP99} ms | < ${P99_TARGET_MS} ms |`,
    ...(r.rss
      ? [
          `| RSS cold / warmed up and settled | ${mb(r.rss.cold)} / ${mb(r.rss.before)} MB | |`,
          `| RSS at the end / after ${o.settleMs / 1000} s settle | ${mb(r.rss.after)} / ${mb(r.rss.settled)} MB (${r.rss.changePct}% from warm) | within ${RSS_TARGET_PCT}% |`,
          `| heap used warm / after settle | ${mb(r.rss.heapBefore)} / ${mb(r.rss.heapSettled)} MB | |`,
        ]
      : ['| RSS | not read (no pid) | |']),
    `| cases whose stage was not reached | ${r.setupFailures} | |`,
    '',
    '| cases by transport and kind | count |',
    '| --- | --- |',
    ...table(r.byKind),
    '',
    '| cases by stage | count |',
    '| --- | --- |',
    ...table(r.byStage),
    '',
    '| Error codes answered | count |',
    '| --- | --- |',
    ...table(r.errorCodes),
    '',
    "The five 10 s windows with the highest observer p99, beside the server's longest event-loop delay and the machine's load:",
    '',
    '| window from | observer p99 / max | server event-loop delay max | load (1 min) |',
    '| --- | --- | --- | --- |',
    ...[...r.windows]
      .sort((a, b) => b.p99 - a.p99)
      .slice(0, 5)
      .map((w) => `| ${w.startS} s | ${w.p99} / ${w.max} ms | ${w.serverLagMaxMs} ms | ${w.load} |`),
    '',
    ...(Object.keys(r.setupFailureKinds).length
      ? ['| stage not reached | count |', '| --- | --- |', ...table(r.setupFailureKinds), '']
      : []),
    ...(r.silentSamples.length
      ? [
          'Connections neither answered nor closed (first few; replay with the same seed):',
          '',
          ...r.silentSamples.map(
            (s) => `- case ${s.index}: ${s.transport} ${s.stage} ${s.kind}, first bytes ${s.head}`,
          ),
          '',
        ]
      : []),
    ...(r.serverErrorSamples.length
      ? ['Server error lines:', '', '```', ...r.serverErrorSamples, '```', '']
      : []),
  ].join('\n');
}
