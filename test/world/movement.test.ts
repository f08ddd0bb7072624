import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deadReckon,
  CLIENT_HEARTBEAT_MS,
  INPUT_GRACE_MS,
  INPUT_OVERDUE_MS,
  MOTION_ERROR_UNITS,
  MOTION_HEARTBEAT_MS,
} from '../../shared/game/motion.js';
import { sampleMotion } from '../../shared/game/interpolation.js';
import {
  distance,
  maxMoveDistance,
  MOVE_SEND_HZ,
  MOVE_SLACK_UNITS,
  MOVE_TOLERANCE,
  positionAlongPath,
  segmentBlocked,
} from '../../shared/game/movement.js';
import { quantizeAngle, quantizeSpeed } from '../../shared/protocol/records.js';
import {
  savedCharacter,
  type Player,
  type World,
  type WorldEvent,
  type WorldInput,
} from '../../server/world/index.js';
import { handoffState } from '../../server/world/handoff.js';
import { join, move, ofType, player, received, runUntil, sent, tick, walker, world } from './builders.js';
import { MAX_HOLD_MS } from '../../server/world/timeline.js';

/** An input and the server time it arrives at. */
interface Send {
  input: WorldInput;
  arrives: number;
}

/** One step's time and events. */
interface Stepped {
  t: number;
  events: WorldEvent[];
}

/**
 * Steps every `dt` ms up to `until`, handing each step the inputs that arrived since the
 * last; `after` sees each step with the world as that step left it.
 */
/** A MoveInput that arrived at server time `at` (before the step that takes it). */
function arrived(input: WorldInput, at: number): WorldInput {
  if (input.type !== 'move') return input;
  return { ...input, receivedAt: at };
}

/** Heading north on screen (y grows downward). */
const NORTH = (3 * Math.PI) / 2;

/** A move state sent at client time `clientTime` (later or sooner than its position held), arriving then. */
function sentLate(input: WorldInput, clientTime: number): WorldInput {
  if (input.type !== 'move') return input;
  return { ...input, clientTime, receivedAt: clientTime };
}

function play(
  w: World,
  sends: readonly Send[],
  until: number,
  after: (s: Stepped) => void = () => {},
  dt = 50,
): Stepped[] {
  const out: Stepped[] = [];
  let next = 0;
  const queue = [...sends].sort((a, b) => a.arrives - b.arrives);
  for (let t = w.now + dt; t <= until; t += dt) {
    const inputs: WorldInput[] = [];
    while (next < queue.length && queue[next]!.arrives <= t) {
      const { input, arrives } = queue[next++]!;
      inputs.push(input.type === 'move' ? { ...input, receivedAt: arrives } : input);
    }
    const stepped = { t, events: tick(w, inputs, t) };
    after(stepped);
    out.push(stepped);
  }
  return out;
}

function corrections(steps: readonly Stepped[], p: Player): string[] {
  return steps.flatMap((s) => received(s.events, p.id, 'PositionCorrection').map((c) => c.reason));
}

/** Server times of the steps that emitted a motion event for `p`. */
function motionTimes(steps: readonly Stepped[], p: Player): number[] {
  return steps.filter((s) => ofType(s.events, 'motion').some((e) => e.entity === p)).map((s) => s.t);
}

describe('move validation', () => {
  it('acknowledges a move at walking speed and updates the position', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 100 }));
    const events = tick(w, [move(p, 106, 100, { t: 50, seq: 7 })], 50);
    expect(received(events, p.id, 'MoveAck')).toEqual([{ seq: 7 }]);
    expect(sent(events, 'PositionCorrection')).toEqual([]);
    expect([p.x, p.y]).toEqual([106, 100]);
  });

  it('accepts a steady walk with a state every step for several seconds', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 0);
    const sends = Array.from({ length: 60 }, (_, i) => ({
      input: walk.at((i + 1) * 50),
      arrives: (i + 1) * 50,
    }));
    const steps = play(w, sends, 3000);
    expect(corrections(steps, p)).toEqual([]);
    expect(p.x).toBeCloseTo(460, 6);
  });

  it('answers the moves of one step with one MoveAck, for the newest accepted', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    const events = tick(
      w,
      [
        // Sent 50 ms apart over a clean link: each takes effect at once.
        arrived(move(p, 106, 300, { t: 1000, seq: 1 }), 1000),
        arrived(move(p, 112, 300, { t: 1050, seq: 2 }), 1050),
        arrived(move(p, 118, 300, { t: 1100, seq: 3 }), 1100),
      ],
      1100,
    );
    expect(received(events, p.id, 'MoveAck')).toEqual([{ seq: 3 }]);
    // The newest refused: the ack names the newest accepted, the correction the refused one.
    const mixed = tick(
      w,
      [
        arrived(move(p, 124, 300, { t: 1150, seq: 4 }), 1150),
        arrived(move(p, 400, 300, { t: 1200, seq: 5 }), 1200),
      ],
      1200,
    );
    expect(received(mixed, p.id, 'MoveAck')).toEqual([{ seq: 4 }]);
    expect(received(mixed, p.id, 'PositionCorrection').map((c) => c.seq)).toEqual([5]);
  });

  it('corrects a move beyond speed × tolerance and keeps the last valid position', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    const far = 100 + maxMoveDistance(120, 1000) + 20;
    const events = tick(w, [move(p, far, 300, { t: 1000, seq: 9 })], 1000);
    expect(received(events, p.id, 'PositionCorrection')).toEqual([
      { seq: 9, x: 100, y: 300, facing: 0, reason: 'speed', epoch: 1 },
    ]);
    expect(received(events, p.id, 'MoveAck')).toEqual([]);
    expect([p.x, p.y]).toEqual([100, 300]);
  });

  it('corrects a client that keeps running faster than the tolerance', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    const reasons: string[] = [];
    let x = 100;
    for (let i = 1; i <= 40; i++) {
      x += 12; // 240 units/s, twice the walking speed
      const events = tick(w, [move(p, x, 300, { t: i * 50, moving: true })], i * 50);
      for (const c of received(events, p.id, 'PositionCorrection')) {
        reasons.push(c.reason);
        x = c.x;
      }
    }
    expect(reasons.length).toBeGreaterThan(0);
    expect(new Set(reasons)).toEqual(new Set(['speed']));
  });

  it('corrects a move outside the zone with reason bounds', () => {
    const w = world();
    const p = join(w, player({ x: 12, y: 300 }));
    const events = tick(w, [move(p, 2, 300, { t: 50 })], 50);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('bounds');
    expect(p.x).toBe(12);
  });

  it('corrects a move into a wall with reason obstacle', () => {
    const w = world();
    const p = join(w, player({ x: 485, y: 200 }));
    const events = tick(w, [move(p, 495, 200, { t: 100 })], 100);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('obstacle');
    expect(p.x).toBe(485);
  });

  it('corrects a hop across a thin wall even when both ends are clear', () => {
    const w = world({ zone: { obstacles: [{ x: 500, y: 0, w: 2, h: 400 }] } });
    const p = join(w, player({ x: 490, y: 200 }));
    const events = tick(w, [move(p, 512, 200, { t: 1000 })], 1000);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('obstacle');
  });

  it('corrects any move of a dead player with reason dead', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    // Dead and waiting to stand up at the graveyard (one fallen this step is dropped instead).
    p.alive = false;
    p.respawnAt = 10_000;
    const events = tick(w, [move(p, 101, 300, { t: 50 })], 50);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('dead');
  });
});

describe('the client clock and the time bank', () => {
  it('never corrects an honest client whose heartbeats stall 600 ms mid-walk and arrive in one step', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    const sends: Send[] = [];
    for (let t = 1000; t <= 4000; t += CLIENT_HEARTBEAT_MS) {
      // Everything sent from 2000 until the link wakes at 2600 arrives in the 2600 step.
      sends.push({ input: walk.at(t, t < 4000), arrives: t >= 2000 && t < 2600 ? 2600 : t });
    }
    // Held from when its heartbeat was overdue, it takes the burst as a new start: the offset
    // now covers the stall, and the rest of the walk takes effect that much later.
    const steps = play(w, sends, 5500);
    const burst = steps.find((s) => s.t === 2600)!;
    expect(received(burst.events, p.id, 'MoveAck')).toHaveLength(1);
    expect(corrections(steps, p)).toEqual([]);
    expect(p.x).toBeCloseTo(100 + 120 * 3, 6);
    expect(p.moving).toBe(false);
  });

  it('never corrects an honest client whose walk starts in a stall (start and heartbeats in one step)', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    runUntil(w, 2000); // standing for a while first
    const walk = walker(p, 0, 2000);
    const sends: Send[] = [];
    for (let t = 2000; t <= 4000; t += 250) sends.push({ input: walk.at(t), arrives: t < 2600 ? 2600 : t });
    // The start came 600 ms late: the walk takes effect 600 ms behind its client's clock.
    const steps = play(w, sends, 4600);
    expect(corrections(steps, p)).toEqual([]);
    expect(p.x).toBeCloseTo(100 + 120 * 2, 6);
  });

  // The lab's square walk: a leg, a pause, a turn and the next leg. Over TCP a lost segment
  // holds everything behind it for a retransmission timeout (200 ms) plus a round trip, so
  // when the lost one is the start after the pause, the start and the heartbeats behind it
  // arrive in one step.
  it.each([
    [100, 400],
    [200, 600],
  ])(
    'never corrects an honest client whose start after a pause stalls (%i ms latency, a %i ms stall)',
    (latency, stall) => {
      const w = world({ zone: { obstacles: [] } });
      const p = join(w, player({ x: 100, y: 300 }));
      const sends: Send[] = [];
      let arrives = 0;
      const send = (input: WorldInput, extra = 0): void => {
        arrives = Math.max(arrives, input.type === 'move' ? input.clientTime + latency + extra : 0);
        sends.push({ input, arrives });
      };
      // East for 2 s from 1000, a stop, 700 ms standing, then north for 2 s from 3700.
      const east = walker(p, 0, 1000);
      for (let t = 1000; t <= 3000; t += 250) send(east.at(t, t < 3000));
      const north = {
        at: (t: number, moving = true): WorldInput =>
          move(p, 100 + 240, 300 + (p.speed * (t - 3700)) / 1000, {
            t,
            facing: Math.PI / 2,
            moving,
          }),
      };
      for (let t = 3700; t <= 5700; t += 250) send(north.at(t, t < 5700), t === 3700 ? stall : 0);
      const steps = play(w, sends, 6500);
      expect(corrections(steps, p)).toEqual([]);
      expect(p.x).toBeCloseTo(340, 6);
      expect(p.y).toBeCloseTo(300 + 240, 6);
      expect(p.moving).toBe(false);
    },
  );

  it('corrects a client whose clock runs fast: it claims more walking than time allows', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    // Its clock runs twice as fast as the server's: it walks at 120 a second of its time, 240 of ours.
    const walk = walker(p, 0, 2000);
    const sends: Send[] = [];
    // Its inputs are dated ever further ahead: they wait (up to MAX_HOLD_MS), then the bank drains.
    for (let t = 1000; t <= 5000; t += 125) sends.push({ input: walk.at(2 * t), arrives: t });
    const steps = play(w, sends, 5000);
    const reasons = corrections(steps, p);
    expect(reasons.length).toBeGreaterThan(0);
    expect(new Set(reasons)).toEqual(new Set(['speed']));
    // Never further than walking allows in the server time that passed, plus the burst.
    const limit =
      (p.speed * MOVE_TOLERANCE * (4000 + w.rules.moveBurstMs)) / 1000 + MOVE_SLACK_UNITS * sends.length;
    expect(p.x - 100).toBeLessThanOrEqual(limit);
  });

  it('corrects a fast clock that reports standing between moves: from standing a move pays for its distance', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    // Twice the server's time on its clock, 240 units a second of ours, every state a stop.
    const walk = walker(p, 0, 2000);
    const sends: Send[] = [];
    for (let t = 1000; t <= 7000; t += 125) sends.push({ input: walk.at(2 * t, false), arrives: t });
    const steps = play(w, sends, 7000);
    // The first refusal is for speed (what it sends after that runs off the zone).
    expect(corrections(steps, p)[0]).toBe('speed');
    const limit =
      (p.speed * MOVE_TOLERANCE * (6000 + w.rules.moveBurstMs)) / 1000 + MOVE_SLACK_UNITS * sends.length;
    expect(p.x - 100).toBeLessThanOrEqual(limit);
  });

  it('corrects one move that claims seconds of walking when a fraction of one passed', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    tick(w, [move(p, 100, 300, { t: 1000 })], 1000);
    // 2 s claimed (300 units is within 2 s of walking), 100 ms passed: the bank holds at most
    // 1 s. Dated 1.9 s ahead, it waits MAX_HOLD_MS at most, then it is checked.
    const events = [
      ...tick(w, [move(p, 400, 300, { t: 3000, moving: true })], 1100),
      ...runUntil(w, 1100 + MAX_HOLD_MS),
    ];
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('speed');
    expect(p.x).toBe(100);
  });
});

describe('motion', () => {
  it('starting, turning and stopping each emit one motion event with the new state', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const start = tick(w, [move(p, 100, 300, { t: 1000, moving: true, facing: 0 })], 1000);
    expect(ofType(start, 'motion')).toEqual([{ type: 'motion', entity: p, jump: false }]);
    expect(p.sent).toEqual({ x: 100, y: 300, t: 1000, moving: true, angle: 0, speed: 120 });

    const turn = tick(w, [move(p, 130, 300, { t: 1250, moving: true, facing: Math.PI / 2 })], 1250);
    expect(ofType(turn, 'motion')).toHaveLength(1);
    expect(p.sent).toMatchObject({ x: 130, y: 300, t: 1250, moving: true, angle: Math.PI / 2 });

    const stop = tick(w, [move(p, 130, 330, { t: 1500, facing: Math.PI / 2 })], 1500);
    expect(ofType(stop, 'motion')).toHaveLength(1);
    expect(p.sent).toMatchObject({ x: 130, y: 330, t: 1500, moving: false, speed: 0 });
  });

  it('places a start sent a step into the walk on the spot it left, dated when it left', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    runUntil(w, 1000);
    // Its client saw the key a frame (16 ms, 2 units at 120 u/s) before it sent the start.
    const events = tick(w, [move(p, 102, 300, { t: 1000, moving: true, facing: 0 })], 1000);
    expect(ofType(events, 'motion')).toHaveLength(1);
    expect(p.sent.x).toBe(100);
    expect(p.sent.t).toBeCloseTo(1000 - (2 / 120) * 1000, 9);
    expect(p.sent).toMatchObject({ y: 300, moving: true, speed: 120 });
    // Walked on from there it is where its client said, when it said: no jump of the step.
    expect(deadReckon(p.sent, 1000).x).toBeCloseTo(102, 9);
    // The move checks go on from the client's own input.
    expect(p.lastInput).toEqual({ x: 102, y: 300 });
    expect(received(events, p.id, 'PositionCorrection')).toEqual([]);
  });

  it('leaves a start where it was sent when it is no step along its heading from the spot', () => {
    const cases: [string, number, number, number][] = [
      ['beside the line', 102, 303, 0],
      ['behind the spot', 98, 300, 0],
      ['further than a send step', 100 + 120 / MOVE_SEND_HZ + 1, 300, 0],
    ];
    for (const [, x, y, facing] of cases) {
      const w = world({ zone: { obstacles: [] } });
      const p = join(w, player({ x: 100, y: 300 }));
      runUntil(w, 1000);
      tick(w, [move(p, x, y, { t: 1000, moving: true, facing })], 1000);
      expect(p.sent).toMatchObject({ x, y, t: 1000, moving: true });
    }
  });

  it("dates a walk's state by when its input arrived, not by the tick that applied it", () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    // The client's clock runs 500 ms behind the server's; the start arrived 40 ms before the tick.
    const start = { ...move(p, 100, 300, { t: 1000, moving: true, facing: 0 }), receivedAt: 1460 };
    tick(w, [start], 1500);
    expect(p.sent).toMatchObject({ x: 100, y: 300, t: 1460, moving: true });
    // A heartbeat 250 ms later (client time) that waited 10 ms: on course, so no new state.
    const beat = { ...move(p, 130, 300, { t: 1250, moving: true, facing: 0 }), receivedAt: 1740 };
    expect(ofType(tick(w, [beat], 1750), 'motion')).toEqual([]);
  });

  it('dates a stop when the walk reached it, not when the client sent it a frame (or a hitch) later', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    const walking = { ...p.sent };
    tick(w, [walk.at(1250)], 1250);
    // Its last walking frame ended at 1400; the next frame, 40 ms on, saw the key up and sent
    // the stop from where that frame left it.
    tick(w, [sentLate(walk.at(1400, false), 1440)], 1450);
    expect(p.sent).toMatchObject({ x: 148, y: 300, moving: false });
    expect(p.sent.t).toBeCloseTo(1400, 6);
    // A watcher that reckoned the walk on from its state and then hears the stop draws every
    // moment before the stop where it drew it already: the stop pulls nothing back.
    for (let t = 1000; t <= 1400; t += 20) {
      const heard = sampleMotion([walking, p.sent], t)!;
      const reckoned = deadReckon(walking, t);
      expect(heard.x).toBeCloseTo(reckoned.x, 6);
      expect(heard.y).toBeCloseTo(reckoned.y, 6);
    }
  });

  it('dates a stop no earlier than the state before it, nor later than its own time', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    // A stop where it started (the key tapped and let go): stood from the start's time.
    tick(w, [sentLate(walk.at(1000, false), 1030)], 1050);
    expect(p.sent).toMatchObject({ x: 100, moving: false, t: 1000 });
    // A stop a little further than the walk reaches by its time (within the speed check's
    // tolerance): it stands from its own time.
    const again = walker(p, 0, 1100);
    tick(w, [again.at(1100)], 1100);
    const far = tick(w, [sentLate(again.at(1360, false), 1350)], 1350);
    expect(received(far, p.id, 'PositionCorrection')).toEqual([]);
    expect(p.sent).toMatchObject({ moving: false, t: 1350 });
  });

  it('places a turn sent a frame past the corner at the corner, dated when the walk got there', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    const walking = { ...p.sent };
    tick(w, [walk.at(1250)], 1250);
    // Its last frame east ended at (148, 300) at 1400; the next, 17 ms on, saw the new key and
    // walked north from there, and sent the turn from where that frame left it.
    const client = { x: 148, y: 300 - 120 * 0.017 };
    const turn = move(p, client.x, client.y, { t: 1417, moving: true, facing: NORTH });
    const events = tick(w, [sentLate(turn, 1417)], 1450);
    expect(received(events, p.id, 'PositionCorrection')).toEqual([]);
    expect(ofType(events, 'motion')).toHaveLength(1);
    expect(p.sent).toMatchObject({ moving: true, angle: NORTH, speed: 120 });
    expect(p.sent.x).toBeCloseTo(148, 6);
    expect(p.sent.y).toBeCloseTo(300, 6);
    expect(p.sent.t).toBeCloseTo(1400, 6);
    // The move checks go on from where its client is.
    expect(p.lastInput).toEqual(client);
    // A watcher that reckoned the walk east and then hears the turn draws every moment up to
    // the corner where it drew it already, and from there the walk its client made.
    for (let t = 1000; t <= 1400; t += 20) {
      const heard = sampleMotion([walking, p.sent], t)!;
      const reckoned = deadReckon(walking, t);
      expect(heard.x).toBeCloseTo(reckoned.x, 6);
      expect(heard.y).toBeCloseTo(reckoned.y, 6);
    }
    const now = deadReckon(p.sent, 1417);
    expect(now.x).toBeCloseTo(client.x, 6);
    expect(now.y).toBeCloseTo(client.y, 6);
    // The next heartbeat on the new course is on what watchers reckon: no new state.
    const beat = move(p, 148, 300 - 120 * 0.267, { t: 1667, moving: true, facing: NORTH });
    expect(ofType(tick(w, [sentLate(beat, 1667)], 1700), 'motion')).toEqual([]);
  });

  it('places a change of speed where the walk changed pace', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    tick(w, [walk.at(1250)], 1250);
    // At 148 (1400) it slowed to 60 units/s; the state went out 50 ms later, at 151.
    const slower = move(p, 151, 300, { t: 1450, moving: true, facing: 0, speed: 60 });
    const events = tick(w, [sentLate(slower, 1450)], 1450);
    expect(received(events, p.id, 'PositionCorrection')).toEqual([]);
    expect(p.sent).toMatchObject({ y: 300, moving: true, speed: 60 });
    expect(p.sent.x).toBeCloseTo(148, 6);
    expect(p.sent.t).toBeCloseTo(1400, 6);
  });

  it('places a turn no earlier than the state before it, nor past where its old course got by its own time, nor where the courses miss, nor across a wall', () => {
    const cases = [
      // Met the old course 20 ms before the newest state (at 127.6): no earlier than that state.
      { x: 127.6, y: 300 - 120 * 0.07, t: 1300, facing: NORTH, speed: 120 },
      // A slower pace from 138 at 1300: the old course is at 136 by then, and would meet the
      // new one only at 140, after 1300.
      { x: 138, y: 300, t: 1300, facing: 0, speed: 60 },
      // A turn north from about 147 whose course then misses where it says it is by 11 units.
      { x: 155, y: 285, t: 1450, facing: NORTH, speed: 120 },
    ];
    for (const c of cases) {
      const w = world({ zone: { obstacles: [] } });
      const p = join(w, player({ x: 100, y: 300 }));
      const walk = walker(p, 0, 1000);
      tick(w, [walk.at(1000)], 1000);
      tick(w, [walk.at(1250)], 1250);
      const turn = move(p, c.x, c.y, { t: c.t, moving: true, facing: c.facing, speed: c.speed });
      const events = tick(w, [sentLate(turn, c.t)], c.t);
      expect(received(events, p.id, 'PositionCorrection')).toEqual([]);
      // Where and when it was sent.
      expect(p.sent).toMatchObject({ x: c.x, y: c.y, t: c.t, moving: true, speed: c.speed });
    }
    {
      // A thin wall across the walk east at x 140: the turn north claims a corner at (148, 300)
      // beyond it, though the way from its last input to where it is passes north of the wall.
      const w = world({ zone: { obstacles: [{ x: 140, y: 296, w: 2, h: 44 }] } });
      const p = join(w, player({ x: 100, y: 300 }));
      tick(w, [move(p, 100, 300, { t: 1000, moving: true, facing: 0 })], 1000);
      const events = tick(w, [move(p, 148, 276, { t: 1600, moving: true, facing: NORTH })], 1600);
      expect(received(events, p.id, 'PositionCorrection')).toEqual([]);
      expect(p.sent).toMatchObject({ x: 148, y: 276, t: 1600, moving: true });
      expect(segmentBlocked({ x: 100, y: 300 }, { x: 148, y: 300 }, w.walls, 0)).toBe(true);
    }
    // Beside those, the same walk's turn a frame past the corner is placed at it.
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    tick(w, [walk.at(1250)], 1250);
    tick(
      w,
      [sentLate(move(p, 136, 300 - 120 * 0.017, { t: 1317, moving: true, facing: NORTH }), 1317)],
      1317,
    );
    expect(p.sent.x).toBeCloseTo(136, 6);
    expect(p.sent.y).toBeCloseTo(300, 6);
    expect(p.sent.t).toBeCloseTo(1300, 6);
  });

  it('a turn placed at its corner leaves the move checks where its client is: a cheat is refused as before', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    tick(w, [walk.at(1250)], 1250);
    // The frame after the corner (148, 300) took 100 ms: the turn comes from 12 units north.
    tick(w, [sentLate(move(p, 148, 288, { t: 1500, moving: true, facing: NORTH }), 1500)], 1500);
    expect([p.x, p.y, p.inputAt]).toEqual([148, 300, 1400]);
    // 50 ms later at (156, 300): 8 units from the corner, 14.4 from where its client was.
    const cheat = tick(w, [sentLate(move(p, 156, 300, { t: 1550, moving: true, facing: 0 }), 1550)], 1550);
    expect(received(cheat, p.id, 'PositionCorrection').map((c) => c.reason)).toEqual(['speed']);
    // A turn claimed from a corner further on than its walk could reach by then is refused too.
    const q = join(w, player({ x: 100, y: 400 }));
    const fast = walker(q, 0, 2000);
    tick(w, [fast.at(2000)], 2000);
    tick(w, [fast.at(2250)], 2250);
    const far = tick(w, [sentLate(move(q, 150, 398, { t: 2300, moving: true, facing: NORTH }), 2300)], 2300);
    expect(received(far, q.id, 'PositionCorrection').map((c) => c.reason)).toEqual(['speed']);
    expect(q.sent).toMatchObject({ x: 130, y: 400, moving: false });
  });

  it('keeps a walker whose turn was placed at its corner where its client was: saved and handed over there, not at the corner', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    tick(w, [walk.at(1250)], 1250);
    const client = { x: 148, y: 300 - 120 * 0.017 };
    tick(w, [sentLate(move(p, client.x, client.y, { t: 1417, moving: true, facing: NORTH }), 1417)], 1450);
    expect([p.x, p.y]).toEqual([148, 300]);
    expect(savedCharacter(w, p)).toMatchObject(client);
    expect(handoffState(p).entity).toMatchObject(client);
    // A client whose stated pace outruns its walk (4 units a step, 190 ms apart, said to be 40
    // units/s) turns back at 124: the courses meet past anywhere it went, and the state is
    // placed there; it is kept where it said it was.
    const q = join(w, player({ x: 120, y: 400 }));
    tick(w, [sentLate(move(q, 120, 400, { t: 2000, moving: true, facing: 0, speed: 40 }), 2000)], 2000);
    tick(w, [sentLate(move(q, 124, 400, { t: 2190, moving: true, facing: 0, speed: 40 }), 2190)], 2190);
    tick(w, [sentLate(move(q, 120, 400, { t: 2380, moving: true, facing: Math.PI, speed: 40 }), 2380)], 2380);
    expect(q.x).toBeGreaterThan(124.5);
    expect(savedCharacter(w, q)).toMatchObject({ x: 120, y: 400 });
    // Stood by the server itself (its inputs fell silent), it is kept where the server stood it.
    runUntil(w, 2380 + (INPUT_OVERDUE_MS + INPUT_GRACE_MS) + 100);
    expect(q.moving).toBe(false);
    expect(savedCharacter(w, q)).toMatchObject({ x: q.x, y: q.y });
    expect(q.x).not.toBe(120);
  });

  it('places any honest turn or change of pace sent a frame or a hitch late at its corner, within the bounds, uncorrected', () => {
    const turn = fc.record({
      heading: fc.double({ min: 0, max: Math.PI * 2, noNaN: true }),
      // Kept turns and paces apart from a heartbeat: a unit per second or more between them.
      turn: fc.oneof(fc.constant(0), fc.double({ min: 0.05, max: Math.PI, noNaN: true })),
      sign: fc.constantFrom(-1, 1),
      speed: fc.constantFrom(120, 90, 60),
      cornerMs: fc.integer({ min: 1, max: 1200 }),
      frameMs: fc.integer({ min: 1, max: 100 }),
    });
    fc.assert(
      fc.property(turn, (c) => {
        fc.pre(c.turn > 0 || c.speed !== 120);
        const w = world({ zone: { obstacles: [] } });
        const p = join(w, player({ x: 500, y: 500 }));
        const walk = walker(p, c.heading, 1000);
        tick(w, [walk.at(1000)], 1000);
        const corner = c.cornerMs + 1000;
        for (let t = 1250; t < corner; t += 250) tick(w, [walk.at(t)], t);
        const before = p.inputAt;
        const at = walk.at(corner) as { x: number; y: number };
        const b = c.heading + c.sign * c.turn;
        const sentAt = corner + c.frameMs;
        const x = at.x + (Math.cos(b) * c.speed * c.frameMs) / 1000;
        const y = at.y + (Math.sin(b) * c.speed * c.frameMs) / 1000;
        const events = tick(
          w,
          [sentLate(move(p, x, y, { t: sentAt, moving: true, facing: b, speed: c.speed }), sentAt)],
          sentAt,
        );
        expect(received(events, p.id, 'PositionCorrection')).toEqual([]);
        expect(p.sent.t).toBeCloseTo(corner, 3);
        expect(p.sent.t).toBeGreaterThanOrEqual(before);
        expect(p.sent.t).toBeLessThanOrEqual(sentAt);
        expect(distance(p.sent, at)).toBeLessThan(1e-3);
        const reckoned = deadReckon(p.sent, sentAt);
        expect(distance(reckoned, { x, y })).toBeLessThan(1e-3);
        expect(p.lastInput).toEqual({ x, y });
      }),
      { numRuns: 200 },
    );
  });

  it('places a turn back at its corner though the client is back where the state before it began', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 500, y: 500 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    tick(w, [walk.at(1100)], 1100);
    // East from 512 at 1100, turned back at 1110 (513.2), sent at 1120 from 512 again.
    tick(w, [move(p, 512, 500, { t: 1120, moving: true, facing: Math.PI })], 1120);
    expect(p.sent.t).toBeCloseTo(1110, 6);
    expect(p.sent.x).toBeCloseTo(513.2, 6);
    expect(p.sent.angle).toBeCloseTo(Math.PI, 6);
  });

  it('a change of speed emits motion; a heartbeat on course emits none', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    tick(w, [move(p, 100, 300, { t: 1000, moving: true })], 1000);
    expect(ofType(tick(w, [move(p, 130, 300, { t: 1250, moving: true })], 1250), 'motion')).toEqual([]);
    const slower = tick(w, [move(p, 160, 300, { t: 1500, moving: true, speed: 60 })], 1500);
    expect(ofType(slower, 'motion')).toHaveLength(1);
    expect(p.sent).toMatchObject({ moving: true, speed: 60 });
  });

  it('a standing player emits motion when it turns on the spot, none when its state is unchanged', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    expect(ofType(tick(w, [move(p, 100, 300, { t: 1000 })], 1000), 'motion')).toEqual([]);
    expect(ofType(tick(w, [move(p, 100, 300, { t: 1100, facing: 2 })], 1100), 'motion')).toHaveLength(1);
    expect(p.sent).toMatchObject({ moving: false, angle: 2 });
  });

  it('several states in one step emit one motion event, with the newest', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 300 }));
    const events = tick(
      w,
      [
        arrived(move(a, 104, 300, { t: 150 }), 150),
        arrived(move(a, 108, 300, { t: 175 }), 175),
        arrived(move(a, 112, 300, { t: 200 }), 200),
      ],
      200,
    );
    expect(ofType(events, 'motion')).toHaveLength(1);
    expect(a.sent).toMatchObject({ x: 112, y: 300, moving: false });
  });

  it('a straight walk with a state every CLIENT_HEARTBEAT_MS emits motion at most once per heartbeat, plus start and stop', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    const sends: Send[] = [];
    for (let t = 1000; t <= 6000; t += CLIENT_HEARTBEAT_MS)
      sends.push({ input: walk.at(t, t < 6000), arrives: t });
    const times = motionTimes(play(w, sends, 6500), p);
    expect(times[0]).toBe(1000);
    expect(times.at(-1)).toBe(6000);
    const walking = times.slice(0, -1);
    expect(times.length).toBeLessThanOrEqual(2 + 5000 / MOTION_HEARTBEAT_MS);
    for (let i = 1; i < walking.length; i++) {
      const gap = walking[i]! - walking[i - 1]!;
      expect(gap).toBeGreaterThanOrEqual(MOTION_HEARTBEAT_MS);
      // ...and no less often: a heartbeat is due at the first state past it.
      expect(gap).toBeLessThanOrEqual(MOTION_HEARTBEAT_MS + CLIENT_HEARTBEAT_MS);
    }
  });

  it('re-sends the state when observers would stray more than MOTION_ERROR_UNITS, not before', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    tick(w, [move(p, 100, 300, { t: 1000, moving: true })], 1000);
    // It falls behind where its state puts it (sliding along something), a little, then more.
    const near = tick(w, [move(p, 130 - (MOTION_ERROR_UNITS - 1), 300, { t: 1250, moving: true })], 1250);
    expect(ofType(near, 'motion')).toEqual([]);
    const far = tick(w, [move(p, 160 - (MOTION_ERROR_UNITS + 6), 300, { t: 1500, moving: true })], 1500);
    expect(ofType(far, 'motion')).toHaveLength(1);
    expect(p.sent).toMatchObject({ x: 160 - (MOTION_ERROR_UNITS + 6), t: 1500, moving: true });
  });

  // A walker that sent its start at 1000 and a state at 1100; the next one, due by OVERDUE
  // (a heartbeat and a send step later), is stuck on its link. Held from then, decided a grace
  // later (by HELD_BY).
  const OVERDUE = 1100 + INPUT_OVERDUE_MS;
  const HELD_X = 100 + (120 * (OVERDUE - 1000)) / 1000;
  const HELD_BY = Math.ceil((OVERDUE + INPUT_GRACE_MS) / 50) * 50;
  function stalledWalker(obstacles: { x: number; y: number; w: number; h: number }[] = []) {
    const w = world({ zone: { obstacles } });
    const p = join(w, player({ x: 100, y: 300 }));
    const walk = walker(p, 0, 1000);
    tick(w, [walk.at(1000)], 1000);
    tick(w, [walk.at(1100)], 1100);
    return { w, p, walk };
  }

  it('holds a walker whose next input is overdue where observers had it then, not run on or pulled back', () => {
    const { w, p } = stalledWalker();
    const before = runUntil(w, Math.floor((OVERDUE + INPUT_GRACE_MS - 1) / 50) * 50);
    expect(ofType(before, 'motion')).toEqual([]);
    expect(p.moving).toBe(true);
    const late = p.timeline.late;
    const at = Math.ceil((OVERDUE + INPUT_GRACE_MS) / 50) * 50;
    const hold = tick(w, [], at);
    expect(ofType(hold, 'motion')).toHaveLength(1);
    expect(p.moving).toBe(false);
    // Where its state (112 at 1100, 120 u/s) had walked it when its next input was overdue,
    // dated then: no watcher has drawn it further (the grace is within their margin), and
    // it went no further than its inputs vouch for.
    expect(p.sent).toMatchObject({ y: 300, moving: false, t: OVERDUE });
    expect(p.sent.x).toBeCloseTo(HELD_X, 6);
    expect(p.timeline.late).toBe(late + 1);
    expect(runUntil(w, 4000)).toEqual([]);
  });

  it('does not hold a walker whose heartbeat is late by less than the grace (a frame that hitched)', () => {
    const { w, p, walk } = stalledWalker();
    const at = Math.floor((OVERDUE + INPUT_GRACE_MS - 1) / 50) * 50;
    runUntil(w, at - 50);
    const events = tick(w, [walk.at(OVERDUE + INPUT_GRACE_MS - 60)], at);
    expect(ofType(events, 'motion')).toEqual([]);
    expect(p.moving).toBe(true);
    expect(runUntil(w, at + 50).filter((e) => e.type === 'motion')).toEqual([]);
  });

  it('a held walker takes the inputs its stall held up with no correction, though they start behind the hold', () => {
    const { w, p, walk } = stalledWalker();
    const end = HELD_BY + 300;
    runUntil(w, end);
    expect(p.moving).toBe(false);
    expect(p.x).toBeCloseTo(HELD_X, 6);
    // The heartbeats it made meanwhile were stuck behind a lost segment: all arrive at once.
    const burst = [];
    let last = 1200;
    for (let t = 1200; t <= end; t += CLIENT_HEARTBEAT_MS) burst.push(walk.at((last = t)));
    // Held, it takes them as a new start: each in its time, the offset now covering the stall.
    const after = [...tick(w, burst, end + 50), ...runUntil(w, end + 700)];
    expect(received(after, p.id, 'PositionCorrection')).toEqual([]);
    expect(p.lastSeq).toBe((burst.at(-1) as { seq: number }).seq);
    expect(p.moving).toBe(true);
    expect(p.x).toBeCloseTo(100 + (120 * (last - 1000)) / 1000, 6);
  });

  it('a held walker whose stop was the stalled input stops there, accepted though it is behind the hold', () => {
    const { w, p, walk } = stalledWalker();
    runUntil(w, HELD_BY);
    expect(p.moving).toBe(false);
    // It stopped 20 ms after its last heartbeat; the stop arrives after the hold.
    const events = tick(w, [walk.at(1120, false)], HELD_BY + 50);
    expect(received(events, p.id, 'PositionCorrection')).toEqual([]);
    expect(p.x).toBeCloseTo(112 + 2.4, 6);
    expect(p.sent.moving).toBe(false);
  });

  it('a held walker may not claim its walk from where the hold stood it: a move beyond reach of its last input is refused', () => {
    const { w, p } = stalledWalker();
    runUntil(w, HELD_BY);
    expect(p.x).toBeCloseTo(HELD_X, 6);
    // A move 60 ms of client time after its last input (112 at 1100) to 10 units past the
    // hold: in reach from the hold, not from its last input.
    const to = HELD_X + 10;
    expect(to - 112).toBeGreaterThan((120 * MOVE_TOLERANCE * 60) / 1000 + MOVE_SLACK_UNITS);
    const events = tick(w, [move(p, to, 300, { t: 1160, moving: true })], HELD_BY + 50);
    expect(received(events, p.id, 'PositionCorrection').map((c) => c.reason)).toEqual(['speed']);
    expect(p.lastInput).toEqual({ x: p.x, y: p.y });
  });

  it('a held walker may not pass a wall on the way from its last input, though the way from the hold is clear', () => {
    // A wall north of the walk, between the last input (112, 300) and the hold: from the
    // last input the way to (140, 270) crosses it; from where the hold stands it does not.
    const { w, p } = stalledWalker([{ x: 118, y: 200, w: 4, h: 90 }]);
    runUntil(w, HELD_BY);
    expect(p.x).toBeCloseTo(HELD_X, 6);
    const events = tick(w, [move(p, 140, 270, { t: HELD_BY + 150, moving: true })], HELD_BY + 200);
    expect(received(events, p.id, 'PositionCorrection').map((c) => c.reason)).toEqual(['obstacle']);
  });

  it('a corrected walker stands for its observers', () => {
    const w = world({ zone: { obstacles: [] } });
    const p = join(w, player({ x: 100, y: 300 }));
    tick(w, [move(p, 100, 300, { t: 1000, moving: true })], 1000);
    const events = tick(w, [move(p, 400, 300, { t: 1050, moving: true })], 1050);
    expect(received(events, p.id, 'PositionCorrection')).toHaveLength(1);
    expect(ofType(events, 'motion')).toHaveLength(1);
    expect(p.sent).toMatchObject({ x: 100, y: 300, moving: false });
  });

  it('an honest client under random latency is never corrected, and observers always have its current course', () => {
    const segment = fc.record({
      ms: fc.integer({ min: 50, max: 400 }),
      turn: fc.oneof(fc.constant(0), fc.double({ min: -1.5, max: 1.5, noNaN: true })),
      speed: fc.constantFrom(120, 120, 90, 60),
      moving: fc.oneof(
        { arbitrary: fc.constant(true), weight: 4 },
        { arbitrary: fc.constant(false), weight: 1 },
      ),
      latency: fc.integer({ min: 0, max: 600 }),
    });
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 40 }), (segments) => {
        const w = world({ zone: { obstacles: [] } });
        const p = join(w, player({ x: 500, y: 500 }));
        // The client's own walk: a state at each change, positions exactly where it walked.
        const sends: Send[] = [];
        let t = 1000;
        let x = 500;
        let y = 500;
        let heading = 0;
        let arrives = 0;
        for (const s of segments) {
          heading = Math.hypot(x - 500, y - 500) > 300 ? Math.atan2(500 - y, 500 - x) : heading + s.turn;
          arrives = Math.max(arrives, t + s.latency); // in order, as over TCP
          sends.push({
            input: move(p, x, y, { t, facing: heading, moving: s.moving, speed: s.speed }),
            arrives,
          });
          if (s.moving) {
            x += (Math.cos(heading) * s.speed * s.ms) / 1000;
            y += (Math.sin(heading) * s.speed * s.ms) / 1000;
          }
          t += s.ms;
        }
        arrives = Math.max(arrives, t);
        sends.push({ input: move(p, x, y, { t, facing: heading }), arrives });
        let accepted = 0;
        const steps = play(w, sends, arrives + MAX_HOLD_MS + 100, (s) => {
          if (received(s.events, p.id, 'MoveAck').length === 0) return;
          accepted++;
          // Whatever the newest state changed (start, stop, heading, speed) went out in this step.
          expect(p.sent.moving).toBe(p.moving);
          if (p.moving) {
            expect(quantizeAngle(p.sent.angle)).toBe(quantizeAngle(p.facing));
            expect(quantizeSpeed(p.sent.speed)).toBe(quantizeSpeed(p.moveSpeed));
          } else expect([p.sent.x, p.sent.y]).toEqual([p.x, p.y]);
        });
        expect(corrections(steps, p)).toEqual([]);
        expect(accepted).toBeGreaterThan(0);
        expect(distance(p, { x, y })).toBeLessThan(1e-6);
      }),
      { numRuns: 150 },
    );
  });
});

describe('shared path rules', () => {
  it('places a walker along its waypoints by elapsed time', () => {
    const path = [
      { x: 100, y: 0 },
      { x: 100, y: 100 },
    ];
    expect(positionAlongPath({ x: 0, y: 0 }, path, 100, 500)).toMatchObject({ x: 50, y: 0, arrived: false });
    const turned = positionAlongPath({ x: 0, y: 0 }, path, 100, 1500);
    expect(turned).toMatchObject({ x: 100, y: 50, arrived: false });
    expect(turned.facing).toBeCloseTo(Math.PI / 2);
    expect(positionAlongPath({ x: 0, y: 0 }, path, 100, 5000)).toMatchObject({
      x: 100,
      y: 100,
      arrived: true,
    });
  });

  it('finds walls across a straight walk', () => {
    const wall = [{ x: 50, y: 0, w: 10, h: 100 }];
    expect(segmentBlocked({ x: 0, y: 50 }, { x: 100, y: 50 }, wall)).toBe(true);
    expect(segmentBlocked({ x: 0, y: 150 }, { x: 100, y: 150 }, wall)).toBe(false);
  });
});
