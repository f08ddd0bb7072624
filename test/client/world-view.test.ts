import { describe, expect, it } from 'vitest';
import { sampleMotion, WorldView, type WorldChange } from '../../shared/client/world-view.js';
import { MAX_DEAD_RECKON_MS } from '../../shared/game/motion.js';
import { MOB_ID_BASE } from '../../shared/protocol/common.js';
import {
  MAX_PATH_POINTS,
  type EntityRecord,
  type MoveRecord,
  type PathRecord,
  type SpawnRecord,
} from '../../shared/protocol/records.js';
import { enterWorld, moveRecord, spawnRecord } from './fake-server.js';

const WOLF = MOB_ID_BASE + 4;
const SELF = 12;

/** A spawn record and the standing state after it, as the server sends a new entity. */
function spawned(
  over: Partial<Omit<SpawnRecord, 'kind'>> & { x?: number; y?: number; facing?: number } = {},
): EntityRecord[] {
  const { x = 800, y = 400, facing = 0, ...rest } = over;
  const id = rest.id ?? WOLF;
  return [spawnRecord({ id, ...rest }), moveRecord(id, x, y, { angle: facing })];
}

function path(
  id: number,
  x: number,
  y: number,
  speed: number,
  waypoints: PathRecord['waypoints'],
): PathRecord {
  return { kind: 'path', id, x, y, speed, waypoints };
}

function walking(id: number, x: number, y: number, angle: number, speed?: number): MoveRecord {
  return moveRecord(id, x, y, { moving: true, angle, speed });
}

function viewWithSelf(): { view: WorldView; changes: WorldChange[] } {
  const view = new WorldView();
  const changes: WorldChange[] = [];
  view.onChange((c) => changes.push(c));
  view.enter(enterWorld({ entityId: SELF, name: 'Ayla', x: 100, y: 100 }));
  return { view, changes };
}

describe('WorldView', () => {
  it('holds the self entity from EnterWorld', () => {
    const { view, changes } = viewWithSelf();
    expect(view.selfId).toBe(SELF);
    expect(view.self).toMatchObject({
      name: 'Ayla',
      kind: 'player',
      self: true,
      x: 100,
      y: 100,
      alive: true,
    });
    expect(view.stats).toEqual({
      mana: 50,
      maxMana: 50,
      level: 1,
      kills: 0,
      experience: 0,
      experienceNeeded: 0,
    });
    expect(changes.map((c) => c.type)).toEqual(['enter']);
  });

  it('raises the level of an entity in view (or its own) on LevelUp and reports it; keeps experience from PlayerStats', () => {
    const { view, changes } = viewWithSelf();
    view.applyRecords(spawned({ id: 40, entity: 'player', level: 2 }), 1000);
    view.apply('LevelUp', { entityId: 40, level: 3 }, 1100);
    view.apply('LevelUp', { entityId: SELF, level: 2 }, 1100);
    view.apply('LevelUp', { entityId: 999, level: 9 }, 1100);
    expect(view.get(40)?.level).toBe(3);
    expect(view.self?.level).toBe(2);
    expect(changes.flatMap((c) => (c.type === 'levelUp' ? [[c.entity.id, c.entity.level]] : []))).toEqual([
      [40, 3],
      [SELF, 2],
    ]);
    view.apply(
      'PlayerStats',
      { mana: 40, maxMana: 55, level: 2, kills: 3, experience: 12, experienceNeeded: 350 },
      1200,
    );
    expect(view.stats).toMatchObject({ level: 2, experience: 12, experienceNeeded: 350 });
  });

  it('adds a spawned entity with all its fields, placed by the move after it, and reports it once', () => {
    const { view, changes } = viewWithSelf();
    view.applyRecords(spawned({ facing: 1 }), 5_000);
    expect(view.get(WOLF)).toMatchObject({
      name: 'Grey Wolf',
      kind: 'mob',
      template: 3,
      level: 5,
      health: 80,
      speed: 100,
      x: 800,
      y: 400,
      facing: 1,
      updatedAt: 5_000,
    });
    // The spawn's motion record is part of the spawn, not a move of its own.
    expect(changes.slice(1).map((c) => c.type)).toEqual(['spawn']);
    expect(changes.at(-1)).toMatchObject({ type: 'spawn', entity: { id: WOLF } });
  });

  it('spawns a walker already walking and a pathing mob on its path', () => {
    const { view } = viewWithSelf();
    view.applyRecords([spawnRecord({ id: WOLF }), walking(WOLF, 0, 0, 0)], 1_000);
    view.applyRecords([spawnRecord({ id: WOLF + 1 }), path(WOLF + 1, 0, 0, 50, [{ x: 0, y: 100 }])], 1_000);
    expect(view.positionAt(view.get(WOLF)!, 1_500)).toMatchObject({ x: 50, y: 0 });
    const pathing = view.positionAt(view.get(WOLF + 1)!, 2_000);
    expect(pathing.x).toBeCloseTo(0);
    expect(pathing.y).toBeCloseTo(50);
  });

  it('moves an entity and stamps the update time', () => {
    const { view } = viewWithSelf();
    view.applyRecords(spawned(), 5_000);
    view.applyRecords([moveRecord(WOLF, 810, 420, { angle: 1 })], 5_050);
    expect(view.get(WOLF)).toMatchObject({ x: 810, y: 420, facing: 1, updatedAt: 5_050 });
  });

  it('ignores updates for entities it never saw spawn', () => {
    const { view, changes } = viewWithSelf();
    view.applyRecords(
      [
        moveRecord(999, 1, 1),
        { kind: 'health', id: 999, health: 1, maxHealth: 2 },
        { kind: 'death', id: 999, killerId: 0 },
        { kind: 'despawn', id: 999, reason: 'left' },
      ],
      0,
    );
    expect(view.get(999)).toBeUndefined();
    expect(changes).toHaveLength(1);
  });

  it('removes a despawned entity and keeps the self entity', () => {
    const { view, changes } = viewWithSelf();
    view.applyRecords(spawned(), 0);
    view.applyRecords(
      [
        { kind: 'despawn', id: SELF, reason: 'left' },
        { kind: 'despawn', id: WOLF, reason: 'outOfRange' },
      ],
      0,
    );
    expect(view.get(WOLF)).toBeUndefined();
    expect(view.self).toBeDefined();
    expect(changes.at(-1)).toMatchObject({ type: 'despawn', reason: 'outOfRange' });
  });

  it('despawns and spawns again in one update (a corpse replaced by a fresh mob)', () => {
    const { view } = viewWithSelf();
    view.applyRecords(spawned({ alive: false, health: 0 }), 0);
    view.applyRecords([{ kind: 'despawn', id: WOLF, reason: 'corpse' }, ...spawned({ x: 10, y: 20 })], 1_000);
    expect(view.get(WOLF)).toMatchObject({ alive: true, health: 80, x: 10, y: 20, updatedAt: 1_000 });
  });

  it('places a pathing mob along its waypoints at a server time', () => {
    const { view } = viewWithSelf();
    view.applyRecords(spawned({ x: 0, y: 0 }), 0);
    view.applyRecords(
      [
        path(WOLF, 0, 0, 100, [
          { x: 100, y: 0 },
          { x: 100, y: 100 },
        ]),
      ],
      10_000,
    );
    const wolf = view.get(WOLF)!;
    expect(view.positionAt(wolf, 9_000)).toMatchObject({ x: 0, y: 0 });
    expect(view.positionAt(wolf, 10_500)).toMatchObject({ x: 50, y: 0 });
    const turned = view.positionAt(wolf, 11_500);
    expect(turned.x).toBeCloseTo(100);
    expect(turned.y).toBeCloseTo(50);
    expect(turned.facing).toBeCloseTo(Math.PI / 2);
    expect(view.positionAt(wolf, 60_000)).toMatchObject({ x: 100, y: 100 });
  });

  it('starts a new path from the origin its record gives', () => {
    const { view } = viewWithSelf();
    view.applyRecords(spawned({ x: 0, y: 0 }), 0);
    view.applyRecords([path(WOLF, 0, 0, 100, [{ x: 200, y: 0 }])], 0);
    view.applyRecords([path(WOLF, 100, 0, 50, [{ x: 100, y: 100 }])], 1_000);
    const wolf = view.get(WOLF)!;
    expect(wolf.path?.from).toEqual({ x: 100, y: 0 });
    expect(wolf.speed).toBe(50);
    expect(view.positionAt(wolf, 2_000)).toMatchObject({ x: 100, y: 50 });
  });

  it('advances walkers and drops finished paths', () => {
    const { view } = viewWithSelf();
    view.applyRecords(spawned({ x: 0, y: 0 }), 0);
    view.applyRecords(
      [
        path(WOLF, 0, 0, 100, [
          { x: 100, y: 0 },
          { x: 100, y: 100 },
        ]),
      ],
      0,
    );
    view.advance(500);
    const wolf = view.get(WOLF)!;
    expect(wolf).toMatchObject({ x: 50, y: 0, updatedAt: 500 });
    expect(view.positionAt(wolf, 1_500)).toMatchObject({ x: 100, y: 50 });
    view.advance(5_000);
    expect(wolf).toMatchObject({ x: 100, y: 100 });
    expect(wolf.path).toBeUndefined();
  });

  it('lets a server move override a path', () => {
    const { view } = viewWithSelf();
    view.applyRecords(spawned({ x: 0, y: 0 }), 0);
    view.applyRecords([path(WOLF, 0, 0, 100, [{ x: 100, y: 0 }])], 0);
    view.applyRecords([moveRecord(WOLF, 30, 30)], 200);
    const wolf = view.get(WOLF)!;
    expect(wolf.path).toBeUndefined();
    expect(view.positionAt(wolf, 5_000)).toMatchObject({ x: 30, y: 30 });
  });

  it('tracks health, death and respawn', () => {
    const { view, changes } = viewWithSelf();
    view.applyRecords(spawned(), 0);
    view.applyRecords([{ kind: 'health', id: WOLF, health: 20, maxHealth: 80 }], 0);
    expect(view.get(WOLF)).toMatchObject({ health: 20, alive: true });
    view.applyRecords([{ kind: 'death', id: WOLF, killerId: SELF }], 0);
    expect(view.get(WOLF)).toMatchObject({ health: 0, alive: false });
    expect(changes.at(-1)).toMatchObject({ type: 'death', killerId: SELF });
    view.applyRecords([{ kind: 'respawn', id: WOLF, x: 5, y: 6, health: 80, maxHealth: 80 }], 10);
    expect(view.get(WOLF)).toMatchObject({ alive: true, x: 5, y: 6, health: 80 });
    expect(view.positionAt(view.get(WOLF)!, 1_000)).toMatchObject({ x: 5, y: 6 });
  });

  it('stops a walker where it died', () => {
    const { view } = viewWithSelf();
    view.applyRecords([spawnRecord({ id: WOLF }), walking(WOLF, 0, 0, 0)], 1_000);
    view.applyRecords([{ kind: 'death', id: WOLF, killerId: SELF }], 1_500);
    const wolf = view.get(WOLF)!;
    expect(wolf).toMatchObject({ x: 50, y: 0, alive: false });
    expect(view.positionAt(wolf, 3_000)).toMatchObject({ x: 50, y: 0 });
  });

  it('finds the nearest living mob and never the self entity', () => {
    const { view } = viewWithSelf();
    view.applyRecords(
      [
        ...spawned({ id: SELF + 1, entity: 'player', x: 101, y: 100 }),
        ...spawned({ id: WOLF, x: 300, y: 100 }),
        ...spawned({ id: WOLF + 1, x: 150, y: 100, alive: false }),
        ...spawned({ id: WOLF + 2, x: 200, y: 100 }),
      ],
      0,
    );
    const near = view.nearest(view.self!, 0, (e) => e.kind === 'mob' && e.alive);
    expect(near?.id).toBe(WOLF + 2);
  });

  it('keeps the predicted self position when the server spawns the self entity', () => {
    const { view, changes } = viewWithSelf();
    view.setSelfPosition(140, 100, 0, 0);
    view.applyRecords(
      [...spawned({ id: SELF, entity: 'player', name: 'Ayla', x: 100, y: 100 }), ...spawned()],
      0,
    );
    expect(view.self).toMatchObject({ x: 140, self: true });
    // The self spawn's move record went with it; the wolf after it still spawned.
    expect(changes.slice(1).map((c) => c.type)).toEqual(['spawn']);
    expect(view.get(WOLF)).toBeDefined();
  });

  it('snaps the self entity on a correction and reports acks', () => {
    const { view, changes } = viewWithSelf();
    view.apply('MoveAck', { seq: 4 }, 0);
    view.apply('PositionCorrection', { seq: 5, x: 90, y: 95, facing: 0, reason: 'obstacle' }, 0);
    expect(view.lastAckedSeq).toBe(4);
    expect(view.self).toMatchObject({ x: 90, y: 95 });
    expect(changes.slice(-2).map((c) => c.type)).toEqual(['ack', 'correction']);
  });

  it('updates the own stats and level from PlayerStats', () => {
    const { view } = viewWithSelf();
    view.apply('PlayerStats', { mana: 10, maxMana: 60, level: 2, kills: 3 }, 0);
    expect(view.stats).toEqual({ mana: 10, maxMana: 60, level: 2, kills: 3 });
    expect(view.self?.level).toBe(2);
  });
});

describe('WorldView movement states', () => {
  /** A wolf spawned standing at the origin at t=0, speed 100. */
  function wolfView() {
    const { view, changes } = viewWithSelf();
    view.applyRecords(spawned({ x: 0, y: 0 }), 0);
    return { view, changes, wolf: view.get(WOLF)! };
  }

  it('walks up to an explicit stop at its own speed and holds it there, never past the stop', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    // The server says it stopped short of where dead reckoning had it (100 units by 2 000):
    // walking at 100 u/s it got there at 1 800, and stood from then on.
    view.applyRecords([moveRecord(WOLF, 80, 0)], 2_000);
    for (let t = 1_000; t <= 2_000; t += 50) {
      const p = view.positionAt(wolf, t);
      expect(p.x).toBeCloseTo(Math.min(80, (100 * (t - 1_000)) / 1_000));
      expect(p.y).toBe(0);
    }
    expect(view.positionAt(wolf, 2_000)).toMatchObject({ x: 80, y: 0 });
    for (let t = 1_000; t <= 10_000; t += 37) expect(view.positionAt(wolf, t).x).toBeLessThanOrEqual(80);
    for (const t of [2_000, 2_001, 2_500, 3_000 + MAX_DEAD_RECKON_MS, 60_000]) {
      expect(view.positionAt(wolf, t)).toMatchObject({ x: 80, y: 0 });
    }
  });

  it('lands exactly on a stop that comes after the walker was dead-reckoned past it', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, Math.PI / 2)], 1_000);
    // Before the stop arrives the walker is dead-reckoned...
    expect(view.positionAt(wolf, 1_600).y).toBeCloseTo(60);
    // ...and once it arrives the history says where it really was: no overshoot anywhere.
    view.applyRecords([moveRecord(WOLF, 0, 40, { angle: Math.PI / 2 })], 1_400);
    expect(view.positionAt(wolf, 1_200).y).toBeCloseTo(20);
    expect(view.positionAt(wolf, 1_400).y).toBeCloseTo(40);
    expect(view.positionAt(wolf, 1_600).y).toBeCloseTo(40);
    expect(view.positionAt(wolf, 1_600).facing).toBeCloseTo(Math.PI / 2);
  });

  it('dead-reckons past the newest walking state and holds once it is MAX_DEAD_RECKON_MS old', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 10, 20, 0)], 1_000);
    expect(view.positionAt(wolf, 1_000)).toMatchObject({ x: 10, y: 20 });
    expect(view.positionAt(wolf, 1_250).x).toBeCloseTo(35);
    expect(view.positionAt(wolf, 2_000).x).toBeCloseTo(110);
    const held = 10 + (100 * MAX_DEAD_RECKON_MS) / 1_000;
    expect(view.positionAt(wolf, 1_000 + MAX_DEAD_RECKON_MS).x).toBeCloseTo(held);
    expect(view.positionAt(wolf, 1_000 + MAX_DEAD_RECKON_MS + 1).x).toBeCloseTo(held);
    expect(view.positionAt(wolf, 60_000)).toMatchObject({ y: 20 });
    expect(view.positionAt(wolf, 60_000).x).toBeCloseTo(held);
  });

  it("dead-reckons at the record's speed when it has one, else at the spawn's", () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0, 40)], 1_000);
    expect(view.positionAt(wolf, 1_500).x).toBeCloseTo(20);
    view.applyRecords([walking(WOLF, 20, 0, 0)], 1_500);
    expect(view.positionAt(wolf, 2_000).x).toBeCloseTo(70);
  });

  it('follows a heartbeat and a turn between states', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    view.applyRecords([walking(WOLF, 100, 0, Math.PI / 2)], 2_000);
    view.applyRecords([walking(WOLF, 100, 50, Math.PI / 2)], 2_500);
    expect(view.positionAt(wolf, 1_500)).toMatchObject({ x: 50, y: 0, facing: 0 });
    const mid = view.positionAt(wolf, 2_250);
    expect(mid.x).toBeCloseTo(100);
    expect(mid.y).toBeCloseTo(25);
    expect(mid.facing).toBeCloseTo(Math.PI / 2);
    expect(view.positionAt(wolf, 3_000).y).toBeCloseTo(100);
  });

  it('snaps on a jump instead of blending from the old state', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    view.applyRecords([moveRecord(WOLF, 500, 500, { jump: true })], 1_500);
    for (const t of [1_000, 1_250, 1_500, 5_000]) {
      expect(view.positionAt(wolf, t)).toMatchObject({ x: 500, y: 500 });
    }
    // A stop within walking reach without JUMP is walked up to (the contrast the flag exists for).
    const other = wolfView();
    other.view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    other.view.applyRecords([moveRecord(WOLF, 40, 0)], 1_500);
    expect(other.view.positionAt(other.wolf, 1_250).x).toBeCloseTo(25);
  });

  it('forgets a state when the next one is out of walking reach of it', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    // A state dated (100, 0) at 2 000, then one 50 ms later that says it had turned south at
    // (40, 0): 60 units back in 50 ms.
    view.applyRecords([walking(WOLF, 100, 0, 0)], 2_000);
    view.applyRecords([walking(WOLF, 40, 100, Math.PI / 2)], 2_050);
    let prev = view.positionAt(wolf, 1_000);
    for (let t = 1_010; t <= 2_050; t += 10) {
      const p = view.positionAt(wolf, t);
      // Never faster than one and a half times its walk between two samples.
      expect(Math.hypot(p.x - prev.x, p.y - prev.y)).toBeLessThanOrEqual(1.5 + 1e-6);
      prev = p;
    }
    expect(view.positionAt(wolf, 2_050)).toMatchObject({ x: 40, y: 100 });
  });

  it('starts a walker when it left its spot, not when its previous state was made', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([moveRecord(WOLF, 0, 0)], 1_000);
    // Standing since 1 000; at 3 000 it is 50 units on at 100 u/s: it left at 2 500.
    view.applyRecords([walking(WOLF, 50, 0, 0)], 3_000);
    expect(view.positionAt(wolf, 2_000).x).toBe(0);
    expect(view.positionAt(wolf, 2_500).x).toBeCloseTo(0);
    expect(view.positionAt(wolf, 2_750).x).toBeCloseTo(25);
    expect(view.positionAt(wolf, 3_000).x).toBeCloseTo(50);
  });

  it('places a stop where and when its client sent it, though its update came late', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    // It reached (50, 0) at 1 500 and stood: the update carrying the stop left 150 ms later.
    view.applyRecords([{ ...moveRecord(WOLF, 50, 0), age: 150 }], 1_650);
    // It left again at 1 550: the start came in the next update, 150 ms old too.
    view.applyRecords([{ ...walking(WOLF, 50, 0, 0), age: 150 }], 1_700);
    let prev = view.positionAt(wolf, 1_000);
    for (let t = 1_010; t <= 1_700; t += 10) {
      const p = view.positionAt(wolf, t);
      // Never faster than it walks (1 unit per 10 ms): no running on past the stop and back.
      expect(Math.hypot(p.x - prev.x, p.y - prev.y)).toBeLessThanOrEqual(1 + 1e-6);
      prev = p;
    }
    expect(view.positionAt(wolf, 1_250).x).toBeCloseTo(25);
    expect(view.positionAt(wolf, 1_500).x).toBeCloseTo(50);
    expect(view.positionAt(wolf, 1_525).x).toBeCloseTo(50);
    expect(view.positionAt(wolf, 1_550).x).toBeCloseTo(50);
    expect(view.positionAt(wolf, 1_600).x).toBeCloseTo(55);
    expect(view.positionAt(wolf, 1_700).x).toBeCloseTo(65);
  });

  it('turns where the two legs meet, at a steady speed through the turn', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    // East, then north from (40, 0) at 1 400: at 2 000 it is at (40, 60).
    view.applyRecords([walking(WOLF, 40, 60, Math.PI / 2)], 2_000);
    const corner = view.positionAt(wolf, 1_400);
    expect(corner.x).toBeCloseTo(40);
    expect(corner.y).toBeCloseTo(0);
    let prev = view.positionAt(wolf, 1_000);
    for (let t = 1_010; t <= 2_000; t += 10) {
      const p = view.positionAt(wolf, t);
      expect(Math.hypot(p.x - prev.x, p.y - prev.y)).toBeCloseTo(1, 1);
      prev = p;
    }
  });

  it('lets a later state of the same time replace the earlier one', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    view.applyRecords([moveRecord(WOLF, 5, 0)], 1_000);
    expect(wolf.motion).toHaveLength(2);
    expect(view.positionAt(wolf, 3_000)).toMatchObject({ x: 5, y: 0 });
  });

  it('forgets states older than the one in force when advanced', () => {
    const { view, wolf } = wolfView();
    for (let i = 1; i <= 5; i++) view.applyRecords([walking(WOLF, (i - 1) * 100, 0, 0)], i * 1_000);
    expect(wolf.motion).toHaveLength(6);
    view.advance(5_000, 3_500);
    expect(wolf.motion.map((s) => s.t)).toEqual([3_000, 4_000, 5_000]);
    expect(view.positionAt(wolf, 3_500).x).toBeCloseTo(250);
  });

  it('ignores movement records about the self entity but applies its health, death and respawn', () => {
    const { view, changes } = viewWithSelf();
    view.setSelfPosition(140, 100, 0, 0);
    const before = changes.length;
    view.applyRecords(
      [walking(SELF, 300, 300, 1), moveRecord(SELF, 400, 400, { jump: true }), path(SELF, 0, 0, 50, [])],
      1_000,
    );
    expect(view.self).toMatchObject({ x: 140, y: 100, facing: 0 });
    expect(view.self!.motion).toEqual([]);
    expect(view.self!.path).toBeUndefined();
    expect(changes.length).toBe(before);

    view.applyRecords([{ kind: 'health', id: SELF, health: 30, maxHealth: 100 }], 1_100);
    expect(view.self).toMatchObject({ health: 30, alive: true });
    view.applyRecords([{ kind: 'death', id: SELF, killerId: WOLF }], 1_200);
    expect(view.self).toMatchObject({ health: 0, alive: false, x: 140, y: 100 });
    view.applyRecords([{ kind: 'respawn', id: SELF, x: 50, y: 60, health: 100, maxHealth: 100 }], 1_300);
    expect(view.self).toMatchObject({ alive: true, x: 50, y: 60, health: 100 });
    expect(changes.slice(before).map((c) => c.type)).toEqual(['health', 'death', 'respawn']);
  });

  it('takes a new path over from its own time: earlier times still follow the old one', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([path(WOLF, 0, 0, 100, [{ x: 200, y: 0 }])], 1_000);
    // A chase re-plans at 2 000, where the old path had brought the wolf.
    view.applyRecords([path(WOLF, 100, 0, 100, [{ x: 100, y: 100 }])], 2_000);
    expect(view.positionAt(wolf, 1_500)).toMatchObject({ x: 50, y: 0, facing: 0 });
    expect(view.positionAt(wolf, 2_000)).toMatchObject({ x: 100, y: 0 });
    const turned = view.positionAt(wolf, 2_500);
    expect(turned.x).toBeCloseTo(100);
    expect(turned.y).toBeCloseTo(50);
    expect(turned.facing).toBeCloseTo(Math.PI / 2);
    expect(view.positionAt(wolf, 9_000)).toMatchObject({ x: 100, y: 100 });
  });

  it('stops a path where a move says, keeping the path before it', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([path(WOLF, 0, 0, 100, [{ x: 1_000, y: 0 }])], 0);
    view.applyRecords([moveRecord(WOLF, 50, 0)], 500);
    expect(view.positionAt(wolf, 250).x).toBeCloseTo(25);
    expect(view.positionAt(wolf, 5_000)).toMatchObject({ x: 50, y: 0 });
    expect(wolf.path).toBeUndefined();
  });

  it('keeps what came before a death for times drawn before it', () => {
    const { view, wolf } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    view.applyRecords([{ kind: 'death', id: WOLF, killerId: SELF }], 1_500);
    expect(view.positionAt(wolf, 1_250).x).toBeCloseTo(25);
    expect(view.positionAt(wolf, 9_000)).toMatchObject({ x: 50, y: 0 });
  });

  it('says which moves are jumps, so a renderer knows to snap', () => {
    const { view, changes } = wolfView();
    view.applyRecords([walking(WOLF, 0, 0, 0)], 1_000);
    view.applyRecords([moveRecord(WOLF, 500, 500, { jump: true })], 1_500);
    const moves = changes.filter((c) => c.type === 'move');
    expect(moves.map((c) => c.type === 'move' && c.jump)).toEqual([false, true]);
  });

  it('keeps a long path whole: every waypoint is a state', () => {
    const { view, wolf } = wolfView();
    const waypoints = Array.from({ length: MAX_PATH_POINTS }, (_, i) => ({ x: (i + 1) * 10, y: 0 }));
    view.applyRecords([path(WOLF, 0, 0, 10, waypoints)], 0);
    expect(view.positionAt(wolf, 500).x).toBeCloseTo(5);
    expect(view.positionAt(wolf, 15_500).x).toBeCloseTo(155);
    expect(view.positionAt(wolf, 99_000).x).toBeCloseTo(MAX_PATH_POINTS * 10);
  });
});

describe('sampleMotion', () => {
  it('is undefined without states and holds the first before it', () => {
    expect(sampleMotion([], 5)).toBeUndefined();
    const s = { x: 3, y: 4, t: 100, moving: true, angle: 0, speed: 10 };
    expect(sampleMotion([s], 50)).toEqual({ x: 3, y: 4, facing: 0 });
  });

  it('stands still on a standing state however old it is', () => {
    const s = { x: 3, y: 4, t: 100, moving: false, angle: 2, speed: 0 };
    expect(sampleMotion([s], 1e9)).toEqual({ x: 3, y: 4, facing: 2 });
  });
});
