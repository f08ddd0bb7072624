/**
 * World data: JSON files under a data directory, validated at load. Every error names the
 * file and the field, e.g. `data/mobs.json: templates[3].speed: expected a positive number`.
 *
 *   <dir>/spells.json     { spells: SpellData[] }
 *   <dir>/mobs.json       { templates: MobTemplate[] }
 *   <dir>/character.json  StartingCharacter (level, health, mana, speed, spells)
 *   <dir>/rules.json      WorldRules (timers, ranges, limits)
 *   <dir>/zones/*.json    ZoneData (number, corner and size in the world plane, obstacles, player
 *                         spawn, graveyard, mob spawn points); zones must not overlap
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocked, distance, insideZone } from '../../shared/game/movement.js';
import { COORD_MAX, MAX_ZONES, MOB_IDS_PER_ZONE } from '../../shared/protocol/index.js';
import type {
  MobSpawnPoint,
  MobTemplate,
  SpellData,
  StartingCharacter,
  WorldData,
  WorldRules,
  ZoneData,
} from './types.js';

export class DataError extends Error {
  readonly code = 'ERR_BAD_DATA';
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`);
    this.name = 'DataError';
  }
}

/** Mob spawn points keep at least this far from the player spawn, so nobody enters the world in a fight. */
export const SPAWN_SAFE_RADIUS = 150;

// ------------------------------------------------------------ a tiny schema reader

class Cursor {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly value: unknown,
  ) {}

  fail(problem: string): never {
    throw new DataError(this.file, this.path, problem);
  }

  at(key: string | number): Cursor {
    const path = typeof key === 'number' ? `${this.path}[${key}]` : this.path ? `${this.path}.${key}` : key;
    const obj = this.value as Record<string | number, unknown>;
    return new Cursor(this.file, path, obj[key]);
  }

  object(): this {
    if (typeof this.value !== 'object' || this.value === null || Array.isArray(this.value)) {
      this.fail('expected an object');
    }
    return this;
  }

  array(min = 0): Cursor[] {
    if (!Array.isArray(this.value)) this.fail('expected an array');
    const items = this.value as unknown[];
    if (items.length < min) this.fail(`expected at least ${min} item(s)`);
    return items.map((_, i) => this.at(i));
  }

  number(opts: { min?: number; max?: number; int?: boolean; positive?: boolean } = {}): number {
    const v = this.value;
    if (opts.positive) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) this.fail('expected a positive number');
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail('expected a number');
    if (opts.int && !Number.isInteger(v)) this.fail('expected an integer');
    if (opts.min !== undefined && v < opts.min) this.fail(`expected a number >= ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) this.fail(`expected a number <= ${opts.max}`);
    return v;
  }

  int(min: number, max: number): number {
    return this.number({ int: true, min, max });
  }

  string(maxLength: number): string {
    if (typeof this.value !== 'string' || this.value.length === 0) this.fail('expected a non-empty string');
    if (this.value.length > maxLength) this.fail(`expected at most ${maxLength} characters`);
    return this.value;
  }

  oneOf<const T extends string>(choices: readonly T[]): T {
    if (!choices.includes(this.value as T)) this.fail(`expected one of ${choices.join(', ')}`);
    return this.value as T;
  }

  /** 0xRRGGBB as a number, or "#rrggbb" / "0xrrggbb" as a string. */
  colour(): number {
    const v = this.value;
    if (typeof v === 'string' && /^(#|0x)[0-9a-fA-F]{6}$/.test(v))
      return parseInt(v.replace(/^(#|0x)/, ''), 16);
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffff) return v;
    return this.fail('expected a colour 0xRRGGBB (a number or "#rrggbb")');
  }

  point(): { x: number; y: number } {
    this.object();
    return {
      x: this.at('x').number({ min: 0, max: COORD_MAX }),
      y: this.at('y').number({ min: 0, max: COORD_MAX }),
    };
  }
}

// ------------------------------------------------------------ per file

function readSpell(c: Cursor): SpellData {
  c.object();
  const min = c.at('min').int(0, 0xffff);
  const max = c.at('max').int(0, 0xffff);
  if (max < min) c.at('max').fail('expected a number >= min');
  return {
    id: c.at('id').int(1, 0xffff),
    name: c.at('name').string(32),
    kind: c.at('kind').oneOf(['damage', 'heal'] as const),
    castTime: c.at('castTime').int(0, 0xffff),
    cooldown: c.at('cooldown').int(0, 0xffffffff),
    manaCost: c.at('manaCost').int(0, 0xffff),
    range: c.at('range').number({ positive: true }),
    projectileSpeed: c.at('projectileSpeed').number({ min: 0 }),
    min,
    max,
    colour: c.at('colour').colour(),
  };
}

function readTemplate(c: Cursor): MobTemplate {
  c.object();
  const minLevel = c.at('minLevel').int(1, 255);
  const maxLevel = c.at('maxLevel').int(1, 255);
  if (maxLevel < minLevel) c.at('maxLevel').fail('expected a number >= minLevel');
  const meleeMin = c.at('meleeMin').int(0, 0xffff);
  const meleeMax = c.at('meleeMax').int(0, 0xffff);
  if (meleeMax < meleeMin) c.at('meleeMax').fail('expected a number >= meleeMin');
  return {
    id: c.at('id').int(1, 0xffff),
    name: c.at('name').string(16),
    minLevel,
    maxLevel,
    health: c.at('health').number({ positive: true, int: true }),
    speed: c.at('speed').number({ positive: true }),
    wanderRadius: c.at('wanderRadius').number({ min: 0 }),
    aggroRadius: c.at('aggroRadius').number({ min: 0 }),
    meleeMin,
    meleeMax,
    swingTime: c.at('swingTime').number({ positive: true }),
    respawnTime: c.at('respawnTime').number({ positive: true }),
    appearance: c.at('appearance').int(0, 255),
    colour: c.at('colour').colour(),
  };
}

function readCharacter(c: Cursor): StartingCharacter {
  c.object();
  return {
    level: c.at('level').int(1, 255),
    health: c.at('health').number({ positive: true, int: true }),
    mana: c.at('mana').int(0, 0xffffffff),
    speed: c.at('speed').number({ positive: true }),
    spells: c
      .at('spells')
      .array(1)
      .map((s) => s.int(1, 0xffff)),
  };
}

function readRules(c: Cursor): WorldRules {
  c.object();
  const pos = (k: string): number => c.at(k).number({ positive: true });
  const nonNeg = (k: string): number => c.at(k).number({ min: 0 });
  const percent = (k: string): number => c.at(k).number({ min: 0, max: 100 });
  const optional = (k: string, absent: number, read: (k: string) => number): number =>
    c.at(k).value === undefined ? absent : read(k);
  const cellSize = pos('cellSize');
  const rules: WorldRules = {
    cellSize,
    interestRadius: pos('interestRadius'),
    interestMargin: c.at('interestMargin').number({ min: 1, max: 2 }),
    // Absent in a data directory older than it: a quarter of a cell, as shipped.
    cellHysteresis: c.at('cellHysteresis').value === undefined ? cellSize / 4 : nonNeg('cellHysteresis'),
    moveBurstMs: nonNeg('moveBurstMs'),
    sayRange: pos('sayRange'),
    chatBurst: c.at('chatBurst').int(1, 1000),
    chatPerSecond: pos('chatPerSecond'),
    logoutDelay: nonNeg('logoutDelay'),
    corpseTime: nonNeg('corpseTime'),
    playerRespawnDelay: nonNeg('playerRespawnDelay'),
    manaRegenInterval: pos('manaRegenInterval'),
    manaRegenAmount: nonNeg('manaRegenAmount'),
    // Absent in a data directory older than them: no health back but by spells, mana at the
    // same pace in a fight or out of it, and a respawn with full health and the mana one had.
    healthRegenAmount: optional('healthRegenAmount', 0, nonNeg),
    restDelay: optional('restDelay', 5000, nonNeg),
    restHealthPercent: optional('restHealthPercent', 0, percent),
    restManaPercent: optional('restManaPercent', 0, percent),
    respawnHealthPercent: optional('respawnHealthPercent', 100, percent),
    respawnManaPercent: optional('respawnManaPercent', 0, percent),
    critChance: c.at('critChance').number({ min: 0, max: 1 }),
    critMultiplier: c.at('critMultiplier').number({ min: 1, max: 10 }),
    meleeRange: pos('meleeRange'),
    leashDistance: pos('leashDistance'),
    rechaseDistance: pos('rechaseDistance'),
    wanderPauseMin: nonNeg('wanderPauseMin'),
    wanderPauseMax: nonNeg('wanderPauseMax'),
    wanderWaypoints: c.at('wanderWaypoints').int(1, 16),
  };
  if (rules.cellHysteresis > rules.cellSize / 2)
    c.at('cellHysteresis').fail('expected a number <= cellSize / 2');
  if (rules.wanderPauseMax < rules.wanderPauseMin)
    c.at('wanderPauseMax').fail('expected a number >= wanderPauseMin');
  return rules;
}

function readZone(c: Cursor, templates: ReadonlyMap<number, MobTemplate>): ZoneData {
  c.object();
  const number = c.at('number').value === undefined ? 1 : c.at('number').int(1, MAX_ZONES);
  const x = c.at('x').value === undefined ? 0 : c.at('x').number({ min: 0, max: COORD_MAX });
  const y = c.at('y').value === undefined ? 0 : c.at('y').number({ min: 0, max: COORD_MAX });
  const width = c.at('width').number({ positive: true, max: COORD_MAX - x });
  const height = c.at('height').number({ positive: true, max: COORD_MAX - y });
  const bounds = { x, y, width, height };
  const obstacles = c
    .at('obstacles')
    .array()
    .map((o) => {
      o.object();
      return {
        x: o.at('x').number({ min: x, max: x + width }),
        y: o.at('y').number({ min: y, max: y + height }),
        w: o.at('w').number({ positive: true }),
        h: o.at('h').number({ positive: true }),
      };
    });
  const standable = (p: Cursor): { x: number; y: number } => {
    const v = p.point();
    if (!insideZone(v, bounds)) p.fail('expected a point inside the zone');
    if (blocked(v, obstacles)) p.fail('is inside an obstacle');
    return v;
  };
  const playerSpawn = standable(c.at('playerSpawn'));
  const graveyard = standable(c.at('graveyard'));
  const spawns: MobSpawnPoint[] = c
    .at('spawns')
    .array()
    .map((s) => {
      s.object();
      const template = s.at('template').int(1, 0xffff);
      if (!templates.has(template)) s.at('template').fail(`no mob template ${template} in mobs.json`);
      const at = {
        x: s.at('x').number({ min: x, max: x + width }),
        y: s.at('y').number({ min: y, max: y + height }),
      };
      if (!insideZone(at, bounds)) s.fail('expected a point inside the zone');
      if (blocked(at, obstacles)) s.fail('is inside an obstacle');
      if (distance(at, playerSpawn) < SPAWN_SAFE_RADIUS) {
        s.fail(`is within ${SPAWN_SAFE_RADIUS} of the player spawn`);
      }
      return { template, x: at.x, y: at.y, count: s.at('count').int(1, 100) };
    });
  const mobs = spawns.reduce((n, sp) => n + sp.count, 0);
  if (mobs > MOB_IDS_PER_ZONE) c.at('spawns').fail(`expected at most ${MOB_IDS_PER_ZONE} mobs, not ${mobs}`);
  return {
    name: c.at('name').string(32),
    number,
    x,
    y,
    width,
    height,
    obstacles,
    playerSpawn,
    graveyard,
    spawns,
  };
}

function overlaps(a: ZoneData, b: ZoneData): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function uniqueById<T extends { id: number }>(items: Cursor[], read: (c: Cursor) => T): Map<number, T> {
  const out = new Map<number, T>();
  items.forEach((c) => {
    const item = read(c);
    if (out.has(item.id)) c.at('id').fail(`duplicate id ${item.id}`);
    out.set(item.id, item);
  });
  return out;
}

// ------------------------------------------------------------ whole set

/** One parsed JSON document and the name errors should use for it. */
export interface DataSource {
  file: string;
  json: unknown;
}

export interface WorldSources {
  spells: DataSource;
  mobs: DataSource;
  character: DataSource;
  rules: DataSource;
  zones: DataSource[];
}

/** Validates already-parsed JSON (tests build sources in memory). Throws DataError. */
export function parseWorldData(src: WorldSources): WorldData {
  const root = (s: DataSource): Cursor => new Cursor(s.file, '', s.json).object();
  const spells = uniqueById(root(src.spells).at('spells').array(1), readSpell);
  const templates = uniqueById(root(src.mobs).at('templates').array(1), readTemplate);
  const charCursor = root(src.character);
  const character = readCharacter(charCursor);
  character.spells.forEach((id, i) => {
    if (!spells.has(id)) charCursor.at('spells').at(i).fail(`no spell ${id} in spells.json`);
  });
  const rules = readRules(root(src.rules));
  if (src.zones.length === 0) throw new DataError('zones/', '', 'expected at least one zone file');
  const zones = src.zones.map((z) => readZone(root(z), templates));
  const seen = new Set<string>();
  const numbers = new Set<number>();
  src.zones.forEach((z, i) => {
    const zone = zones[i]!;
    if (seen.has(zone.name)) throw new DataError(z.file, 'name', `duplicate zone name ${zone.name}`);
    seen.add(zone.name);
    if (numbers.has(zone.number))
      throw new DataError(z.file, 'number', `duplicate zone number ${zone.number}`);
    numbers.add(zone.number);
    const other = zones.slice(0, i).find((o) => overlaps(o, zone));
    if (other) throw new DataError(z.file, '', `overlaps zone ${other.name}: zones share one world plane`);
  });
  // By number: new characters start in the first.
  zones.sort((a, b) => a.number - b.number);
  return { spells, templates, character, rules, zones };
}

function readJson(file: string): DataSource {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new DataError(file, '', `cannot read: ${(err as Error).message}`);
  }
  try {
    return { file, json: JSON.parse(text) as unknown };
  } catch (err) {
    throw new DataError(file, '', `not valid JSON: ${(err as Error).message}`);
  }
}

/** Loads and validates a data directory (`data`, or `data/test` for short timers). */
export function loadWorldData(dir = 'data'): WorldData {
  const zoneDir = join(dir, 'zones');
  let zoneFiles: string[];
  try {
    zoneFiles = readdirSync(zoneDir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch (err) {
    throw new DataError(zoneDir, '', `cannot read: ${(err as Error).message}`);
  }
  return parseWorldData({
    spells: readJson(join(dir, 'spells.json')),
    mobs: readJson(join(dir, 'mobs.json')),
    character: readJson(join(dir, 'character.json')),
    rules: readJson(join(dir, 'rules.json')),
    zones: zoneFiles.map((f) => readJson(join(zoneDir, f))),
  });
}
