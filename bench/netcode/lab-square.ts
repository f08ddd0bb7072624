/**
 * The netcode lab's own case without a browser: player A walks the lab's square as the page
 * drives it (LabWalk: fitted around where it begins, a stop at each corner) through its link
 * lab, player B stands on its own link and draws A, and A's walk is replayed as the lab's
 * "Replay walk" button does it: A walks straight back to where the walk began, then into the
 * square's first leg without a stop. B's drawing is judged by the lab's own meter
 * (DrawnErrorMeter against a TruthRecord fed the server's player as the lab feed gives it),
 * one figure set per replay, as the lab e2e reads them; then the bench's figures for the run.
 *
 *   npx tsx bench/netcode/lab-square.ts [--mover "200 ms"] [--watcher clean] [--replays 6]
 *                                       [--walk-ms 15000] [--seed 1] [--trace]
 *
 * Links by the lab's preset names (web-client/src/ui/lab-ui.ts) or "200 ms" (200 ms each way,
 * nothing else), the lab e2e's "A 200 ms, B clean". `--trace` prints, around each slide-back,
 * the states the feed gave and where B drew A. One server in this process
 * (bench/netcode/harness.ts). A measurement: it asserts nothing, and prints its figures.
 */
import { parseArgs } from 'node:util';
import type { Player } from '../../server/world/types.js';
import type { World } from '../../server/world/world.js';
import { mulberry32 } from '../../shared/game/rng.js';
import { FRAME_MS, LabWalk, SQUARE_WALK, walkPeriod } from '../../web-client/src/state/lab.js';
import { CLEAN_LINK, type LinkSettings } from '../../web-client/src/state/link-lab.js';
import {
  DrawnErrorMeter,
  figures,
  TruthRecord,
  type DrawnEntity,
  type ErrorFigures,
  type WatcherFrame,
} from '../../web-client/src/state/truth.js';
import { LINK_PRESETS } from '../../web-client/src/ui/lab-ui.js';
import { BenchClient, startBenchServer, type BenchServer } from './harness.js';

const { values } = parseArgs({
  options: {
    mover: { type: 'string', default: '200 ms' },
    watcher: { type: 'string', default: 'clean' },
    replays: { type: 'string', default: '6' },
    'walk-ms': { type: 'string', default: '15000' },
    seed: { type: 'string', default: '1' },
    trace: { type: 'boolean', default: false },
  },
});

function link(name: string): LinkSettings {
  if (name === '200 ms') return { ...CLEAN_LINK, latencyMs: 200 };
  const preset = LINK_PRESETS.find((p) => p.name === name);
  if (!preset)
    throw new Error(`no link "${name}": "200 ms" or one of ${LINK_PRESETS.map((p) => p.name).join(', ')}`);
  return { ...preset.link };
}

/** The zone world that holds player `id` now. */
function worldOf(server: BenchServer, id: number): World | undefined {
  for (const host of server.handle.realm.zones.values()) if (host.world.players.has(id)) return host.world;
  return undefined;
}

const round = (v: number) => Math.round(v * 100) / 100;

/** The player as the lab feed (server/lab/feed.ts) reports it. */
function feedEntity(p: Player) {
  return {
    id: p.id,
    x: round(p.x),
    y: round(p.y),
    at: p.inputAt,
    facing: round(p.facing),
    moving: p.moving,
    speed: p.moving ? p.moveSpeed : 0,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STAND = { x: 0, y: 0 };
/** The lab e2e waits this long after a walk before it reads the figures (the record settles). */
const JUDGE_WAIT_MS = 2500;

async function main(): Promise<void> {
  const moverName = values.mover!;
  const watcherName = values.watcher!;
  const replays = Number(values.replays);
  const walkMs = Number(values['walk-ms']);
  const seed = Number(values.seed);
  const server = await startBenchServer();
  const a = await BenchClient.join(server.url, 'Labsqa', link(moverName), seed);
  const b = await BenchClient.join(server.url, 'Labsqb', link(watcherName), seed + 1);
  try {
    const id = a.entityId;
    const record = server.track(id);
    const truth = new TruthRecord();
    const meter = new DrawnErrorMeter();
    const walk = new LabWalk();
    const frames: WatcherFrame[] = [];
    const fed: ReturnType<typeof feedEntity>[] = [];
    const windows: (ErrorFigures & { replay: number; corrections: number; slidAt: number[] })[] = [];
    let unseen = 0;
    let corrections = 0;
    // Everyone stands while the clocks settle; then the walk starts (replay 0) and is replayed
    // once each window is judged, after a seeded wait of up to one period of the square, so
    // the walk home starts anywhere on it (as a click on the lab's button does).
    const rng = mulberry32(seed);
    const window = walkMs + JUDGE_WAIT_MS;
    const period = walkPeriod(SQUARE_WALK);
    let replayAt = performance.now() + 2000;
    let end = Infinity;
    let next = performance.now();
    let replay = -1;
    for (;;) {
      next += FRAME_MS;
      await sleep(Math.max(0, next - performance.now()));
      const now = performance.now();
      if (now >= end) break;
      if (now >= replayAt) {
        if (replay >= 0) {
          const c = a.world.self?.predictor.corrections ?? 0;
          windows.push({
            ...meter.runFigures(),
            replay,
            corrections: c - corrections,
            slidAt: [...meter.slideBacks],
          });
          corrections = c;
        }
        replay++;
        meter.reset();
        walk.replay(now);
        replayAt = replay < replays ? now + window + rng() * period : Infinity;
        if (replay === replays) end = now + window;
      }
      const pr = a.world.self?.predictor;
      const dt = a.frameMs(now);
      const dir = pr && replay >= 0 ? walk.direction(now, dt, pr, pr.speed, a.world.zone) : STAND;
      a.frame(now, dir);
      b.frame(now, STAND);
      const p = server.player(id);
      const w = worldOf(server, id);
      if (p && w) {
        const fe = feedEntity(p);
        truth.add({ time: w.now, entities: [fe] });
        const last = fed[fed.length - 1];
        if (!last || JSON.stringify(last) !== JSON.stringify(fe)) fed.push(fe);
      }
      const drawn: DrawnEntity[] = [];
      for (const e of b.world.entities.values()) {
        if (e.self) continue;
        const at = b.world.drawnPosition(e, now);
        drawn.push({ id: e.id, x: at.x, y: at.y });
        if (e.id === id && replay >= 0)
          frames.push({ t: b.world.clock.renderTime(now), serverNow: b.world.clock.serverNow(now), ...at });
      }
      if (replay >= 0 && !b.world.entities.has(id)) unseen++;
      meter.frame(now, b.world.drawnTime(now), drawn);
      meter.settle(truth);
    }
    const c = a.world.self?.predictor.corrections ?? 0;
    windows.push({
      ...meter.runFigures(),
      replay,
      corrections: c - corrections,
      slidAt: [...meter.slideBacks],
    });
    server.untrack(id);

    const r2 = (v: number) => Math.round(v * 100) / 100;
    console.log(`A (mover) on ${moverName}, B (watcher) on ${watcherName}; the lab's meter, per replay:`);
    console.log('| replay | p50 | p99 | max | stops | overshoot | slide-backs | A corrections |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const f of windows)
      console.log(
        `| ${f.replay === 0 ? '0 (start)' : f.replay} | ${r2(f.p50)} | ${r2(f.p99)} | ${r2(f.max)} | ${f.stops} | ${r2(f.overshoot)} | ${f.slideBacks} | ${f.corrections} |`,
      );
    const total = windows.reduce((n, f) => n + f.slideBacks, 0);
    console.log(`slide-backs over 1 unit, all replays: ${total}`);
    for (const f of windows)
      for (const t of f.slidAt) {
        console.log(`  replay ${f.replay}: slide-back at server ${Math.round(t)} ms`);
        if (values.trace) {
          for (const st of fed)
            if (Math.abs(st.at - t) < 600)
              console.log('   state', Math.round(st.at - t), st.x, st.y, st.moving, st.facing, st.speed);
          for (const fr of frames)
            if (Math.abs(fr.t - t) < 300) console.log('   drawn', Math.round(fr.t - t), r2(fr.x), r2(fr.y));
        }
      }
    const g = figures(record, frames, unseen);
    console.log(
      `bench figures, whole run: error p50 ${r2(g.error.p50)} p99 ${r2(g.error.p99)} max ${r2(g.error.max)}, ` +
        `stops ${g.stops}, overshoot max ${r2(g.overshoot.max)}, slide-backs ${g.slideBacks}, ` +
        `inputs held max ${record.heldMax} ms, late ${record.late}`,
    );
  } finally {
    a.close();
    b.close();
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
