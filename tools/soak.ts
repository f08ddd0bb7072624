/**
 * npm run soak -- [--duration 1h] [--bots 40] [--sample 5s] [--warmup 5m] [--seed 1] [--no-write]
 * npm run soak -- --from bench/results/soak-<time>.json      (re-render a recorded run)
 *
 * Bots with churn (connect, play, drop and resume, log out, register) against a server child
 * on 127.0.0.1 for --duration, sampling its RSS, heap, descriptors, handles and connections
 * every --sample. Writes bench/results/soak-<time>.{json,md,svg} and exits 1 when a target is
 * missed: RSS drift under 10% after the warm-up, 0 errors. See tools/soak/run.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { intOption, parseCommandLine } from './cli.js';
import { ROOT, stamp } from './fuzz/server.js';
import { drift, runSoak, type SoakResult, type SoakSample } from './soak/run.js';

const DRIFT_TARGET_PCT = 10;

/**
 * Where RSS sits besides the heap in use: the V8 heap reserved and the memory JS objects own
 * outside it, averaged over the first and last minute after the warm-up (runs recorded
 * before these were sampled say so).
 */
function split(samples: readonly SoakSample[], warmupS: number): string {
  const after = samples.filter((s) => s.t >= warmupS && s.heapTotal !== undefined);
  if (after.length === 0) return 'not sampled';
  const mean = (xs: readonly SoakSample[], key: 'heapTotal' | 'external' | 'srpHeap') =>
    xs.reduce((a, s) => a + (s[key] ?? 0), 0) / Math.max(1, xs.length);
  const t0 = after[0]!.t;
  const t1 = after.at(-1)!.t;
  const head = after.filter((s) => s.t <= t0 + 60);
  const tail = after.filter((s) => s.t >= t1 - 60);
  const mb = (v: number) => (v / 2 ** 20).toFixed(1);
  return (
    `${mb(mean(head, 'heapTotal'))} MB -> ${mb(mean(tail, 'heapTotal'))} MB / ` +
    `${mb(mean(head, 'external'))} MB -> ${mb(mean(tail, 'external'))} MB` +
    (after[0]!.srpHeap === undefined
      ? ''
      : ` / ${mb(mean(head, 'srpHeap'))} MB -> ${mb(mean(tail, 'srpHeap'))} MB`)
  );
}

/** RSS means over each 5 minutes (MB): whether it climbs, or levels off after a warm-up. */
function trend(samples: readonly SoakSample[]): string {
  const out: string[] = [];
  const end = samples.at(-1)?.t ?? 0;
  for (let from = 0; from < end; from += 300) {
    const w = samples.filter((s) => s.t >= from && s.t < from + 300);
    if (w.length === 0) continue;
    out.push(`${from / 60}′ ${(w.reduce((a, s) => a + s.rss, 0) / w.length / 2 ** 20).toFixed(0)}`);
  }
  return out.join(', ');
}

/** 90, 90s, 20m, 1h, 1500ms -> milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`cannot read the duration "${text}" (say 20s, 5m or 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  return Number(m[1]) * unit;
}

const USAGE = `Usage: npm run soak -- [options]
       npm run soak -- --from bench/results/soak-<time>.json

Bots with churn (connect over TCP and WebSocket, play, drop and resume, log out, register)
against a server child on 127.0.0.1, sampling its RSS, heap, descriptors, handles and
connections. Writes bench/results/soak-<time>.{json,md,svg}; exits 1 when a target is missed
(0 errors, RSS drift under ${DRIFT_TARGET_PCT}% after the warm-up).

  --duration D     how long the bots play: 90s, 20m, 1h (default 1h)
  --bots N         bots at once, 1-500 (default 40)
  --sample D       how often the server is sampled (default 5s)
  --warmup D       samples before this are left out of the drift (default: a twelfth of the run)
  --seed N         the bots' choices (default 1)
  --no-write       print the figures only, write nothing
  --from FILE      re-render a recorded run's figures and plot, run nothing
  -h, --help       this text`;

const cli = parseCommandLine('soak', USAGE, {
  duration: { type: 'string', default: '1h' },
  bots: { type: 'string', default: '40' },
  sample: { type: 'string', default: '5s' },
  warmup: { type: 'string' },
  seed: { type: 'string', default: '1' },
  'no-write': { type: 'boolean', default: false },
  from: { type: 'string' },
});
const { values } = cli;

/** A duration option, or a usage error. */
function durationOption(name: string, text: string): number {
  try {
    const ms = parseDuration(text);
    if (ms > 0) return ms;
  } catch {
    // reported below with the usage
  }
  return cli.fail(`--${name} ${JSON.stringify(text)}: expected a duration such as 90s, 20m or 1h`);
}

/** A recorded run's JSON, or a usage error. */
function readRecorded(file: string): SoakResult {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SoakResult;
  } catch (e) {
    return cli.fail(`--from ${file}: ${(e as Error).message}`);
  }
}

if (values.from) {
  // Re-renders a recorded run (its samples) with this version's figures and plot.
  const recorded = readRecorded(values.from);
  const warmupS = recorded.options.warmupMs / 1000;
  const r: SoakResult = {
    ...recorded,
    rss: drift(recorded.samples, warmupS, 'rss'),
    heap: drift(recorded.samples, warmupS, 'heap'),
    fds: drift(recorded.samples, warmupS, 'fds'),
  };
  const base = values.from.replace(/\.json$/, '');
  const ok = r.errors === 0 && !r.crashed && Math.abs(r.rss.driftPct) < DRIFT_TARGET_PCT;
  writeFileSync(`${base}.json`, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(`${base}.md`, markdown(r, ok));
  writeFileSync(`${base}.svg`, plot(r.samples, warmupS));
  process.stdout.write(markdown(r, ok));
  process.exit(ok ? 0 : 1);
}

const durationMs = durationOption('duration', values.duration);
const bots = intOption(cli, 'bots', values.bots, 1, 500);
const sampleMs = durationOption('sample', values.sample);
const warmupMs = values.warmup === undefined ? undefined : durationOption('warmup', values.warmup);
const seed = intOption(cli, 'seed', values.seed, 0);
const result = await runSoak({
  durationMs,
  bots,
  sampleMs,
  // The first twelfth (5 min of an hour): the heap and the JIT settle, accounts accumulate.
  warmupMs: warmupMs ?? durationMs / 12,
  seed,
  playMs: [5000, 20_000],
  verbose: true,
});

const pass = result.errors === 0 && !result.crashed && Math.abs(result.rss.driftPct) < DRIFT_TARGET_PCT;
const md = markdown(result, pass);
process.stdout.write(md);
if (!values['no-write']) {
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `soak-${stamp(new Date(result.startedAt))}`);
  writeFileSync(`${base}.json`, JSON.stringify(result, null, 2) + '\n');
  writeFileSync(`${base}.md`, md);
  writeFileSync(`${base}.svg`, plot(result.samples, result.options.warmupMs / 1000));
  process.stdout.write(`\nwritten: ${base}.{json,md,svg}\n`);
}
process.exit(pass ? 0 : 1);

function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

function markdown(r: SoakResult, ok: boolean): string {
  const c = r.counts;
  const last = r.samples.at(-1);
  const first = r.samples[0];
  const kinds = Object.entries(r.errorKinds)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `| ${n} | ${k.replace(/\|/g, '/')} |`);
  return [
    `# Soak, ${r.startedAt}`,
    '',
    `${r.options.bots} bots for ${(r.elapsedS / 60).toFixed(1)} min (seed ${r.options.seed}), ` +
      `sampled every ${r.options.sampleMs / 1000} s, warm-up ${(r.options.warmupMs / 60_000).toFixed(1)} min. ` +
      `Result: **${ok ? 'targets met' : 'targets missed'}**.`,
    '',
    '| figure | value | target |',
    '| --- | --- | --- |',
    `| errors | ${r.errors} (client ${r.errors - r.serverErrors - r.uncaught}, server log ${r.serverErrors}, uncaught ${r.uncaught}) | 0 |`,
    `| server crashed | ${r.crashed ? 'yes' : 'no'} (exit ${r.exit?.code ?? r.exit?.signal}) | no |`,
    `| RSS after warm-up -> end | ${mb(r.rss.warm)} MB -> ${mb(r.rss.end)} MB (${r.rss.driftPct}%) | drift < ${DRIFT_TARGET_PCT}% |`,
    `| RSS min / max after warm-up | ${mb(r.rss.min)} / ${mb(r.rss.max)} MB | |`,
    `| heap in use after warm-up -> end (means) | ${mb(r.heap.warm)} MB -> ${mb(r.heap.end)} MB (${r.heap.driftPct}%), min ${mb(r.heap.min)}, max ${mb(r.heap.max)} | |`,
    `| RSS, mean of each 5 minutes | ${trend(r.samples)} | |`,
    `| V8 heap reserved / external (ArrayBuffers) / SRP workers' heaps after warm-up -> end | ${split(r.samples, r.options.warmupMs / 1000)} | |`,
    `| fds after warm-up -> end (means) | ${r.fds.warm} -> ${r.fds.end}, min ${r.fds.min}, max ${r.fds.max} | |`,
    `| heap / fds first sample | ${mb(first?.heap ?? 0)} MB / ${first?.fds ?? 0} | |`,
    `| handles first / last sample | ${first?.handles ?? 0} / ${last?.handles ?? 0} | |`,
    `| connections at the end (bots gone) | ${last?.connections ?? 0} | 0 |`,
    `| ping round trip p50 / p99 / max | ${r.pingMs.p50} / ${r.pingMs.p99} / ${r.pingMs.max} ms (${r.pingMs.count}) | |`,
    '',
    '| churn | count |',
    '| --- | --- |',
    ...Object.entries(c).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    ...(kinds.length ? ['| errors | kind |', '| --- | --- |', ...kinds, ''] : []),
    ...(r.serverErrorSamples.length
      ? ['Server error lines (first few):', '', '```', ...r.serverErrorSamples, '```', '']
      : []),
  ].join('\n');
}

/** Four stacked panels over time: RSS and heap (MB), descriptors and handles, connections. */
function plot(samples: readonly SoakSample[], warmupS: number): string {
  const W = 900;
  const H = 170;
  const left = 60;
  const right = 20;
  const tMax = Math.max(1, ...samples.map((s) => s.t));
  const panels: {
    title: string;
    series: { label: string; color: string; value: (s: SoakSample) => number }[];
  }[] = [
    {
      title: 'memory (MB)',
      series: [
        { label: 'RSS', color: '#c0392b', value: (s) => s.rss / 2 ** 20 },
        { label: 'heap used', color: '#2980b9', value: (s) => s.heap / 2 ** 20 },
      ],
    },
    {
      title: 'descriptors and handles',
      series: [
        { label: 'fds', color: '#8e44ad', value: (s) => s.fds },
        { label: 'handles', color: '#16a085', value: (s) => s.handles },
      ],
    },
    {
      title: 'connections',
      series: [
        { label: 'open connections', color: '#d35400', value: (s) => s.connections },
        { label: 'bots in the world', color: '#27ae60', value: (s) => s.inWorld },
      ],
    },
  ];
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H * panels.length + 30}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
  ];
  panels.forEach((panel, i) => {
    const top = i * H + 20;
    const bottom = top + H - 40;
    const max = Math.max(1, ...panel.series.flatMap((s) => samples.map(s.value))) * 1.1;
    const x = (t: number) => left + ((W - left - right) * t) / tMax;
    const y = (v: number) => bottom - ((bottom - top) * v) / max;
    out.push(`<text x="${left}" y="${top - 6}" font-weight="bold">${panel.title}</text>`);
    out.push(`<line x1="${left}" y1="${bottom}" x2="${W - right}" y2="${bottom}" stroke="#999"/>`);
    out.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#999"/>`);
    out.push(`<text x="${left - 6}" y="${top + 4}" text-anchor="end">${max.toFixed(0)}</text>`);
    out.push(`<text x="${left - 6}" y="${bottom}" text-anchor="end">0</text>`);
    out.push(
      `<line x1="${x(warmupS)}" y1="${top}" x2="${x(warmupS)}" y2="${bottom}" stroke="#bbb" stroke-dasharray="4 3"/>`,
    );
    for (let k = 0; k <= 6; k++) {
      const t = (tMax * k) / 6;
      out.push(`<text x="${x(t)}" y="${bottom + 14}" text-anchor="middle">${(t / 60).toFixed(1)} min</text>`);
    }
    panel.series.forEach((s, j) => {
      const points = samples.map((p) => `${x(p.t).toFixed(1)},${y(s.value(p)).toFixed(1)}`).join(' ');
      out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="1.5" points="${points}"/>`);
      out.push(`<text x="${W - right - 150}" y="${top + 12 + j * 14}" fill="${s.color}">${s.label}</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
