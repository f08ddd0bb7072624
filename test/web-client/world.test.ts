import { describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { EnterWorld, ZoneInfo } from '../../shared/protocol/character.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import { Death, EntityDespawn, EntitySpawn } from '../../shared/protocol/entity.js';
import { EntityMove, PositionCorrection, WorldTick } from '../../shared/protocol/movement.js';
import { CombatEvent, SpellGo, SpellStart } from '../../shared/protocol/spell.js';
import { PacketFeed } from '../../web-client/src/net/packet-feed.js';
import { ClientWorld, type Incoming } from '../../web-client/src/state/world.js';

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
    ...overrides,
  };
}

function spawn(
  id: number,
  x: number,
  y: number,
  kind: 'player' | 'mob' = 'mob',
): PayloadOf<typeof EntitySpawn> {
  return {
    id,
    kind,
    template: 1,
    name: `E${id}`,
    level: 2,
    health: 50,
    maxHealth: 50,
    x,
    y,
    facing: 0,
    speed: 80,
    appearance: 0,
    alive: true,
  };
}

/** Encodes packets into one message and feeds it through the page's decode path. */
function feed(world: ClientWorld, localNow: number, write: (w: Writer) => void): void {
  const w = new Writer();
  write(w);
  new PacketFeed((p: Incoming) => world.apply(p, localNow)).push(w.finish());
}

function enteredWorld(): ClientWorld {
  const world = new ClientWorld();
  feed(world, 0, (w) => {
    ZoneInfo.write(w, { zone: 'Vale', width: 1000, height: 1000, obstacles: [], cellSize: 100 });
    EnterWorld.write(w, enter());
    WorldTick.write(w, { tick: 0, serverTime: T0 });
    EntitySpawn.write(w, spawn(2, 200, 100, 'player'));
    EntitySpawn.write(w, spawn(1 << 20, 150, 150));
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

  it('draws remote movers 100 ms behind, between the two ticks around that time', () => {
    const world = enteredWorld();
    for (let i = 1; i <= 4; i++) {
      feed(world, i * 50, (w) => {
        WorldTick.write(w, { tick: i, serverTime: T0 + i * 50 });
        EntityMove.write(w, { id: 2, x: 200 + i * 10, y: 100, facing: 0 });
      });
    }
    const e = world.entities.get(2)!;
    // Local 200 ms reads server T0+200, so the mover is drawn at T0+100: tick 2.
    expect(world.drawnPosition(e, 200).x).toBeCloseTo(220, 0);
    expect(world.drawnPosition(e, 225).x).toBeCloseTo(225, 0);
    expect(world.serverPosition(e, 225).x).toBeCloseTo(240, 0);
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
    feed(world, 10, (w) => Death.write(w, { id: 1 << 20, killerId: 1 }));
    expect(world.entities.get(1 << 20)).toMatchObject({ alive: false, health: 0, diedAt: 10 });
    feed(world, 20, (w) => EntityDespawn.write(w, { id: 1 << 20, reason: 'corpse' }));
    expect(world.entities.has(1 << 20)).toBe(false);
    expect(world.targetId).toBeUndefined();
  });

  it('cycles targets with Tab from the nearest living entity', () => {
    const world = enteredWorld();
    expect(world.cycleTarget(0)).toBe(1 << 20); // 70 units away
    expect(world.cycleTarget(0)).toBe(2); // 100 units away
    expect(world.cycleTarget(0)).toBe(1 << 20);
  });

  it('snaps the own character on a PositionCorrection', () => {
    const world = enteredWorld();
    const pr = world.self!.predictor;
    pr.step(1, 0, 100);
    const sent = pr.takeInput(T0 + 100)!;
    feed(world, 100, (w) =>
      PositionCorrection.write(w, { seq: sent.seq, x: 90, y: 90, facing: 0, reason: 'speed' }),
    );
    expect(world.drawnPosition(world.selfEntity()!, 100)).toMatchObject({ x: 90, y: 90 });
    expect(pr.corrections).toBe(1);
  });

  it('keeps predicting the own character through an echo of its own move or spawn', () => {
    const world = enteredWorld();
    const pr = world.self!.predictor;
    pr.step(1, 0, 500); // 60 units right of the spawn, not yet acknowledged
    feed(world, 100, (w) => {
      WorldTick.write(w, { tick: 2, serverTime: T0 + 100 });
      EntityMove.write(w, { id: 1, x: 100, y: 100, facing: 0 });
      EntitySpawn.write(w, spawn(1, 100, 100, 'player'));
    });
    expect(world.drawnPosition(world.selfEntity()!, 100)).toMatchObject({ x: 160, y: 100 });
    expect(pr.corrections).toBe(0);
  });
});
