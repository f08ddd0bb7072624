import { describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { EnterWorld, ZoneInfo } from '../../shared/protocol/character.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import { ExperienceGain, LevelUp, PlayerStats, WorldUpdate } from '../../shared/protocol/entity.js';

import { MoveAck, PositionCorrection } from '../../shared/protocol/movement.js';
import {
  dequantizeCoord,
  quantizeCoord,
  type EntityRecord,
  type MoveRecord,
} from '../../shared/protocol/records.js';
import { CombatEvent, SpellGo, SpellStart } from '../../shared/protocol/spell.js';
import { HOLD_MS, MAX_RATE } from '../../web-client/src/state/render-clock.js';
import { BLEND_MS, BLEND_SPEED } from '../../web-client/src/state/visual-track.js';
import { LEVEL_UP_MS, type ClientWorld } from '../../web-client/src/state/world.js';
import { openPage, type Page } from './page.js';

const T0 = 1_700_000_000_000;

function enter(overrides: Partial<PayloadOf<typeof EnterWorld>> = {}): PayloadOf<typeof EnterWorld> {
  return {
    zone: 'Vale',
    entityId: 1,
    name: 'Aria',
    x: 100,
    y: 100,
    facing: 0,
    speed: 120,
    level: 3,
    health: 100,
    maxHealth: 100,
    mana: 50,
    maxMana: 50,
    spells: [1],
    serverTime: T0,
    tick: 0,
    interestRadius: 300,
    moveEpoch: 0,
    ...overrides,
  };
}

/** A spawn record and the standing state after it, as the server sends a new entity. */
function spawn(id: number, x: number, y: number, kind: 'player' | 'mob' = 'mob'): EntityRecord[] {
  return [
    {
      kind: 'spawn',
      id,
      entity: kind,
      template: 1,
      name: `E${id}`,
      level: 2,
      health: 50,
      maxHealth: 50,
      speed: 80,
      appearance: 0,
      alive: true,
    },
    move(id, x, y),
  ];
}

function move(id: number, x: number, y: number, over: Partial<MoveRecord> = {}): MoveRecord {
  return { kind: 'move', id, x, y, angle: 0, moving: false, jump: false, speed: undefined, ...over };
}

/** The page behind each world a test made. */
const pages = new WeakMap<ClientWorld, Page>();

/** Encodes packets into one message and feeds it through the page's path: the SDK, then the page. */
function feed(world: ClientWorld, localNow: number, write: (w: Writer) => void): void {
  pages.get(world)!.feed(localNow, write);
}

/** A coordinate as it arrives: records carry them in 1/16-unit steps. */
const q = (v: number): number => dequantizeCoord(quantizeCoord(v));

/** The tick and time of each page's newest WorldUpdate: heads count on from them (EnterWorld's first). */
const sent = new WeakMap<ClientWorld, { tick: number; time: number }>();

/** Writes a WorldUpdate for absolute `tick` and `time`, as its head's deltas from the last. */
function writeUpdate(
  world: ClientWorld,
  w: Writer,
  u: { tick: number; time: number; records: EntityRecord[] },
): void {
  const last = sent.get(world) ?? { tick: 0, time: T0 };
  WorldUpdate.write(w, { tick: u.tick - last.tick, time: u.time - last.time, records: u.records });
  sent.set(world, { tick: u.tick, time: u.time });
}

/** One WorldUpdate of `records` at server time T0 + localNow (a link without delay). */
function update(world: ClientWorld, localNow: number, records: EntityRecord[]): void {
  feed(world, localNow, (w) => writeUpdate(world, w, { tick: localNow, time: T0 + localNow, records }));
}

/**
 * An empty WorldUpdate of T0 + localNow: the page has heard everything the server sent up to
 * then (a quiet tick on a link that is not stalled: the server sends one every tick to a
 * client that sees a walker).
 */
function heard(world: ClientWorld, localNow: number): void {
  update(world, localNow, []);
}

function enteredWorld(obstacles: { x: number; y: number; w: number; h: number }[] = []): ClientWorld {
  const page = openPage();
  const world = page.world;
  pages.set(world, page);
  feed(world, 0, (w) => {
    ZoneInfo.write(w, {
      zone: 'Vale',
      x: 0,
      y: 0,
      width: 1000,
      height: 1000,
      obstacles,
      neighbours: [],
      cellSize: 100,
      respawnDelay: 500,
    });
    EnterWorld.write(w, enter());
    writeUpdate(world, w, {
      tick: 0,
      time: T0,
      records: [...spawn(2, 200, 100, 'player'), ...spawn(1 << 20, 150, 150)],
    });
  });
  return world;
}

describe('client world from server packets', () => {
  it('enters the world with its own character and the spawns around it', () => {
    const world = enteredWorld();
    expect(world.self?.id).toBe(1);
    expect(world.zone?.width).toBe(1000);
    expect([...world.entities.keys()].sort((a, b) => a - b)).toEqual([1, 2, 1 << 20]);
  });

  it('draws remote movers 100 ms behind, between the two states around that time', () => {
    const world = enteredWorld();
    for (let i = 1; i <= 4; i++) {
      feed(world, i * 50, (w) =>
        writeUpdate(world, w, {
          tick: i,
          time: T0 + i * 50,
          records: [move(2, 200 + i * 10, 100, { moving: true, speed: 200 })],
        }),
      );
    }
    const e = world.entities.get(2)!;
    // Local 200 ms reads server T0+200, so the mover is drawn at T0+100: tick 2.
    expect(world.drawnPosition(e, 200).x).toBeCloseTo(220, 0);
    expect(world.drawnPosition(e, 225).x).toBeCloseTo(225, 0);
    // The server has it 25 ms past its newest state (240 at T0+200), walking 200 u/s.
    expect(world.serverPosition(e, 225).x).toBeCloseTo(245, 0);
    world.toggles.interpolation = false;
    expect(world.drawnPosition(e, 200).x).toBeCloseTo(240, 0);
  });

  it('shows a cast bar, then a projectile for the travel time, then a combat text', () => {
    const world = enteredWorld();
    feed(world, 1000, (w) =>
      SpellStart.write(w, { casterId: 2, spellId: 1, targetId: 1 << 20, castTime: 1500 }),
    );
    expect(world.casts.get(2)).toMatchObject({ castTime: 1500, startedAt: 1000 });
    feed(world, 2500, (w) =>
      SpellGo.write(w, { casterId: 2, spellId: 1, targetId: 1 << 20, travelTime: 400 }),
    );
    expect(world.casts.has(2)).toBe(false);
    expect(world.projectiles).toHaveLength(1);
    feed(world, 2900, (w) =>
      CombatEvent.write(w, {
        sourceId: 2,
        targetId: 1 << 20,
        spellId: 1,
        kind: 'damage',
        amount: 40,
        crit: true,
      }),
    );
    world.prune(3000);
    expect(world.projectiles).toHaveLength(0);
    expect(world.combatTexts).toEqual([
      { targetId: 1 << 20, amount: 40, kind: 'damage', crit: true, at: 2900 },
    ]);
    world.prune(5000);
    expect(world.combatTexts).toHaveLength(0);
  });

  it('greys out the dead and forgets the despawned target', () => {
    const world = enteredWorld();
    world.targetId = 1 << 20;
    feed(world, 10, (w) =>
      writeUpdate(world, w, {
        tick: 1,
        time: T0 + 10,
        records: [{ kind: 'death', id: 1 << 20, killerId: 1 }],
      }),
    );
    expect(world.entities.get(1 << 20)).toMatchObject({ alive: false, health: 0 });
    expect(world.diedAt(1 << 20)).toBe(10);
    feed(world, 20, (w) =>
      writeUpdate(world, w, {
        tick: 2,
        time: T0 + 20,
        records: [{ kind: 'despawn', id: 1 << 20, reason: 'corpse' }],
      }),
    );
    expect(world.entities.has(1 << 20)).toBe(false);
    expect(world.targetId).toBeUndefined();
  });

  it('cycles targets with Tab through the living mobs, nearest first, passing over players', () => {
    const world = enteredWorld();
    const far = (1 << 20) + 1;
    feed(world, 20, (w) => writeUpdate(world, w, { tick: 1, time: T0 + 20, records: spawn(far, 100, 220) }));
    expect(world.cycleTarget(0)).toBe(1 << 20); // 70 units away
    expect(world.cycleTarget(0)).toBe(far); // 120 units away; the player 100 away is passed over
    expect(world.cycleTarget(0)).toBe(1 << 20);
  });

  it('cycles targets with Tab through the mobs in sight first: one behind a wall comes after', () => {
    // A wall between the own character (100, 100) and the nearest mob (150, 150).
    const world = enteredWorld([{ x: 120, y: 110, w: 10, h: 60 }]);
    const far = (1 << 20) + 1;
    feed(world, 20, (w) => writeUpdate(world, w, { tick: 1, time: T0 + 20, records: spawn(far, 100, 220) }));
    expect(world.cycleTarget(0)).toBe(far); // 120 units away, in sight
    expect(world.cycleTarget(0)).toBe(1 << 20); // 70 units away, behind the wall
    expect(world.cycleTarget(0)).toBe(far);
  });

  it("rings the selected spell's range and says whether the target stands within it", () => {
    const world = enteredWorld();
    const spell = {
      kind: 'damage' as const,
      castTime: 0,
      cooldown: 0,
      manaCost: 5,
      projectileSpeed: 300,
      min: 1,
      max: 2,
    };
    world.apply(
      {
        name: 'SpellBook',
        value: {
          spells: [
            { ...spell, id: 1, name: 'Far', range: 240, colour: 0xff0000 },
            { ...spell, id: 2, name: 'Near', range: 50, colour: 0x00ff00 },
          ],
        },
      },
      0,
    );
    expect(world.rangeRing(0)).toMatchObject({ radius: 240, colour: 0xff0000, inRange: undefined });
    world.targetId = 1 << 20; // 71 units away
    expect(world.rangeRing(0)?.inRange).toBe(true);
    world.selectedSlot = 1;
    expect(world.rangeRing(0)).toMatchObject({ radius: 50, inRange: false });
    // Pointing at a slot shows its range while the pointer rests there.
    world.previewSlot = 0;
    expect(world.rangeRing(0)).toMatchObject({ radius: 240, inRange: true });
    world.previewSlot = 4;
    expect(world.rangeRing(0)).toBeUndefined();
  });

  it('cycles targets with Tab through the other players while no living mob is in view', () => {
    const world = enteredWorld();
    feed(world, 20, (w) =>
      writeUpdate(world, w, {
        tick: 1,
        time: T0 + 20,
        records: [{ kind: 'despawn', id: 1 << 20, reason: 'outOfRange' }],
      }),
    );
    expect(world.cycleTarget(0)).toBe(2);
    expect(world.cycleTarget(0)).toBe(2);
  });

  it('snaps the own character on a PositionCorrection', () => {
    const world = enteredWorld();
    const pr = world.self!.predictor;
    pr.step(1, 0, 100);
    const sent = pr.takeInput(T0 + 100)!;
    feed(world, 100, (w) =>
      PositionCorrection.write(w, { seq: sent.seq, x: 90, y: 90, facing: 0, reason: 'speed', epoch: 1 }),
    );
    expect(world.drawnPosition(world.selfEntity()!, 100)).toMatchObject({ x: 90, y: 90 });
    expect(pr.corrections).toBe(1);
  });

  it('keeps predicting the own character through an echo of its own move or spawn', () => {
    const world = enteredWorld();
    const pr = world.self!.predictor;
    pr.step(1, 0, 500); // 60 units right of the spawn, not yet acknowledged
    feed(world, 100, (w) =>
      writeUpdate(world, w, {
        tick: 2,
        time: T0 + 100,
        records: [move(1, 100, 100, { moving: true }), ...spawn(1, 100, 100, 'player')],
      }),
    );
    expect(world.drawnPosition(world.selfEntity()!, 100)).toMatchObject({ x: 160, y: 100 });
    expect(world.selfEntity()!.motion).toEqual([]);
    expect(pr.corrections).toBe(0);
  });

  it('walks a remote player to an explicit stop and holds it there, no overshoot', () => {
    const world = enteredWorld();
    update(world, 100, [move(2, 200, 100, { moving: true, speed: 80 })]);
    // It stops short of where it would have walked to (80 u/s for 500 ms: 240).
    update(world, 600, [move(2, 230, 100)]);
    const e = world.entities.get(2)!;
    // Drawn 100 ms behind, at its own speed until it reaches the stop (at T0 + 475), not
    // crept up to it over the whole gap: at local 450 the server time is T0 + 350.
    expect(world.drawnPosition(e, 450).x).toBeCloseTo(200 + 80 * 0.25, 1);
    for (let t = 200; t <= 5_000; t += 25) expect(world.drawnPosition(e, t).x).toBeLessThanOrEqual(q(230));
    expect(world.drawnPosition(e, 700)).toMatchObject({ x: q(230), y: q(100) });
    expect(world.drawnPosition(e, 5_000)).toMatchObject({ x: q(230), y: q(100) });
  });

  it('spawns a walker already walking and a mob on its path from the origin the record gives', () => {
    const world = enteredWorld();
    const [spawnWalker] = spawn(3, 0, 0, 'player');
    const [spawnMob] = spawn((1 << 20) + 1, 0, 0);
    update(world, 100, [
      spawnWalker!,
      move(3, 300, 300, { moving: true, angle: Math.PI / 2 }),
      spawnMob!,
      { kind: 'path', id: (1 << 20) + 1, x: 400, y: 400, speed: 50, waypoints: [{ x: 500, y: 400 }] },
    ]);
    const walker = world.entities.get(3)!;
    const mob = world.entities.get((1 << 20) + 1)!;
    heard(world, 1_050);
    // Local 1 100 draws server T0 + 1 000: 900 ms after the spawn.
    expect(world.drawnPosition(walker, 1_100).x).toBeCloseTo(q(300));
    expect(world.drawnPosition(walker, 1_100).y).toBeCloseTo(q(300) + 80 * 0.9);
    expect(world.drawnPosition(mob, 1_100).x).toBeCloseTo(q(400) + 45, 1);
    expect(world.drawnPosition(mob, 1_100).y).toBeCloseTo(q(400));
  });

  it('shows a walker where the server has it now when interpolation is off', () => {
    const world = enteredWorld();
    update(world, 100, [move(2, 200, 100, { moving: true, speed: 80 })]);
    const e = world.entities.get(2)!;
    world.toggles.interpolation = false;
    // Server time T0 + 600: half a second of walking at 80 u/s since the state.
    expect(world.drawnPosition(e, 600).x).toBeCloseTo(q(200) + 40);
    expect(world.serverPosition(e, 600).x).toBeCloseTo(q(200) + 40);
    update(world, 700, [move(2, 245, 100)]);
    expect(world.drawnPosition(e, 900).x).toBeCloseTo(q(245));
  });

  it('snaps a remote entity on a jump', () => {
    const world = enteredWorld();
    update(world, 100, [move(2, 200, 100, { moving: true, speed: 80 })]);
    update(world, 200, [move(2, 600, 600, { jump: true })]);
    const e = world.entities.get(2)!;
    // Drawn at T0 + 150: between the two states, yet already at the jump's end.
    expect(world.drawnPosition(e, 250)).toMatchObject({ x: q(600), y: q(600) });
  });

  it("applies health records, and the own character's health, death and respawn", () => {
    const world = enteredWorld();
    update(world, 10, [
      { kind: 'health', id: 1 << 20, health: 12, maxHealth: 50 },
      { kind: 'health', id: 1, health: 40, maxHealth: 100 },
    ]);
    expect(world.entities.get(1 << 20)).toMatchObject({ health: 12, maxHealth: 50 });
    expect(world.selfEntity()).toMatchObject({ health: 40 });
    update(world, 20, [{ kind: 'death', id: 1, killerId: 1 << 20 }]);
    expect(world.selfEntity()).toMatchObject({ alive: false, health: 0 });
    const pr = world.self!.predictor;
    pr.step(1, 0, 100);
    update(world, 30, [{ kind: 'respawn', id: 1, x: 500, y: 500, health: 100, maxHealth: 100 }]);
    expect(world.selfEntity()).toMatchObject({ alive: true, health: 100 });
    expect(world.diedAt(1)).toBeUndefined();
    expect(world.drawnPosition(world.selfEntity()!, 30)).toMatchObject({ x: q(500), y: q(500) });
    expect(pr.pending).toHaveLength(0);
  });
});

describe('experience and levels', () => {
  it('shows experience earned over the own character and keeps the own stats for the bar', () => {
    const world = enteredWorld();
    feed(world, 500, (w) => {
      ExperienceGain.write(w, { victimId: 1 << 20, amount: 63 });
      PlayerStats.write(w, {
        mana: 40,
        maxMana: 50,
        level: 3,
        kills: 4,
        experience: 163,
        experienceNeeded: 500,
      });
    });
    expect(world.combatTexts).toEqual([
      { targetId: 1, amount: 63, kind: 'experience', crit: false, at: 500 },
    ]);
    expect(world.stats).toMatchObject({ level: 3, kills: 4, experience: 163, experienceNeeded: 500 });
  });

  it('raises the level beside a name on a LevelUp, with a burst that fades, for itself and others', () => {
    const world = enteredWorld();
    const heard: [number, number, boolean][] = [];
    world.onLevelUp = (e, self) => heard.push([e.entityId, e.level, self]);
    feed(world, 1000, (w) => LevelUp.write(w, { entityId: 2, level: 3 }));
    feed(world, 1200, (w) => LevelUp.write(w, { entityId: 1, level: 4 }));
    expect(world.entities.get(2)?.level).toBe(3);
    expect(world.selfEntity()?.level).toBe(4);
    expect(world.levelUps.map((e) => [e.entityId, e.level])).toEqual([
      [2, 3],
      [1, 4],
    ]);
    expect(heard).toEqual([
      [2, 3, false],
      [1, 4, true],
    ]);
    world.prune(1000 + LEVEL_UP_MS + 100);
    expect(world.levelUps.map((e) => e.entityId)).toEqual([1]);
    world.prune(1200 + LEVEL_UP_MS + 100);
    expect(world.levelUps).toEqual([]);
    // An entity out of view has no level to raise.
    feed(world, 5000, (w) => LevelUp.write(w, { entityId: 77, level: 9 }));
    expect(world.levelUps).toEqual([]);
  });
});

describe('the page draws from the SDK world view', () => {
  /** Draws entity `id` every 16 ms of page time from `from` to `to`; returns the positions. */
  function frames(world: ClientWorld, id: number, from: number, to: number, at?: (t: number) => void) {
    const drawn: { t: number; x: number; y: number }[] = [];
    for (let t = from; t <= to; t += 16) {
      heard(world, t);
      at?.(t);
      const p = world.drawnPosition(world.entities.get(id)!, t);
      drawn.push({ t, x: p.x, y: p.y });
    }
    return drawn;
  }

  const steps = (drawn: { x: number; y: number }[]) =>
    drawn.slice(1).map((p, i) => Math.hypot(p.x - drawn[i]!.x, p.y - drawn[i]!.y));

  it("keeps its entities in the page client's WorldView", () => {
    const world = enteredWorld();
    const page = pages.get(world)!;
    expect(world.view).toBe(page.client.world);
    expect(world.entities).toBe(page.client.world.entities);
    expect(page.client.world.get(2)).toMatchObject({ name: 'E2', kind: 'player' });
  });

  it('glides onto a turn the dead reckoning did not know of instead of jumping', () => {
    const world = enteredWorld();
    update(world, 100, [move(2, 200, 100, { moving: true, speed: 100 })]);
    const e = world.entities.get(2)!;
    let turned = false;
    const drawn = frames(world, 2, 100, 1_200, (t) => {
      // It turned north at T0 + 450 (x 235); the server says so with the state at T0 + 600.
      if (!turned && t >= 600) {
        turned = true;
        update(world, t, [move(2, 235, 115, { moving: true, speed: 100, angle: Math.PI / 2 })]);
      }
    });
    // Drawn at T0 + 500 the new state moves it by ~16 units: glided, at most a few units a frame.
    expect(Math.max(...steps(drawn))).toBeLessThan(4);
    // Once the blend is over it is exactly where the view has it.
    const settled = 600 + (16 * 1000) / BLEND_SPEED + 16;
    const p = world.drawnPosition(e, settled);
    const at = world.view.positionAt(e, world.clock.renderTime(settled));
    expect(p.x).toBeCloseTo(at.x, 6);
    expect(p.y).toBeCloseTo(at.y, 6);
  });

  it('takes a new mob path over from its own time: no hitch where one path meets the next', () => {
    const world = enteredWorld();
    const mob = 1 << 20;
    update(world, 100, [
      { kind: 'path', id: mob, x: 150, y: 150, speed: 100, waypoints: [{ x: 450, y: 150 }] },
    ]);
    let repathed = false;
    // Frames fall on 1 100, when the new path comes.
    const drawn = frames(world, mob, 204, 1_600, (t) => {
      if (!repathed && t >= 1_100) {
        repathed = true;
        // At T0 + 1 100 it is at 250 and turns south.
        update(world, t, [
          { kind: 'path', id: mob, x: 250, y: 150, speed: 100, waypoints: [{ x: 250, y: 450 }] },
        ]);
      }
    });
    // Never faster than it walks (give or take the 1/16-unit coordinates).
    for (const step of steps(drawn)) expect(step).toBeLessThanOrEqual(100 * 0.016 + 0.01);
    const e = world.entities.get(mob)!;
    expect(world.drawnPosition(e, 1_200)).toMatchObject({ x: q(250), y: q(150) });
    expect(world.drawnPosition(e, 1_300).y).toBeCloseTo(q(150) + 10);
  });

  it('never draws a walker past its stop, frame by frame as the states arrive', () => {
    const world = enteredWorld();
    update(world, 100, [move(2, 200, 100, { moving: true, speed: 80 })]);
    let stopped = false;
    const drawn = frames(world, 2, 100, 2_000, (t) => {
      if (!stopped && t >= 600) {
        stopped = true;
        // It stopped where walking took it (80 u/s for 500 ms) as the state was made.
        update(world, t, [move(2, 240, 100)]);
      }
    });
    expect(Math.max(...drawn.map((p) => p.x))).toBeLessThanOrEqual(q(240));
    expect(drawn.at(-1)).toMatchObject({ x: q(240), y: q(100) });
  });

  it('holds a walker whose link stalled where it was at the newest time heard, then catches up smoothly', () => {
    const world = enteredWorld();
    update(world, 100, [move(2, 200, 100, { moving: true, speed: 80 })]);
    const e = world.entities.get(2)!;
    // Nothing more is heard: the walker is drawn no further than HOLD_MS past T0 + 100 (a
    // tick short of it: where its state, heard at T0 + 100, begins).
    const held = q(200) + (80 * Math.max(0, HOLD_MS)) / 1000;
    expect(world.drawnPosition(e, 100 + HOLD_MS + 100).x).toBeCloseTo(held);
    expect(world.drawnPosition(e, 1_000).x).toBeCloseTo(held);
    expect(world.clock.holding(1_000)).toBe(true);
    // The stall ends: it had walked on, and its heartbeats say so.
    const drawn: number[] = [];
    for (let t = 1_100; t <= 8_000; t += 16) {
      if ((t - 1_100) % 1_000 < 16)
        update(world, t, [move(2, q(200) + 0.08 * (t - 100), 100, { moving: true, speed: 80 })]);
      heard(world, t);
      drawn.push(world.drawnPosition(e, t).x);
    }
    const steps = drawn.slice(1).map((x, i) => x - drawn[i]!);
    // No jump and no step back: it catches up at most MAX_RATE times its speed.
    for (const step of steps) {
      expect(step).toBeGreaterThanOrEqual(-1e-9);
      expect(step).toBeLessThanOrEqual(80 * 0.016 * MAX_RATE + 0.02);
    }
    expect(world.clock.holding(8_000)).toBe(false);
    // And is drawn the interpolation delay behind the server again.
    expect(drawn.at(-1)).toBeCloseTo(q(200) + 0.08 * (8_000 - 100 - world.clock.delayMs), 0);
  });

  it('holds nothing while only mobs walk their paths, however quiet the link', () => {
    const world = enteredWorld();
    const mob = 1 << 20;
    // The other player leaves the view: with none in view the server sends nothing on quiet ticks.
    update(world, 100, [
      { kind: 'despawn', id: 2, reason: 'outOfRange' },
      { kind: 'path', id: mob, x: 150, y: 150, speed: 100, waypoints: [{ x: 450, y: 150 }] },
    ]);
    const e = world.entities.get(mob)!;
    world.prune(1_100);
    expect(world.remotePlayers).toBe(false);
    expect(world.clock.holding(1_100)).toBe(false);
    // Local 1 100 draws T0 + 1 000: 90 units along, though nothing was heard since T0 + 100.
    expect(world.drawnPosition(e, 1_100).x).toBeCloseTo(q(150) + 90, 0);
  });

  it('sends its movement states through the SDK: one MoveInput sequence, acked by MoveAck', () => {
    const world = enteredWorld();
    const page = pages.get(world)!;
    const pr = world.self!.predictor;
    const send = (t: number) =>
      pr.takeInput(T0 + t, (s) => page.client.sendMove(s.x, s.y, s.facing, s.moving, s.speed));
    let t = 0;
    for (; t < 1_000; t += 16) {
      pr.step(1, 0, 16);
      send(t);
    }
    pr.step(0, 0, 16);
    send(t);
    const moves = page.sent
      .filter((m) => m.name === 'MoveInput')
      .map((m) => m.payload as { seq: number; moving: boolean; x: number });
    expect(moves.length).toBeGreaterThan(2);
    expect(moves.map((m) => m.seq)).toEqual(moves.map((_, i) => i + 1));
    expect(pr.pending.map((i) => i.seq)).toEqual(moves.map((m) => m.seq));
    expect(page.client.lastMoveSeq).toBe(moves.length);
    expect(moves[0]!.moving).toBe(true);
    expect(moves.at(-1)!.moving).toBe(false);
    expect(moves.at(-1)!.x).toBeCloseTo(pr.x, 3);
    feed(world, t, (w) => MoveAck.write(w, { seq: moves.length }));
    expect(pr.pending).toHaveLength(0);
    expect(pr.confirmed).toEqual({ x: pr.x, y: pr.y });
    expect(pr.corrections).toBe(0);
    // The view's own entity follows the prediction.
    world.prune(t);
    expect(world.selfEntity()).toMatchObject({ x: pr.x, y: pr.y });
  });

  it('glides the own character onto a small correction and snaps a large one', () => {
    const world = enteredWorld();
    const me = world.selfEntity()!;
    expect(world.drawnPosition(me, 10)).toMatchObject({ x: 100, y: 100 });
    feed(world, 20, (w) =>
      PositionCorrection.write(w, { seq: 0, x: 96, y: 100, facing: 0, reason: 'speed', epoch: 1 }),
    );
    expect(world.drawnPosition(me, 20).x).toBeCloseTo(100);
    expect(world.drawnPosition(me, 20 + BLEND_MS / 2).x).toBeCloseTo(98);
    expect(world.drawnPosition(me, 20 + BLEND_MS).x).toBe(96);
    feed(world, 500, (w) =>
      PositionCorrection.write(w, { seq: 0, x: 400, y: 400, facing: 0, reason: 'obstacle', epoch: 2 }),
    );
    expect(world.drawnPosition(me, 500)).toMatchObject({ x: 400, y: 400 });
    expect(world.self!.predictor.corrections).toBe(2);
  });
});
