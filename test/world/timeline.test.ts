import { describe, expect, it } from 'vitest';
import { WorldView } from '../../shared/client/world-view.js';
import { sampleMotion } from '../../shared/game/interpolation.js';
import { CLIENT_HEARTBEAT_MS, INPUT_OVERDUE_MS, type MotionState } from '../../shared/game/motion.js';
import { PLAYER_SPEED } from '../../shared/game/movement.js';
import { mulberry32 } from '../../shared/game/rng.js';
import { RenderClock } from '../../web-client/src/state/render-clock.js';
import {
  LATENESS_WINDOW_MS,
  LatenessWindow,
  MAX_HOLD_MS,
  newTimeline,
  place,
} from '../../server/world/timeline.js';
import type { MoveInput, WorldInput } from '../../server/world/index.js';
import {
  cast,
  FIREBALL,
  join,
  mobAt,
  mobId,
  move,
  ofType,
  player,
  runUntil,
  tick,
  world,
} from './builders.js';

describe('the lateness window', () => {
  it('knows the most and least delayed input of the last LATENESS_WINDOW_MS', () => {
    const l = new LatenessWindow();
    expect(l.least()).toBe(Infinity);
    expect(l.most()).toBe(-Infinity);
    l.add(1000, 900); // 100 late
    l.add(1300, 1250); // 50
    l.add(1700, 1400); // 300
    expect([l.least(), l.most()]).toEqual([50, 300]);
    // The 300 ms one leaves the window; a 60 ms one comes.
    l.add(1700 + LATENESS_WINDOW_MS + 1, 1640 + LATENESS_WINDOW_MS + 1);
    expect([l.least(), l.most()]).toEqual([60, 60]);
  });

  it('holds at most MAX_HOLD_MS above the least delayed input', () => {
    const l = new LatenessWindow();
    l.add(1000, 1000);
    l.add(5000, 1000); // a 4 s stall
    expect(l.most()).toBe(MAX_HOLD_MS);
  });
});

describe('placing inputs on the timeline', () => {
  it('takes the most delayed offset at a start and keeps it for the walk', () => {
    const tl = newTimeline<string>(0);
    // Standing: 100 and 40 ms late; the start takes 100.
    let offset = place(tl, Infinity, 1000, 1100, true).offset;
    const start = place(tl, offset, 2000, 2040, true);
    expect(start).toEqual({ due: 2100, offset: 100 });
    expect(tl.held).toBe(60);
    // Walking: a heartbeat 10 ms late waits for its time, one 300 ms late is taken at once.
    offset = start.offset;
    expect(place(tl, offset, 2250, 2260, false)).toEqual({ due: 2350, offset: 100 });
    // Due before it came: taken at the step it came to, dated when it should have been.
    expect(tl.late).toBe(0);
    expect(place(tl, offset, 2500, 2800, false)).toEqual({ due: 2600, offset: 100 });
    expect(tl.late).toBe(1);
    // A few ms after its time is within every watcher's margin: not late.
    place(tl, offset, 2750, 2870, false);
    expect(tl.late).toBe(1);
  });

  it('never places an input before the one placed ahead of it', () => {
    const tl = newTimeline<string>(0);
    const first = place(tl, Infinity, 1000, 1500, true); // 500 late: due 1500
    // Standing again soon after, the window's least delayed input is far less late.
    const next = place(tl, first.offset, 1100, 1110, true);
    expect(next.due).toBeGreaterThanOrEqual(first.due);
  });

  it('holds an input dated ahead (a fast clock) no longer than MAX_HOLD_MS after it came', () => {
    const tl = newTimeline<string>(0);
    const { offset } = place(tl, Infinity, 1000, 1000, true);
    expect(place(tl, offset, 9000, 2000, false).due).toBe(2000 + MAX_HOLD_MS);
  });

  it('places an input without a client time when it arrived', () => {
    const tl = newTimeline<string>(0);
    expect(place(tl, Infinity, NaN, 700, true).due).toBe(700);
  });
});

// ------------------------------------------------------------ a watcher of a mover on a bad link

interface Link {
  latency: (clientTime: number, rng: () => number) => number;
  /** Chance an input is lost once and resent a retransmission timeout later (TCP-like). */
  loss?: number;
}

interface Watch {
  /** Per stop: how far past its stop point (along the walk) the watcher drew the mover. */
  overshoot: number[];
  /** Distance between where the watcher drew the mover and where the server had it then, per frame. */
  errors: number[];
  /** Where it was drawn in the end, against where it stopped for good. */
  endError: number;
  /** Largest step backwards against the walk (units). */
  slideBack: number;
  corrections: number;
}

const TICK = 50;
const FRAME = 1000 / 60;
const RTO = 200;
/** The mover's clock reads this much less than the server's. */
const CLOCK_SKEW = 12_345;

/**
 * A mover walks east 1.1 s and stops 0.9 s, six times, sending its state on a start, a stop
 * and every CLIENT_HEARTBEAT_MS while walking (as the client SDK does), over `link`; the server steps every
 * 50 ms; a watcher on a clean link applies each step's motion as the replication writer sends
 * it (state time as the update's time less its age) and draws the mover every frame at its
 * render clock's time, through the client SDK's WorldView. Where the server had the mover at
 * a time is its record: each input where and when it took effect.
 */
function watchMover(link: Link, seed = 7): Watch {
  const rng = mulberry32(seed);
  const w = world({ zone: { obstacles: [] } });
  const mover = join(w, player({ x: 100, y: 300 }));
  const speed = mover.speed;
  // The mover's script, in server time: [start, stop] of each walk.
  const walks: [number, number][] = [];
  for (let i = 0; i < 6; i++) walks.push([1000 + i * 2000, 1000 + i * 2000 + 1100]);
  const xAt = (t: number): number => {
    let x = 100;
    for (const [a, b] of walks) if (t > a) x += (speed * (Math.min(t, b) - a)) / 1000;
    return x;
  };
  // Inputs with their arrival, in order as over TCP.
  const inputs: { input: MoveInput; arrives: number }[] = [];
  let lastArrival = 0;
  let seq = 1;
  for (const [a, b] of walks) {
    for (let t = a; t <= b; t = t < b && t + CLIENT_HEARTBEAT_MS > b ? b : t + CLIENT_HEARTBEAT_MS) {
      const moving = t < b;
      let delay = link.latency(t, rng);
      if (link.loss && rng() < link.loss) delay += RTO + 2 * delay;
      lastArrival = Math.max(lastArrival, t + delay);
      inputs.push({
        input: {
          type: 'move',
          entityId: mover.id,
          seq: seq++,
          x: xAt(t),
          y: 300,
          facing: 0,
          moving,
          speed: moving ? speed : 0,
          clientTime: t - CLOCK_SKEW,
        },
        arrives: lastArrival,
      });
    }
  }
  const view = new WorldView();
  const clock = new RenderClock();
  view.spawn(
    {
      kind: 'spawn',
      id: mover.id,
      entity: 'player',
      template: 0,
      name: mover.name,
      level: 1,
      health: 100,
      maxHealth: 100,
      alive: true,
      speed,
      appearance: 0,
    },
    { kind: 'move', id: mover.id, x: 100, y: 300, angle: 0, moving: false, jump: false, speed: undefined },
    w.now,
  );
  const entity = view.get(mover.id)!;
  const record: MotionState[] = [{ x: 100, y: 300, t: w.now, moving: false, angle: 0, speed: 0 }];
  const frames: { r: number; x: number }[] = [];
  let corrections = 0;
  let next = 0;
  let frame = w.now;
  const end = walks.at(-1)![1] + 2500;
  for (let t = w.now + TICK; t <= end; t += TICK) {
    const due: WorldInput[] = [];
    while (next < inputs.length && inputs[next]!.arrives <= t) {
      due.push({ ...inputs[next]!.input, receivedAt: inputs[next]!.arrives });
      next++;
    }
    const lastSeq = mover.lastSeq;
    for (const e of tick(w, due, t)) {
      if (e.type === 'moveRefused' && e.player === mover) corrections++;
      if (e.type !== 'motion' || e.entity !== mover) continue;
      const s = mover.sent;
      view.move(
        {
          kind: 'move',
          id: mover.id,
          x: s.x,
          y: s.y,
          angle: s.angle,
          moving: s.moving,
          jump: e.jump,
          speed: s.speed,
          age: t - s.t,
        },
        t,
      );
    }
    if (mover.lastSeq !== lastSeq) {
      const m = {
        x: mover.x,
        y: mover.y,
        t: mover.inputAt,
        moving: mover.moving,
        angle: 0,
        speed: mover.moveSpeed,
      };
      while (record.length > 0 && record.at(-1)!.t >= m.t) record.pop();
      record.push(m);
    }
    clock.observe(t, t);
    for (; frame < t + TICK; frame += FRAME) {
      clock.bounded = entity.motion.at(-1)?.moving ?? false;
      const r = clock.renderTime(frame);
      frames.push({ r, x: view.positionAt(entity, r).x });
    }
  }
  const out: Watch = { overshoot: walks.map(() => 0), errors: [], endError: 0, slideBack: 0, corrections };
  let before: number | undefined;
  for (const { r, x } of frames) {
    const truth = sampleMotion(record, r)!.x;
    out.errors.push(Math.abs(x - truth));
    walks.forEach(([, b], i) => {
      // While the server had it standing at this stop, nothing past the stop may be drawn.
      if (Math.abs(truth - xAt(b)) < 0.01) out.overshoot[i] = Math.max(out.overshoot[i]!, x - xAt(b));
    });
    if (before !== undefined) out.slideBack = Math.max(out.slideBack, before - x);
    before = x;
  }
  out.endError = Math.abs(frames.at(-1)!.x - xAt(end));
  return out;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

describe('a watcher of a mover whose own link is the bad one', () => {
  const cases: [string, Link][] = [
    ['clean', { latency: () => 0 }],
    // Clean when it began (the server learns the least delay), then 200 ms each way.
    ['200 ms from the third walk on', { latency: (t) => (t < 4500 ? 0 : 200) }],
    ['200±50 ms', { latency: (_t, rng) => 150 + 100 * rng() }],
    ['150±100 ms', { latency: (_t, rng) => 50 + 200 * rng() }],
  ];
  it.each(cases)('on %s draws it at most 1 unit past any stop and never slides it back', (_name, link) => {
    for (const seed of [1, 2, 3]) {
      const r = watchMover(link, seed);
      expect(r.corrections).toBe(0);
      expect(Math.max(...r.overshoot)).toBeLessThanOrEqual(1);
      expect(r.slideBack).toBeLessThanOrEqual(1);
      expect(r.endError).toBeLessThanOrEqual(0.5);
      expect(quantile(r.errors, 0.99)).toBeLessThanOrEqual(2);
    }
  });

  it('on 200±50 ms + 5% loss draws it past a stop only when a stall outlasts every recent one, and then no further than its inputs vouch for', () => {
    let stops = 0;
    let over = 0;
    let most = 0;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const r = watchMover({ latency: (_t, rng) => 150 + 100 * rng(), loss: 0.05 }, seed);
      expect(r.corrections).toBe(0);
      stops += r.overshoot.length;
      over += r.overshoot.filter((o) => o > 1).length;
      most = Math.max(most, ...r.overshoot);
      expect(r.endError).toBeLessThanOrEqual(0.5);
    }
    expect(over / stops).toBeLessThanOrEqual(0.1);
    expect(most).toBeLessThanOrEqual((PLAYER_SPEED * INPUT_OVERDUE_MS) / 1000 + 1);
  });

  it('draws a walker whose stop is stuck on its link longer than any stall before no further past it than a heartbeat and a send step of walk', () => {
    // 100 ms each way; the fourth walk's stop, and everything behind it, 800 ms later still.
    // Walked on until a second of silence, it was drawn about 100 units past it and pulled back.
    const stuck = (t: number) => t === 7000 + 1100;
    for (const seed of [1, 2, 3]) {
      const r = watchMover({ latency: (t) => (stuck(t) ? 900 : 100) }, seed);
      expect(r.corrections).toBe(0);
      const bound = (PLAYER_SPEED * INPUT_OVERDUE_MS) / 1000;
      expect(r.overshoot[3]).toBeLessThanOrEqual(bound);
      expect(r.slideBack).toBeLessThanOrEqual(bound);
      expect(Math.max(...r.overshoot.filter((_, i) => i !== 3))).toBeLessThanOrEqual(1);
      expect(r.endError).toBeLessThanOrEqual(0.5);
    }
  });
});

describe('inputs made after queued moves', () => {
  it('a cast made right after a stop starts once the stop has taken effect, not interrupted by it', () => {
    const w = world({ zone: { obstacles: [] }, mobs: [mobAt(300, 300)] });
    const p = join(w, player({ x: 100, y: 300 }));
    const input = (t: number, x: number, moving: boolean, arrives: number): WorldInput => ({
      ...(move(p, x, 300, { t, moving }) as MoveInput),
      receivedAt: arrives,
    });
    // The start came 300 ms late: the walk is placed 300 ms behind its client's clock.
    tick(w, [input(1000, 100, true, 1300)], 1300);
    tick(w, [input(1250, 130, true, 1270)], 1350);
    // The stop (due 1800) and a cast made just after it arrive together.
    const events = tick(w, [input(1500, 160, false, 1520), cast(p.id, FIREBALL, mobId(0))], 1550);
    expect(ofType(events, 'castStarted')).toEqual([]);
    events.push(...runUntil(w, 1900));
    expect(ofType(events, 'castStarted')).toHaveLength(1);
    expect([...ofType(events, 'castFailed'), ...ofType(events, 'castRefused')]).toEqual([]);
    expect([p.x, p.moving]).toEqual([160, false]);
  });
});
