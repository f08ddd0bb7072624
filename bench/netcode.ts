/**
 * Netcode truth, without a browser: for every pair of (mover's link, watcher's link) from the
 * lab's presets, how far from where the server had the mover a watcher draws it.
 *
 *   npm run bench:netcode [-- --label NAME] [--mover PRESET] [--trace FILE]
 *
 * `--mover` runs only the group whose mover is on that preset (its name, e.g. "clean");
 * `--trace` writes every group's record and frames to FILE (JSON) for a closer look.
 *
 * One server in this process (bench/netcode/harness.ts); per mover link one group: a mover
 * on that link walks the scripted walk (runs, stops, a turn, a death while walking with the
 * key held through the respawn, the zone line crossed both ways) while one watcher per link
 * stands and draws it, each client running the page's own code (prediction, reconciliation,
 * the render clock, interpolation, visual tracks) through the link lab's queue at 60 Hz. The
 * groups run one after another, so no group sees another's mover. About 40 s a group.
 *
 * Per pair: drawn error p50/p99/max (the distance from where the server had the mover at the
 * watcher's drawn time), and p99/max again away from the mover's stalls (its inputs later
 * than the server's window allowed: held for one overdue, or one taken late) with the largest
 * within them; overshoot at stops (how far past the stop point, along the walk into it), the
 * distance from the stop point at each stop's end, slide-backs over 1 unit, the
 * largest error within 2 s after the death, the respawn and the zone crossings, the watcher's
 * own delay and the delay it adds for this mover. Per mover: its corrections (and those after
 * its respawn), and how far from the server it draws itself at the end of its stops.
 *
 * Writes bench/results/netcode-<date>[-label].json and .md. A measurement: it asserts nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LINK_PRESETS } from '../web-client/src/ui/lab-ui.js';
import { NETCODE_WALK, runGroup, startBenchServer, type GroupResult } from './netcode/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench/results');

const { values } = parseArgs({
  options: { label: { type: 'string' }, mover: { type: 'string' }, trace: { type: 'string' } },
});

const r1 = (v: number) => Math.round(v * 10) / 10;
const r2 = (v: number) => Math.round(v * 100) / 100;

function table(groups: readonly GroupResult[]): string {
  const lines = [
    '| mover link | watcher link | error p50 | p99 | max | stalls | p99 outside stalls | max outside stalls | max in stalls | stops | overshoot max | end off max | slide-backs | after death | after respawn | respawn shown ms | after crossing | base delay ms | added delay ms |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const g of groups) {
    for (const { watcher, figures: f } of g.pairs) {
      const ev = (k: 'death' | 'respawn' | 'crossing') =>
        f.afterEvent[k] === undefined ? '-' : String(r1(f.afterEvent[k]));
      lines.push(
        `| ${g.mover} | ${watcher} | ${r2(f.error.p50)} | ${r2(f.error.p99)} | ${r1(f.error.max)} | ${f.stalls} | ${r2(f.errorOutsideStalls.p99)} | ${r1(f.errorOutsideStalls.max)} | ${f.stalls === 0 ? '-' : r1(f.errorInStalls)} | ${f.stops} | ${r1(f.overshoot.max)} | ${r1(f.endError)} | ${f.slideBacks} | ${ev('death')} | ${ev('respawn')} | ${f.jumpShownMs.length === 0 ? '-' : f.jumpShownMs.map(Math.round).join(', ')} | ${ev('crossing')} | ${Math.round(f.baseDelayMs)} | ${f.addedDelayMs === null ? '-' : Math.round(f.addedDelayMs)} |`,
      );
    }
  }
  return lines.join('\n');
}

function moverTable(groups: readonly GroupResult[]): string {
  const lines = [
    '| mover link | corrections | after respawn | self off at rest, max | self off at rest after respawn | inputs held, max ms | inputs late | events | group s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
  ];
  for (const g of groups) {
    const m = g.moverFigures;
    const events = g.events.map((e) => e.kind).join(', ');
    lines.push(
      `| ${g.mover} | ${m.corrections} | ${m.correctionsAfterRespawn} | ${r2(m.selfRestError)} | ${m.selfAfterRespawn === undefined ? '-' : r2(m.selfAfterRespawn)} | ${g.heldMs} | ${g.lateInputs} | ${events} | ${r1(g.ms / 1000)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = performance.now();
  const date = new Date();
  const server = await startBenchServer();
  const groups: GroupResult[] = [];
  try {
    const tags = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    for (const [i, mover] of LINK_PRESETS.entries()) {
      if (values.mover !== undefined && mover.name !== values.mover) continue;
      const group = await runGroup(server, {
        mover,
        watchers: LINK_PRESETS,
        walk: NETCODE_WALK,
        settleMs: 2000,
        tailMs: 2500,
        tag: tags[i]!,
        seed: 1000 * (i + 1),
        trace: values.trace !== undefined,
      });
      groups.push(group);
      console.log(`mover on ${mover.name}: ${r1(group.ms / 1000)} s`);
    }
  } finally {
    await server.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const stamp = date.toISOString().replace(/:/g, '-').replace(/\..*/, '');
  const name = `netcode-${stamp}${values.label ? `-${values.label}` : ''}`;
  const walkMs = NETCODE_WALK.reduce((s, l) => s + l.ms, 0);
  const md = [
    `# Netcode bench ${date.toISOString()}`,
    '',
    `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}); server and clients in one process, not pinned. ` +
      `A ${r1(walkMs / 1000)} s walk per mover link, ${r1(seconds)} s in all. Distances in units (a player walks 120 a second).`,
    '',
    '## Per pair (what the watcher drew)',
    '',
    table(groups),
    '',
    '## Per mover',
    '',
    moverTable(groups),
    '',
  ].join('\n');
  console.log(`\n${md}`);
  mkdirSync(RESULTS, { recursive: true });
  const out = {
    date: date.toISOString(),
    node: process.version,
    seconds: r1(seconds),
    walk: NETCODE_WALK,
    groups,
  };
  if (values.trace !== undefined) {
    writeFileSync(values.trace, JSON.stringify(groups.map((g) => ({ mover: g.mover, trace: g.trace }))));
    for (const g of groups) delete g.trace;
  }
  writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify(out, null, 2)}\n`);
  writeFileSync(join(RESULTS, `${name}.md`), md);
  console.log(`wrote bench/results/${name}.json and .md`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
