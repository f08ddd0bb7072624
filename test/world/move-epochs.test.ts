/**
 * Discontinuities and the move epoch. Each time the server puts a player somewhere its
 * client did not walk (a death, a respawn, a refused move, a hand-off given back, a new
 * connection taking the character over) it starts a new move epoch and tells the client
 * once; inputs stamped with an older epoch were made before the client heard of it and are
 * dropped unanswered, never corrected again nor acknowledged.
 */
import { describe, expect, it } from 'vitest';
import {
  createWorld,
  loadWorldData,
  mulberry32,
  step,
  type MoveInput,
  type Player,
  type WorldEvent,
  type WorldInput,
} from '../../server/world/index.js';
import { applyDamage } from '../../server/world/combat.js';
import { HANDOFF_MARGIN } from '../../server/world/handoff.js';
import {
  clearRow,
  join,
  mobAt,
  move,
  ofType,
  player,
  received,
  runUntil,
  template,
  tick,
  walker,
  world,
} from './builders.js';

/** An input as a client that has heard of epoch `epoch` sends it. */
const stamped = (input: WorldInput, epoch: number): WorldInput => ({ ...input, epoch }) as WorldInput;

/** A mob beside the player that kills it with its first swing. */
function deadlyWorld() {
  return world({
    mobs: [mobAt(300, 600)],
    templates: [template({ meleeMin: 1000, meleeMax: 1000, swingTime: 100, speed: 200 })],
    rules: { playerRespawnDelay: 1000 },
    zone: { obstacles: [] },
  });
}

/** Walks `p` right from (200, 600) towards the mob, an input a tick at epoch 0, until it dies; the events of each tick. */
function walkToDeath(w: ReturnType<typeof world>, p: Player) {
  const walk = walker(p, 0, 0);
  const ticks: WorldEvent[][] = [];
  let t = 50;
  for (; p.alive && t < 2000; t += 50) ticks.push(tick(w, [stamped(walk.at(t), 0)], t));
  return { walk, ticks, diedAt: t - 50 };
}

describe('death while walking', () => {
  it('stands the player where the server had it and tells its client once, in a new epoch', () => {
    const w = deadlyWorld();
    const p = join(w, player({ x: 200, y: 600 }));
    const { ticks } = walkToDeath(w, p);
    expect(p.alive).toBe(false);
    const death = ticks.at(-1)!;
    expect(p.moving).toBe(false);
    // Observers get the stop where the server had it, with the death.
    expect(ofType(death, 'motion').filter((e) => e.entity === p && !e.entity.sent.moving)).toHaveLength(1);
    expect(received(death, p.id, 'PositionCorrection')).toEqual([
      { seq: p.lastSeq, x: p.x, y: p.y, facing: p.facing, reason: 'dead', epoch: 1 },
    ]);
  });

  it('falls where its walk had carried it since its newest input, not back at that input', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [{ ...(stamped(walk.at(1000), 0) as MoveInput), receivedAt: 1000 }], 1000);
    runUntil(w, 1050);
    // Its next heartbeat is still on the way when the blow lands.
    applyDamage(w, null, p, 0, p.health, false);
    const death = tick(w, [], 1100);
    expect(p.alive).toBe(false);
    // Watchers drew it 100 ms on from x 100: it lies there, and the stop is dated now.
    expect(p.x).toBeCloseTo(100 + (p.speed * 100) / 1000, 6);
    expect(p.sent).toMatchObject({ x: p.x, y: 300, t: 1100, moving: false });
    expect(received(death, p.id, 'PositionCorrection')).toMatchObject([{ x: p.x, reason: 'dead' }]);
  });

  it('drops, unanswered, the inputs the client made before it heard', () => {
    const w = deadlyWorld();
    const p = join(w, player({ x: 200, y: 600 }));
    const { walk, diedAt } = walkToDeath(w, p);
    const corpse = { x: p.x, y: p.y };
    const after: WorldEvent[] = [];
    for (let t = diedAt + 50; t <= diedAt + 300; t += 50) after.push(...tick(w, [stamped(walk.at(t), 0)], t));
    expect(received(after, p.id, 'PositionCorrection')).toEqual([]);
    expect(received(after, p.id, 'MoveAck')).toEqual([]);
    expect({ x: p.x, y: p.y }).toEqual(corpse);
  });

  it('tells the client once when it falls among the inputs of a step: a move after the blow is dropped, not refused as dead', () => {
    const w = deadlyWorld();
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 0);
    tick(w, [stamped(walk.at(50), 0)], 50);
    // A blow landed before the step's inputs (the border strip's hits come among them).
    applyDamage(w, null, p, 0, p.health, false);
    const ev = tick(w, [stamped(walk.at(100), 0)], 100);
    expect(received(ev, p.id, 'PositionCorrection')).toMatchObject([{ reason: 'dead', epoch: 1 }]);
    expect(received(ev, p.id, 'MoveAck')).toEqual([]);
  });
});

describe('respawn', () => {
  it('tells the client where it stands up, in a new epoch; inputs made before are dropped, later ones taken', () => {
    const w = deadlyWorld();
    const p = join(w, player({ x: 200, y: 600 }));
    const { walk, diedAt } = walkToDeath(w, p);
    let respawn: WorldEvent[] = [];
    let t = diedAt + 50;
    for (; p.respawnAt !== null || !p.alive; t += 50) {
      const ev = tick(w, [stamped(walk.at(t), 0)], t);
      if (ofType(ev, 'respawned').length > 0) respawn = ev;
    }
    expect(received(respawn, p.id, 'PositionCorrection')).toEqual([
      { seq: p.lastSeq, x: 50, y: 900, facing: p.facing, reason: 'respawn', epoch: 2 },
    ]);
    // Still in flight from before the death: dropped, not corrected.
    const stale = tick(w, [stamped(walk.at(t), 0), stamped(move(p, 600, 600, { t }), 1)], t);
    expect(received(stale, p.id, 'PositionCorrection')).toEqual([]);
    expect(received(stale, p.id, 'MoveAck')).toEqual([]);
    expect([p.x, p.y]).toEqual([50, 900]);
    // The held key walks on from the graveyard.
    const onward = walker(p, 0, t + 50);
    const ev = [
      ...tick(w, [stamped(onward.at(t + 100), 2)], t + 100),
      ...tick(w, [stamped(onward.at(t + 200), 2)], t + 200),
    ];
    expect(received(ev, p.id, 'PositionCorrection')).toEqual([]);
    expect(received(ev, p.id, 'MoveAck')).toHaveLength(2);
    expect(p.x).toBeCloseTo(50 + 120 * 0.15, 3);
  });
});

describe('a refused move', () => {
  it('is corrected once: the inputs the client made before it heard are dropped, not corrected again', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 500 }));
    const walk = walker(p, 0, 0);
    tick(w, [stamped(walk.at(100), 0)], 100);
    // A jump no walk could make, then the walk on from there as the client predicted it.
    const far = stamped(move(p, 400, 500, { t: 200, moving: true }), 0);
    const first = tick(w, [far], 200);
    expect(received(first, p.id, 'PositionCorrection')).toMatchObject([{ reason: 'speed' }]);
    const late = [
      ...tick(w, [stamped(move(p, 412, 500, { t: 300, moving: true }), 0)], 300),
      ...tick(w, [stamped(move(p, 424, 500, { t: 400, moving: true }), 0)], 400),
    ];
    expect(received(late, p.id, 'PositionCorrection')).toEqual([]);
    expect(received(late, p.id, 'MoveAck')).toEqual([]);
    expect(received(first, p.id, 'PositionCorrection')).toMatchObject([{ epoch: 1 }]);
    // The client, told, replays its walk from the server's position and sends it in epoch 1.
    const ev = tick(w, [stamped(move(p, 100 + 120 * 0.35, 500, { t: 450, moving: true }), 1)], 450);
    expect(received(ev, p.id, 'PositionCorrection')).toEqual([]);
    expect(received(ev, p.id, 'MoveAck')).toHaveLength(1);
  });
});

describe('a new connection taking the character over (resume, reload)', () => {
  it('starts a new epoch (EnterWorld says which): inputs of the old connection that come late are dropped, not acked', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 100, y: 500 }));
    const old = walker(a, 0, 100_000);
    tick(w, [stamped(old.at(100_000), 0)], 100);
    tick(w, [{ type: 'detach', entityId: a.id }], 200);
    const attach = tick(w, [{ type: 'attach', entityId: a.id, sessionId: 5 }], 300);
    const where = { x: a.x, y: a.y };
    const late = tick(w, [{ ...stamped(old.at(100_300), 0), seq: 57 } as WorldInput], 350);
    expect(received(late, a.id, 'MoveAck')).toEqual([]);
    expect(received(late, a.id, 'PositionCorrection')).toEqual([]);
    expect({ x: a.x, y: a.y }).toEqual(where);
    expect(received(attach, a.id, 'EnterWorld', w)).toMatchObject([{ moveEpoch: 1 }]);
  });
});

describe('a hand-off given back', () => {
  const data = loadWorldData('data');
  const [GREENVALE, ASHMOOR] = data.zones as [(typeof data.zones)[0], (typeof data.zones)[0]];

  it('steps the player back once: inputs past the line made before the client heard are dropped', () => {
    const gv = createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0, openBorders: ['Ashmoor'] });
    const y = clearRow([...GREENVALE.obstacles, ...ASHMOOR.obstacles], 1500, 2500, 40);
    const p = join(gv, player({ zone: 'Greenvale', x: 1960, y }));
    const walk = walker(p, 0, 0);
    let t = 50;
    let handed: Extract<WorldEvent, { type: 'handedOff' }> | undefined;
    for (; !handed && t < 2000; t += 50) {
      handed = ofType(step(gv, [stamped(walk.at(t), 0)], t, mulberry32(t)).events, 'handedOff')[0];
    }
    expect(handed).toBeDefined();
    expect(p.x).toBeGreaterThan(2000 + HANDOFF_MARGIN);
    // Ashmoor did not take it, and the border is closed now: it comes back to Greenvale.
    gv.openBorders = [];
    const back = step(
      gv,
      [{ type: 'arrive', sessionId: handed!.sessionId, state: handed!.state }],
      t,
      mulberry32(t),
    ).events;
    expect(received(back, p.id, 'PositionCorrection', gv)).toMatchObject([{ reason: 'bounds' }]);
    const late: WorldEvent[] = [];
    for (let u = t + 50; u <= t + 200; u += 50)
      late.push(...step(gv, [stamped(walk.at(u), 0)], u, mulberry32(u)).events);
    expect(received(late, p.id, 'PositionCorrection')).toEqual([]);
    expect(received(back, p.id, 'PositionCorrection', gv)).toMatchObject([{ epoch: 1 }]);
  });

  it('given back and taken over by its connection in one tick, its client hears only the newest epoch', () => {
    const gv = createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0, openBorders: ['Ashmoor'] });
    const y = clearRow([...GREENVALE.obstacles, ...ASHMOOR.obstacles], 1500, 2500, 40);
    const p = join(gv, player({ zone: 'Greenvale', x: 1960, y }));
    const walk = walker(p, 0, 0);
    let t = 50;
    let handed: Extract<WorldEvent, { type: 'handedOff' }> | undefined;
    for (; !handed && t < 2000; t += 50) {
      handed = ofType(step(gv, [stamped(walk.at(t), 0)], t, mulberry32(t)).events, 'handedOff')[0];
    }
    gv.openBorders = [];
    // The bus back after an outage: the player given back (stepped back, a correction in a new
    // epoch) and its session sent its view anew (EnterWorld, in the epoch after) in one tick.
    // EnterWorld goes ahead of the tick's update, the correction after it: heard last, its
    // older epoch would have stamped every move after, and each been dropped unanswered.
    const back = step(
      gv,
      [
        { type: 'arrive', sessionId: handed!.sessionId, state: handed!.state },
        { type: 'attach', entityId: p.id, sessionId: handed!.sessionId },
      ],
      t,
      mulberry32(t),
    ).events;
    // The player given back is a new entity under the same id.
    const q = gv.players.get(p.id)!;
    expect(ofType(back, 'relocated')).toHaveLength(1);
    expect(received(back, q.id, 'EnterWorld', gv)).toMatchObject([
      { moveEpoch: q.moveEpoch, x: q.x, y: q.y },
    ]);
    expect(received(back, q.id, 'PositionCorrection', gv)).toEqual([]);
    // Its moves in that epoch are taken.
    const home = walker(q, Math.PI, t);
    const ev = tick(gv, [stamped(home.at(t + 50), q.moveEpoch)], t + 50);
    expect(received(ev, q.id, 'MoveAck')).toHaveLength(1);
  });
});
