/**
 * Two zones in one world plane: Greenvale and Ashmoor side by side, each with its own walls
 * and mobs, ids unique across both, a player entering either under its character id.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MOB_ID_BASE, MOB_IDS_PER_ZONE } from '../../shared/protocol/index.js';
import { Writer } from '../../shared/codec/writer.js';
import { t } from '../../shared/codec/index.js';
import { zoneInfo } from '../../server/outbox/messages.js';
import { neighbours, sharesEdge } from '../../server/world/border.js';
import { createWorld, loadWorldData, mulberry32, parseWorldData } from '../../server/world/index.js';
import { join, ofType, player, tick } from './builders.js';

const data = loadWorldData('data');
const greenvale = (): ReturnType<typeof createWorld> =>
  createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0 });
const ashmoor = (): ReturnType<typeof createWorld> =>
  createWorld(data, { zone: 'Ashmoor', rng: mulberry32(2), now: 0 });

function varintLength(v: number): number {
  const w = new Writer(8);
  t.varint.write(w, v);
  return w.finish().length;
}

describe('two zones in one world plane', () => {
  it('lays Greenvale and Ashmoor side by side, the starting zone first, with the same density of walls and mobs', () => {
    const [g, a] = data.zones;
    expect([g!.name, g!.number, g!.x, g!.y, g!.width, g!.height]).toEqual(['Greenvale', 1, 0, 0, 2000, 2000]);
    expect([a!.name, a!.number, a!.x, a!.y, a!.width, a!.height]).toEqual([
      'Ashmoor',
      2,
      2000,
      0,
      2000,
      2000,
    ]);
    expect(sharesEdge(g!, a!)).toBe(true);
    expect(neighbours(data.zones, g!).map((z) => z.name)).toEqual(['Ashmoor']);
    expect(neighbours(data.zones, a!).map((z) => z.name)).toEqual(['Greenvale']);
    const mobs = (z: typeof g) => z!.spawns.reduce((n, s) => n + s.count, 0);
    expect(mobs(a)).toBe(mobs(g));
    expect(a!.obstacles.length).toBe(g!.obstacles.length);
    for (const o of a!.obstacles) expect(o.x).toBeGreaterThanOrEqual(2000);
  });

  it("gives each zone's mobs ids from its own range, none shared, each three bytes on the wire", () => {
    const gIds = [...greenvale().mobs.keys()];
    const aIds = [...ashmoor().mobs.keys()];
    const both = new Set([...gIds, ...aIds]);
    expect(both.size).toBe(gIds.length + aIds.length);
    for (const id of gIds) expect(id - MOB_ID_BASE).toBeLessThan(MOB_IDS_PER_ZONE);
    for (const id of aIds) {
      expect(id).toBeGreaterThanOrEqual(MOB_ID_BASE + MOB_IDS_PER_ZONE);
      expect(id).toBeLessThan(MOB_ID_BASE + 2 * MOB_IDS_PER_ZONE);
    }
    expect(Math.max(...both.values()) < 1 << 21).toBe(true);
    expect(varintLength(Math.max(...aIds))).toBe(3);
  });

  it('puts a player into Ashmoor under its character id at its saved spot, where it sees the mobs around it', () => {
    const w = ashmoor();
    const c = player({ zone: 'Ashmoor', x: 2400, y: 1700 });
    const p = join(w, c);
    expect(p.id).toBe(c.id);
    expect([p.x, p.y]).toEqual([2400, 1700]);
    const events = tick(w, [], 50);
    expect(w.players.get(c.id)).toBe(p);
    // The grid starts at the zone's corner: what lies near the player is in view.
    const near = [...w.mobs.values()].filter((m) => Math.hypot(m.x - p.x, m.y - p.y) < 200).map((m) => m.id);
    expect(near.length).toBeGreaterThan(0);
    for (const id of near) expect(p.visible.has(id)).toBe(true);
    expect(ofType(events, 'seen').every((e) => e.entity.x >= 2000)).toBe(true);
  });

  it("sends a character saved outside the zone's ground to the zone's spawn", () => {
    const w = ashmoor();
    const p = join(w, player({ zone: 'Ashmoor', x: 500, y: 500 }));
    expect([p.x, p.y]).toEqual([data.zones[1]!.playerSpawn.x, data.zones[1]!.playerSpawn.y]);
  });

  it("refuses a character already in the zone, and a character id past the players' range", () => {
    const w = greenvale();
    const c = player();
    join(w, c);
    expect(() => join(w, c)).toThrow(/already in Greenvale/);
    expect(() => join(w, player({ id: MOB_ID_BASE }))).toThrow(RangeError);
  });

  it("tells the client the zone's corner, its neighbours and their walls near the border", () => {
    const info = zoneInfo(greenvale()).data;
    expect([info.zone, info.x, info.y, info.width, info.height]).toEqual(['Greenvale', 0, 0, 2000, 2000]);
    expect(info.neighbours).toEqual([{ zone: 'Ashmoor', x: 2000, y: 0, width: 2000, height: 2000 }]);
    const own = data.zones[0]!.obstacles.length;
    const across = info.obstacles.slice(own);
    expect(across.length).toBeGreaterThan(0);
    const depth = data.rules.interestRadius * data.rules.interestMargin;
    for (const o of across) expect(o.x).toBeLessThan(2000 + depth);
  });
});

describe('zone files', () => {
  const zone = (over: Record<string, unknown>) => ({
    file: `data/zones/${String(over.name)}.json`,
    json: {
      width: 500,
      height: 500,
      obstacles: [],
      playerSpawn: { x: 50, y: 50 },
      graveyard: { x: 60, y: 60 },
      spawns: [],
      ...over,
    },
  });
  const sources = (...zones: ReturnType<typeof zone>[]) => {
    const base = loadWorldData('data/test');
    return {
      spells: { file: 'spells.json', json: { spells: [...base.spells.values()] } },
      mobs: { file: 'mobs.json', json: { templates: [...base.templates.values()] } },
      character: { file: 'character.json', json: base.character },
      progression: {
        file: 'progression.json',
        json: JSON.parse(readFileSync('data/test/progression.json', 'utf8')) as unknown,
      },
      rules: { file: 'rules.json', json: base.rules },
      zones,
    };
  };

  it('reads a corner, places walls and points in it, and orders zones by number', () => {
    const d = parseWorldData(
      sources(
        zone({
          name: 'East',
          number: 2,
          x: 500,
          playerSpawn: { x: 550, y: 50 },
          graveyard: { x: 560, y: 60 },
        }),
        zone({ name: 'West', number: 1 }),
      ),
    );
    expect(d.zones.map((z) => [z.name, z.x])).toEqual([
      ['West', 0],
      ['East', 500],
    ]);
  });

  it('refuses overlapping zones, a shared number, and a point outside the corner it gives', () => {
    expect(() =>
      parseWorldData(
        sources(
          zone({ name: 'A', number: 1 }),
          zone({
            name: 'B',
            number: 2,
            x: 400,
            playerSpawn: { x: 450, y: 50 },
            graveyard: { x: 460, y: 60 },
          }),
        ),
      ),
    ).toThrow(/overlaps zone A/);
    expect(() =>
      parseWorldData(
        sources(
          zone({ name: 'A', number: 1 }),
          zone({
            name: 'B',
            number: 1,
            x: 500,
            playerSpawn: { x: 550, y: 50 },
            graveyard: { x: 560, y: 60 },
          }),
        ),
      ),
    ).toThrow(/duplicate zone number 1/);
    expect(() => parseWorldData(sources(zone({ name: 'A', x: 500 })))).toThrow(
      /A.json: playerSpawn: expected a point inside the zone/,
    );
  });
});
