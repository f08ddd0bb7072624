/**
 * World step cost: ms per tick for a zone of 10,000 mobs with no players (cell activation
 * should make it nearly free), the same zone with players walking, and the shipped zone with
 * 2,000 walking players (interest managed). Writes bench/results/world.json.
 * Not a test: figures vary with the machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { CLIENT_HEARTBEAT_MS } from '../shared/game/motion.js';
import { slide } from '../shared/game/movement.js';
import {
  createWorld,
  joinPlayer,
  loadWorldData,
  mulberry32,
  step,
  type MobSpawnPoint,
  type Player,
  type World,
  type WorldData,
  type WorldInput,
} from '../server/world/index.js';

const TICK_MS = 50;
/** Walkers send their movement state as a client does while walking: every CLIENT_HEARTBEAT_MS. */
const HEARTBEAT_TICKS = Math.round(CLIENT_HEARTBEAT_MS / TICK_MS);

interface Walker {
  p: Player;
  heading: number;
  seq: number;
}

interface Result {
  scenario: string;
  mobs: number;
  players: number;
  ticks: number;
  msPerTickMean: number;
  msPerTickP50: number;
  msPerTickP99: number;
  simulatedMobsPerTick: number;
  eventsPerTick: number;
  avgVisiblePerPlayer: number;
}

function tenThousandMobs(base: WorldData): WorldData {
  const zone = base.zones[0]!;
  const spawns: MobSpawnPoint[] = [];
  const rng = mulberry32(7);
  const templates = [...base.templates.keys()];
  while (spawns.length < 10_000) {
    const x = 40 + rng() * (zone.width - 80);
    const y = 40 + rng() * (zone.height - 80);
    const probe = slide({ x, y }, { x, y }, zone.obstacles, zone);
    if (probe.x !== x || probe.y !== y) continue;
    if (Math.hypot(x - zone.playerSpawn.x, y - zone.playerSpawn.y) < 150) continue;
    spawns.push({ template: templates[spawns.length % templates.length]!, x, y, count: 1 });
  }
  return { ...base, zones: [{ ...zone, spawns }] };
}

function run(scenario: string, data: WorldData, players: number, moveEvery: number, ticks: number): Result {
  const rng = mulberry32(42);
  let now = 0;
  const w: World = createWorld(data, { rng, now });
  const zone = w.zone;
  const walkers: Walker[] = [];
  for (let i = 0; i < players; i++) {
    // Scatter players over the zone on free ground.
    let x: number;
    let y: number;
    do {
      x = 40 + rng() * (zone.width - 80);
      y = 40 + rng() * (zone.height - 80);
    } while (slide({ x, y }, { x, y }, zone.obstacles, zone).x !== x);
    const { playerId } = joinPlayer(
      w,
      i + 1,
      { id: i + 1, name: `Bot${i + 1}`, level: 1, appearance: 0, kills: 0, x, y },
      now,
    );
    walkers.push({ p: w.players.get(playerId)!, heading: rng() * Math.PI * 2, seq: 0 });
  }
  const times: number[] = [];
  let events = 0;
  let simulated = 0;
  const warmup = 20;
  for (let t = 0; t < ticks + warmup; t++) {
    now += TICK_MS;
    const inputs: WorldInput[] = [];
    for (let i = 0; i < walkers.length; i++) {
      if ((t + i) % moveEvery !== 0) continue;
      const wk = walkers[i]!;
      if (!wk.p.alive || !w.players.has(wk.p.id)) continue;
      if (rng() < 0.05) wk.heading += (rng() - 0.5) * 2;
      const dist = (wk.p.speed * TICK_MS * moveEvery) / 1000;
      const to = { x: wk.p.x + Math.cos(wk.heading) * dist, y: wk.p.y + Math.sin(wk.heading) * dist };
      const at = slide(wk.p, to, zone.obstacles, zone);
      if (at.x === wk.p.x && at.y === wk.p.y) wk.heading += Math.PI / 2;
      inputs.push({
        type: 'move',
        entityId: wk.p.id,
        seq: ++wk.seq,
        x: at.x,
        y: at.y,
        facing: wk.heading,
        moving: true,
        speed: wk.p.speed,
        clientTime: now,
      });
    }
    const start = performance.now();
    const out = step(w, inputs, now, rng);
    const ms = performance.now() - start;
    if (t >= warmup) {
      times.push(ms);
      events += out.events.length;
      simulated += w.stats.simulatedMobs;
    }
  }
  times.sort((a, b) => a - b);
  let visible = 0;
  for (const p of w.players.values()) visible += p.visible.size;
  const round = (v: number): number => Math.round(v * 1000) / 1000;
  return {
    scenario,
    mobs: w.mobs.size,
    players: w.players.size,
    ticks,
    msPerTickMean: round(times.reduce((a, b) => a + b, 0) / times.length),
    msPerTickP50: round(times[Math.floor(times.length * 0.5)]!),
    msPerTickP99: round(times[Math.floor(times.length * 0.99)]!),
    simulatedMobsPerTick: Math.round(simulated / ticks),
    eventsPerTick: Math.round(events / ticks),
    avgVisiblePerPlayer: w.players.size ? Math.round((visible / w.players.size) * 10) / 10 : 0,
  };
}

const data = loadWorldData('data');
const crowd = tenThousandMobs(data);
const results = [
  run('10,000 mobs, no players', crowd, 0, 2, 400),
  run('10,000 mobs, 20 walking players', crowd, 20, HEARTBEAT_TICKS, 400),
  run('10,000 mobs, 200 walking players', crowd, 200, HEARTBEAT_TICKS, 200),
  run('shipped zone, 2,000 players walking (a state every 250 ms)', data, 2000, HEARTBEAT_TICKS, 200),
];
console.table(results);
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  'bench/results/world.json',
  JSON.stringify(
    { date: new Date().toISOString(), node: process.version, tickMs: TICK_MS, results },
    null,
    2,
  ) + '\n',
);
console.log('wrote bench/results/world.json');
