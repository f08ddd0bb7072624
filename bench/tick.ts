/**
 * Tick benchmark: what the game costs per tick, without sockets. The server's own zone host
 * (world step, then the replication writer appending into each client's connection buffer,
 * commit, and the flush scheduler) runs on the load benchmark's field (bench/load/zone.ts)
 * with N walkers spread for about --in-view entities in view, each walking like a bot (strolls
 * near its home with pauses, sending its movement state on start, stop, turn and heartbeat
 * through the clients' own MoveSender). Connections discard what they are given, so the
 * figures are the game's CPU alone: bench:floor gives the socket write path's, bench:split
 * what the gateway's side of the in-process bus adds, and bench:load the whole server's over
 * real sockets.
 *
 *   npx tsx bench/tick.ts [--players 2000] [--in-view 50] [--ticks 200] [--warmup 200]
 *       [--runs 3] [--label NAME] [--cpu-prof]
 *
 * Reports per tick: the step (world), deliver (replication writer), flush, and the total,
 * mean / p50 / p99 ms, the best of --runs runs by mean (on a busy machine the best run is the
 * least disturbed one), plus records and bytes per client per second. Writes
 * bench/results/tick-<date>[-label].json. Not a test: figures vary with the machine; compare
 * runs made on the same quiet machine, as ratios.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MoveSender } from '../shared/client/move-sender.js';
import { slide } from '../shared/game/movement.js';
import { mulberry32 } from '../shared/game/rng.js';
import { BaseConnection, type ConnectionOptions } from '../server/transport/connection.js';
import { FlushScheduler } from '../server/transport/flush.js';
import { createWorld, loadWorldData, type Player, type WorldInput } from '../server/world/index.js';
import { ZoneRunner } from '../server/zone/zone-runner.js';
import { planArea } from '../tools/bots/nav.js';
import { writeBenchData } from './load/zone.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TICK_MS = 50;

/** A connection whose socket takes everything at once and keeps nothing. */
class NullConnection extends BaseConnection {
  writes = 0;
  bytes = 0;
  constructor(options: ConnectionOptions) {
    super('tcp', '127.0.0.1', options);
  }
  protected socketBuffered(): number {
    return 0;
  }
  protected write(bytes: Uint8Array): boolean {
    this.writes++;
    this.bytes += bytes.length;
    return false;
  }
  protected closeSocket(): void {}
}

interface Walker {
  p: Player;
  conn: NullConnection;
  home: { x: number; y: number };
  sender: MoveSender;
  target: { x: number; y: number } | undefined;
  heading: number;
  pauseUntil: number;
  seq: number;
}

interface Timing {
  mean: number;
  p50: number;
  p99: number;
}

function timing(xs: number[]): Timing {
  const s = [...xs].sort((a, b) => a - b);
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return {
    mean: r(s.reduce((a, b) => a + b, 0) / s.length),
    p50: r(s[Math.floor(s.length * 0.5)]!),
    p99: r(s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!),
  };
}

function runOnce(
  dataDir: string,
  players: number,
  inView: number,
  ticks: number,
  warmup: number,
  seed: number,
) {
  const data = loadWorldData(dataDir);
  const rng = mulberry32(seed);
  let now = 1_000_000;
  const world = createWorld(data, { rng, now, rules: {} });
  const zone = world.zone;
  const scheduler = new FlushScheduler(() => {});
  const limits = { softLimit: 64 * 1024, hardLimit: 1024 * 1024 };
  const mobsPerArea =
    (world.mobs.size / (zone.width * zone.height)) * Math.PI * world.rules.interestRadius ** 2;
  const area = planArea({
    zone,
    count: players,
    interestRadius: world.rules.interestRadius,
    playersInView: Math.max(1, inView - Math.round(mobsPerArea)),
  });
  const walkers: Walker[] = [];
  const bySession = new Map<number, Walker>();
  const host = new ZoneRunner(world, rng, {
    joined: (h, sessionId, playerId) => {
      const wk = bySession.get(sessionId)!;
      wk.p = world.players.get(playerId)!;
      h.bind(playerId, wk.conn);
      wk.sender.reset(now, wk.p.x, wk.p.y, wk.p.facing);
    },
    save: () => {},
    leftWorld: () => {},
    handedOff: () => {},
  });
  const free = (x: number, y: number) => {
    const at = slide({ x, y }, { x, y }, zone.obstacles, zone);
    return at.x === x && at.y === y;
  };
  for (let i = 0; i < players; i++) {
    let x: number;
    let y: number;
    do {
      x = area.x + rng() * area.w;
      y = area.y + rng() * area.h;
    } while (!free(x, y));
    const wk: Walker = {
      p: undefined as unknown as Player,
      conn: new NullConnection({ limits, scheduler }),
      home: { x, y },
      sender: new MoveSender(),
      target: undefined,
      heading: 0,
      pauseUntil: 0,
      seq: 0,
    };
    walkers.push(wk);
    bySession.set(i + 1, wk);
    host.queue({
      type: 'join',
      sessionId: i + 1,
      character: { id: i + 1, name: `Walker${i + 1}`, level: 1, appearance: 0, kills: 0, x, y },
    });
  }

  const step = {
    world: [] as number[],
    deliver: [] as number[],
    flush: [] as number[],
    total: [] as number[],
  };
  let bytes0 = 0;
  let records = 0;
  for (let t = 0; t < ticks + warmup; t++) {
    now += TICK_MS;
    for (const wk of walkers) {
      const p = wk.p;
      if (!p || !world.players.has(p.id)) continue;
      if (!p.alive) {
        wk.target = undefined;
        continue;
      }
      let moving = false;
      let at: { x: number; y: number } = p;
      if (wk.target === undefined && now >= wk.pauseUntil) {
        const a = rng() * Math.PI * 2;
        const d = 20 + rng() * 60;
        wk.target = { x: wk.home.x + Math.cos(a) * d, y: wk.home.y + Math.sin(a) * d };
      }
      if (wk.target) {
        // Where the walker is a tick from now (the server applies it at the tick).
        const dx = wk.target.x - p.x;
        const dy = wk.target.y - p.y;
        const left = Math.hypot(dx, dy);
        const stride = (p.speed * TICK_MS) / 1000;
        wk.heading = Math.atan2(dy, dx);
        const to =
          left <= stride ? wk.target : { x: p.x + (dx / left) * stride, y: p.y + (dy / left) * stride };
        at = slide(p, to, zone.obstacles, zone);
        if (left <= stride || (at.x === p.x && at.y === p.y)) {
          wk.target = undefined;
          wk.pauseUntil = now + 300 + rng() * 1500;
        } else moving = true;
      }
      const state = wk.sender.update(now, at.x, at.y, wk.heading, moving, moving ? p.speed : 0);
      if (!state) continue;
      const input: WorldInput = {
        type: 'move',
        entityId: p.id,
        seq: ++wk.seq,
        x: state.x,
        y: state.y,
        facing: state.facing,
        moving: state.moving,
        speed: state.speed,
        clientTime: now,
        receivedAt: now,
      };
      host.queue(input);
    }
    const t0 = performance.now();
    host.tick(now);
    const t2 = performance.now();
    scheduler.flushAll();
    const t3 = performance.now();
    if (t === warmup) bytes0 = walkers.reduce((n, w) => n + w.conn.bytes, 0);
    if (t >= warmup) {
      step.world.push(host.timing.stepMs);
      step.deliver.push(host.timing.deliverMs);
      step.flush.push(t3 - t2);
      step.total.push(t3 - t0);
      records += host.outbox.stats.records;
    }
  }
  const seconds = (ticks * TICK_MS) / 1000;
  let visible = 0;
  let visiblePlayers = 0;
  for (const p of world.players.values()) {
    visible += p.visible.size;
    for (const e of p.visible.values()) if (e.kind === 'player') visiblePlayers++;
  }
  const bytes = walkers.reduce((n, w) => n + w.conn.bytes, 0) - bytes0;
  return {
    world: timing(step.world),
    deliver: timing(step.deliver),
    flush: timing(step.flush),
    total: timing(step.total),
    inView: Math.round((visible / Math.max(1, world.players.size)) * 10) / 10,
    playersInView: Math.round((visiblePlayers / Math.max(1, world.players.size)) * 10) / 10,
    bytesPerClientPerSecond: Math.round(bytes / players / seconds),
    recordsEncodedPerSecond: Math.round(records / seconds),
    players: world.players.size,
    mobs: world.mobs.size,
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      players: { type: 'string', default: '2000' },
      'in-view': { type: 'string', default: '50' },
      ticks: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '200' },
      runs: { type: 'string', default: '3' },
      label: { type: 'string' },
    },
  });
  const players = Number(values.players);
  const inView = Number(values['in-view']);
  const ticks = Number(values.ticks);
  const warmup = Number(values.warmup);
  const runs = Number(values.runs);
  if (![players, inView, ticks, runs].every((v) => Number.isInteger(v) && v > 0) || !(warmup >= 0))
    throw new Error('bad arguments: --players, --in-view, --ticks, --runs positive integers');
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-tick-'));
  try {
    writeBenchData(join(ROOT, 'data'), dir);
    const results = [];
    for (let r = 0; r < runs; r++) {
      const res = runOnce(dir, players, inView, ticks, warmup, 42);
      results.push(res);
      console.log(
        `run ${r + 1}: total ${res.total.mean} ms/tick (p50 ${res.total.p50}, p99 ${res.total.p99}); ` +
          `world ${res.world.mean}, deliver ${res.deliver.mean}, flush ${res.flush.mean}; ` +
          `${res.players} players, ${res.inView} in view (${res.playersInView} players), ${res.bytesPerClientPerSecond} B/s per client, ` +
          `${res.recordsEncodedPerSecond} records/s`,
      );
    }
    const best = results.reduce((a, b) => (b.total.mean < a.total.mean ? b : a));
    const date = new Date().toISOString();
    const stamp = date.replace(/:/g, '-').replace(/\..*/, '');
    const out = join(ROOT, 'bench/results', `tick-${stamp}${values.label ? `-${values.label}` : ''}.json`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(
      out,
      JSON.stringify({ date, node: process.version, players, inView, ticks, best, results }, null, 2) + '\n',
    );
    console.log(
      `best: ${best.total.mean} ms/tick (world ${best.world.mean}, deliver ${best.deliver.mean}, flush ${best.flush.mean}); wrote ${out}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
