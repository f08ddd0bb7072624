/**
 * The load benchmark's world: a copy of a data directory whose one zone is a COORD_MAX ×
 * COORD_MAX field tiled from the shipped zone, so that bots spread for a fixed number in
 * view keep that density as N grows (the shipped 2000 × 2000 zone runs out of ground near
 * 1,000 bots at ~50 in view).
 *
 *   - the source zone (the starting zone: the lowest number) is copied k × k times, each
 *     copy centred in its COORD_MAX / k square: the same walls and mob spawn points per area
 *   - the strips between copies get extra single mob spawn points, so mobs per area over the
 *     whole field equal the source's (templates drawn as often as the source uses them)
 *   - the player spawn and graveyard are the free points nearest the centre that keep
 *     SPAWN_SAFE_RADIUS from every mob spawn point: new bots fan out from the middle of the
 *     area they live in instead of crossing the field
 *
 * The result is validated with the server's own loader before the server sees it.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocked, insideZone, type Rect, type Vec2 } from '../../shared/game/movement.js';
import { mulberry32 } from '../../shared/game/rng.js';
import { COORD_MAX } from '../../shared/protocol/common.js';
import { loadWorldData, SPAWN_SAFE_RADIUS } from '../../server/world/index.js';

export interface ZoneJson {
  name: string;
  number?: number;
  /** The source's corner in the world plane (the field itself starts at 0, 0). */
  x?: number;
  y?: number;
  width: number;
  height: number;
  playerSpawn: Vec2;
  graveyard: Vec2;
  obstacles: Rect[];
  spawns: { template: number; x: number; y: number; count: number }[];
}

export interface BenchZoneSummary {
  source: string;
  name: string;
  size: number;
  /** Copies of the source zone. */
  tiles: number;
  obstacles: number;
  mobs: number;
  /** Mobs per million square units: the source's and the field's. */
  sourceMobDensity: number;
  mobDensity: number;
  playerSpawn: Vec2;
}

const NAME = 'Benchfield';
/** Extra spawn points keep this far inside the zone edge and from walls. */
const EDGE = 40;

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Builds the tiled field from `source` (pure; `seed` places the extra spawn points). */
export function tileZone(source: ZoneJson, size = COORD_MAX, seed = 7): ZoneJson {
  const tiles = Math.max(1, Math.floor(Math.min(size / source.width, size / source.height)));
  const stride = size / tiles;
  const offX = (stride - source.width) / 2;
  const offY = (stride - source.height) / 2;
  const obstacles: Rect[] = [];
  const spawns: ZoneJson['spawns'] = [];
  const tileRects: Rect[] = [];
  for (let ty = 0; ty < tiles; ty++) {
    for (let tx = 0; tx < tiles; tx++) {
      const ox = round2(tx * stride + offX);
      const oy = round2(ty * stride + offY);
      tileRects.push({ x: ox, y: oy, w: source.width, h: source.height });
      for (const o of source.obstacles) obstacles.push({ ...o, x: o.x + ox, y: o.y + oy });
      for (const s of source.spawns) spawns.push({ ...s, x: s.x + ox, y: s.y + oy });
    }
  }
  const zone = { width: size, height: size };
  const sourceMobs = source.spawns.reduce((n, s) => n + s.count, 0);
  const density = sourceMobs / (source.width * source.height);

  // The player spawn first: extra mob spawn points then keep clear of it.
  const farFromMobs = (p: Vec2, list: readonly { x: number; y: number }[]): boolean =>
    list.every((s) => Math.hypot(s.x - p.x, s.y - p.y) >= SPAWN_SAFE_RADIUS + 10);
  const standable = (p: Vec2): boolean => insideZone(p, zone, EDGE) && !blocked(p, obstacles, EDGE / 2);
  const nearest = (from: Vec2, ok: (p: Vec2) => boolean): Vec2 => {
    for (let r = 0; r < size; r += 8) {
      const steps = Math.max(1, Math.ceil((2 * Math.PI * r) / 8));
      for (let i = 0; i < steps; i++) {
        const a = (i / steps) * 2 * Math.PI;
        const p = { x: round2(from.x + Math.cos(a) * r), y: round2(from.y + Math.sin(a) * r) };
        if (ok(p)) return p;
      }
    }
    throw new Error('no free point for the player spawn');
  };
  const centre = { x: size / 2, y: size / 2 };
  const playerSpawn = nearest(centre, (p) => standable(p) && farFromMobs(p, spawns));
  const graveyard = nearest({ x: playerSpawn.x + 40, y: playerSpawn.y + 40 }, standable);

  // Fill the strips between copies to the source's mob density.
  const templates: number[] = [];
  for (const s of source.spawns) for (let i = 0; i < s.count; i++) templates.push(s.template);
  const rng = mulberry32(seed);
  const inTile = (p: Vec2): boolean =>
    tileRects.some((t) => p.x >= t.x && p.x <= t.x + t.w && p.y >= t.y && p.y <= t.y + t.h);
  let missing = Math.round(density * size * size) - sourceMobs * tiles * tiles;
  for (let attempt = 0; missing > 0 && attempt < 1_000_000; attempt++) {
    const p = { x: round2(rng() * size), y: round2(rng() * size) };
    if (inTile(p) || !standable(p)) continue;
    if (Math.hypot(p.x - playerSpawn.x, p.y - playerSpawn.y) < SPAWN_SAFE_RADIUS + 10) continue;
    spawns.push({ template: templates[Math.floor(rng() * templates.length)]!, x: p.x, y: p.y, count: 1 });
    missing--;
  }
  return { name: NAME, width: size, height: size, playerSpawn, graveyard, obstacles, spawns };
}

/** The zone moved to the corner of the plane (walls, spawns and points with it). */
function atOrigin(z: ZoneJson): ZoneJson {
  const dx = z.x ?? 0;
  const dy = z.y ?? 0;
  const at = <T extends Vec2>(p: T): T => ({ ...p, x: p.x - dx, y: p.y - dy });
  return {
    name: z.name,
    width: z.width,
    height: z.height,
    playerSpawn: at(z.playerSpawn),
    graveyard: at(z.graveyard),
    obstacles: z.obstacles.map(at),
    spawns: z.spawns.map(at),
  };
}

/**
 * Writes `<out>/` as a copy of `dataDir` (spells, mobs, character, rules) whose zones/ holds
 * only the tiled field, checks it loads, and says what it made.
 */
export function writeBenchData(dataDir: string, out: string, size = COORD_MAX): BenchZoneSummary {
  const zoneFiles = readdirSync(join(dataDir, 'zones'))
    .filter((f) => f.endsWith('.json'))
    .sort();
  if (zoneFiles.length === 0) throw new Error(`${dataDir}/zones holds no zone`);
  const read = (f: string): ZoneJson =>
    JSON.parse(readFileSync(join(dataDir, 'zones', f), 'utf8')) as ZoneJson;
  const first = zoneFiles
    .map((f) => ({ f, z: read(f) }))
    .reduce((a, b) => ((b.z.number ?? 1) < (a.z.number ?? 1) ? b : a));
  const sourceFile = join(dataDir, 'zones', first.f);
  const source = atOrigin(first.z);
  const field = tileZone(source, size);
  mkdirSync(join(out, 'zones'), { recursive: true });
  for (const f of ['spells.json', 'mobs.json', 'character.json', 'progression.json', 'rules.json']) {
    copyFileSync(join(dataDir, f), join(out, f));
  }
  writeFileSync(join(out, 'zones', 'benchfield.json'), `${JSON.stringify(field)}\n`);
  // The server's own validation: a field it would refuse fails here, before any server starts.
  loadWorldData(out);
  const mobs = field.spawns.reduce((n, s) => n + s.count, 0);
  const sourceMobs = source.spawns.reduce((n, s) => n + s.count, 0);
  return {
    source: sourceFile,
    name: field.name,
    size,
    tiles: Math.max(1, Math.floor(Math.min(size / source.width, size / source.height))) ** 2,
    obstacles: field.obstacles.length,
    mobs,
    sourceMobDensity: round2((sourceMobs / (source.width * source.height)) * 1e6),
    mobDensity: round2((mobs / (size * size)) * 1e6),
    playerSpawn: field.playerSpawn,
  };
}
