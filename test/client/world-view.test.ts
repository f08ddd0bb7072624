import { describe, expect, it } from 'vitest';
import { WorldView, type SpawnPayload, type WorldChange } from '../../shared/client/world-view.js';
import { MOB_ID_BASE } from '../../shared/protocol/common.js';
import { enterWorld } from './fake-server.js';

const WOLF = MOB_ID_BASE + 4;

function spawn(over: Partial<SpawnPayload> = {}): SpawnPayload {
  return {
    id: WOLF,
    kind: 'mob',
    template: 3,
    name: 'Grey Wolf',
    level: 5,
    health: 80,
    maxHealth: 80,
    x: 800,
    y: 400,
    facing: 0,
    speed: 100,
    appearance: 0,
    alive: true,
    ...over,
  };
}

function viewWithSelf(): { view: WorldView; changes: WorldChange[] } {
  const view = new WorldView();
  const changes: WorldChange[] = [];
  view.onChange((c) => changes.push(c));
  view.enter(enterWorld({ entityId: 12, name: 'Ayla', x: 100, y: 100 }));
  return { view, changes };
}

describe('WorldView', () => {
  it('holds the self entity from EnterWorld', () => {
    const { view, changes } = viewWithSelf();
    expect(view.selfId).toBe(12);
    expect(view.self).toMatchObject({
      name: 'Ayla',
      kind: 'player',
      self: true,
      x: 100,
      y: 100,
      alive: true,
    });
    expect(view.stats).toEqual({ mana: 50, maxMana: 50, level: 1, kills: 0 });
    expect(changes.map((c) => c.type)).toEqual(['enter']);
  });

  it('adds a spawned entity with all its fields and reports it', () => {
    const { view, changes } = viewWithSelf();
    view.spawn(spawn(), 5_000);
    expect(view.get(WOLF)).toMatchObject({
      name: 'Grey Wolf',
      kind: 'mob',
      level: 5,
      x: 800,
      y: 400,
      updatedAt: 5_000,
    });
    expect(changes.at(-1)).toMatchObject({ type: 'spawn', entity: { id: WOLF } });
  });

  it('moves an entity and stamps the update time', () => {
    const { view } = viewWithSelf();
    view.spawn(spawn(), 5_000);
    view.apply('EntityMove', { id: WOLF, x: 810, y: 420, facing: 1 }, 5_050);
    expect(view.get(WOLF)).toMatchObject({ x: 810, y: 420, facing: 1, updatedAt: 5_050 });
  });

  it('ignores updates for entities it never saw spawn', () => {
    const { view, changes } = viewWithSelf();
    view.move({ id: 999, x: 1, y: 1, facing: 0 }, 0);
    view.health({ id: 999, health: 1, maxHealth: 2 });
    expect(view.get(999)).toBeUndefined();
    expect(changes).toHaveLength(1);
  });

  it('removes a despawned entity and keeps the self entity', () => {
    const { view, changes } = viewWithSelf();
    view.spawn(spawn(), 0);
    view.apply('EntityDespawn', { id: WOLF, reason: 'outOfRange' }, 0);
    view.apply('EntityDespawn', { id: 12, reason: 'left' }, 0);
    expect(view.get(WOLF)).toBeUndefined();
    expect(view.self).toBeDefined();
    expect(changes.at(-1)).toMatchObject({ type: 'despawn', reason: 'outOfRange' });
  });

  it('places a pathing mob along its waypoints at a server time', () => {
    const { view } = viewWithSelf();
    view.spawn(spawn({ x: 0, y: 0 }), 0);
    view.path({
      id: WOLF,
      startTime: 10_000,
      speed: 100,
      waypoints: [
        { x: 100, y: 0 },
        { x: 100, y: 100 },
      ],
    });
    const wolf = view.get(WOLF)!;
    expect(view.positionAt(wolf, 9_000)).toMatchObject({ x: 0, y: 0 });
    expect(view.positionAt(wolf, 10_500)).toMatchObject({ x: 50, y: 0 });
    const turned = view.positionAt(wolf, 11_500);
    expect(turned.x).toBeCloseTo(100);
    expect(turned.y).toBeCloseTo(50);
    expect(turned.facing).toBeCloseTo(Math.PI / 2);
    expect(view.positionAt(wolf, 60_000)).toMatchObject({ x: 100, y: 100 });
  });

  it('starts a new path where the old one had brought the mob', () => {
    const { view } = viewWithSelf();
    view.spawn(spawn({ x: 0, y: 0 }), 0);
    view.path({ id: WOLF, startTime: 0, speed: 100, waypoints: [{ x: 200, y: 0 }] });
    view.path({ id: WOLF, startTime: 1_000, speed: 50, waypoints: [{ x: 100, y: 100 }] });
    const wolf = view.get(WOLF)!;
    expect(wolf.path?.from).toEqual({ x: 100, y: 0 });
    expect(view.positionAt(wolf, 2_000)).toMatchObject({ x: 100, y: 50 });
  });

  it('advances walkers and drops finished paths', () => {
    const { view } = viewWithSelf();
    view.spawn(spawn({ x: 0, y: 0 }), 0);
    view.path({
      id: WOLF,
      startTime: 0,
      speed: 100,
      waypoints: [
        { x: 100, y: 0 },
        { x: 100, y: 100 },
      ],
    });
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
    view.spawn(spawn({ x: 0, y: 0 }), 0);
    view.path({ id: WOLF, startTime: 0, speed: 100, waypoints: [{ x: 100, y: 0 }] });
    view.move({ id: WOLF, x: 30, y: 30, facing: 0 }, 200);
    expect(view.positionAt(view.get(WOLF)!, 5_000)).toMatchObject({ x: 30, y: 30 });
  });

  it('tracks health, death and respawn', () => {
    const { view, changes } = viewWithSelf();
    view.spawn(spawn(), 0);
    view.apply('HealthUpdate', { id: WOLF, health: 20, maxHealth: 80 }, 0);
    expect(view.get(WOLF)).toMatchObject({ health: 20, alive: true });
    view.apply('Death', { id: WOLF, killerId: 12 }, 0);
    expect(view.get(WOLF)).toMatchObject({ health: 0, alive: false });
    expect(changes.at(-1)).toMatchObject({ type: 'death', killerId: 12 });
    view.apply('Death', { id: 12, killerId: WOLF }, 0);
    view.apply('Respawn', { id: 12, x: 50, y: 60, health: 100, maxHealth: 100 }, 10);
    expect(view.self).toMatchObject({ alive: true, x: 50, y: 60, health: 100 });
  });

  it('finds the nearest living mob and never the self entity', () => {
    const { view } = viewWithSelf();
    view.spawn(spawn({ id: WOLF, x: 300, y: 100 }), 0);
    view.spawn(spawn({ id: WOLF + 1, x: 150, y: 100, alive: false }), 0);
    view.spawn(spawn({ id: WOLF + 2, x: 200, y: 100 }), 0);
    view.spawn(spawn({ id: 13, kind: 'player', x: 101, y: 100 }), 0);
    const near = view.nearest(view.self!, 0, (e) => e.kind === 'mob' && e.alive);
    expect(near?.id).toBe(WOLF + 2);
  });

  it('keeps the predicted self position when the server spawns the self entity', () => {
    const { view } = viewWithSelf();
    view.setSelfPosition(140, 100, 0, 0);
    view.spawn(spawn({ id: 12, kind: 'player', x: 100, y: 100, name: 'Ayla' }), 0);
    expect(view.self).toMatchObject({ x: 140, self: true });
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
