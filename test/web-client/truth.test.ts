import { describe, expect, it } from 'vitest';
import { pathMotion, sampleMotion } from '../../shared/game/interpolation.js';
import type { MotionState } from '../../shared/game/motion.js';
import { positionAlongPath } from '../../shared/game/movement.js';
import {
  DrawnErrorMeter,
  SETTLE_MS,
  ServerRecord,
  TruthRecord,
  addState,
  figures,
  leftAt,
  overshootPast,
  type FeedEntity,
  type TrueState,
} from '../../web-client/src/state/truth.js';

const TICK_MS = 50;
const WALKER = 7;

/** A player's accepted inputs, as the feed reports them (x, y at `at`). */
function input(at: number, x: number, y: number, moving: boolean, facing = 0, speed = 120): FeedEntity {
  return { id: WALKER, x, y, at, facing, moving, speed: moving ? speed : 0 };
}

/**
 * The square walk's first corner: east at 120 u/s from (0, 0) at t = 1000, an input every
 * 250 ms, a stop at (180, 0) at 2500, then south from 3200.
 */
function cornerWalk(): FeedEntity[] {
  const inputs: FeedEntity[] = [];
  for (let t = 1000; t < 2500; t += 250) inputs.push(input(t, (120 * (t - 1000)) / 1000, 0, true));
  inputs.push(input(2500, 180, 0, false));
  // A start is sent a frame into the walk (2 units from the stop).
  for (let t = 3200; t <= 4200; t += 250)
    inputs.push(input(t, 180, 2 + (120 * (t - 3200)) / 1000, true, Math.PI / 2));
  return inputs;
}

/** Each tick from `from` to `to`, the feed's snapshot: the newest input each entity had by then. */
function feed(record: TruthRecord, inputs: readonly FeedEntity[], from: number, to: number): void {
  for (let time = from; time <= to; time += TICK_MS) {
    const newest = new Map<number, FeedEntity>();
    for (const i of inputs) if (i.at <= time) newest.set(i.id, i);
    record.add({ time, entities: [...newest.values()] });
  }
}

/** The states a client builds from those inputs: where a pane that draws the truth draws. */
function asStates(inputs: readonly FeedEntity[]): MotionState[] {
  return inputs.map((i) => ({ x: i.x, y: i.y, t: i.at, moving: i.moving, angle: i.facing, speed: i.speed }));
}

/** A pane drawing `where(t)` every 60th of a second over [from, to] (server ms). */
function draw(
  meter: DrawnErrorMeter,
  from: number,
  to: number,
  where: (t: number) => { x: number; y: number },
) {
  for (let t = from; t <= to; t += 1000 / 60) meter.frame(t + 5000, t, [{ id: WALKER, ...where(t) }]);
}

describe('the server record built from the lab feed', () => {
  it('keeps one state per distinct at, and marks a stop with the way it walked', () => {
    const record = new TruthRecord();
    feed(record, cornerWalk(), 1000, 3000);
    const states = record.states(WALKER);
    expect(states.map((s) => s.t)).toEqual([1000, 1250, 1500, 1750, 2000, 2250, 2500]);
    expect(states[6]).toMatchObject({ x: 180, moving: false, stop: { x: 180, y: 0, t: 2500, angle: 0 } });
    expect(record.at(WALKER, 2400)).toEqual({ x: 168, y: 0, facing: 0 });
    expect(record.at(WALKER, 2900)).toMatchObject({ x: 180, y: 0 });
    // It left the stop 2 units (1/60 s) before its first input south, not creeping from 2500.
    feed(record, cornerWalk(), 3050, 3500);
    expect(record.at(WALKER, 3150)).toMatchObject({ x: 180, y: 0 });
    expect(record.at(WALKER, 3200 - 1000 / 60)).toMatchObject({ x: 180, y: 0 });
    expect(record.at(WALKER, 3200)).toMatchObject({ x: 180, y: 2 });
  });

  it('takes the same at again as a change of the newest state (a silent walker stopped)', () => {
    const states: TrueState[] = [];
    addState(states, input(1000, 0, 0, true));
    addState(states, input(1250, 30, 0, true));
    addState(states, input(1250, 30, 0, false));
    addState(states, input(1100, 99, 0, true));
    expect(states).toHaveLength(2);
    expect(states[1]).toMatchObject({ moving: false, stop: { x: 30, t: 1250 } });
  });

  it('measures how far past a stop a point lies along the way it walked, never less than 0', () => {
    const stop = { x: 180, y: 0, t: 0, angle: 0 };
    expect(overshootPast(stop, { x: 183, y: 5 })).toBeCloseTo(3);
    expect(overshootPast(stop, { x: 170, y: 0 })).toBe(0);
    expect(overshootPast({ ...stop, angle: Math.PI / 2 }, { x: 180, y: 2 })).toBeCloseTo(2);
  });

  it('has a walker leave its stop in time to reach its next state at its speed', () => {
    const stop = { x: 180, y: 0, t: 2500, angle: 0 };
    const start = { x: 180, y: 12, t: 3300, moving: true, angle: Math.PI / 2, speed: 120 };
    expect(leftAt(stop, start)).toBeCloseTo(3200);
    expect(leftAt(stop, { ...start, moving: false, speed: 0 })).toBe(3300);
  });
});

describe("a pane's drawn error against the record", () => {
  it('is 0 for a pane that draws exactly the record, through the stop and the turn', () => {
    const inputs = cornerWalk();
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    // As a client draws it: standing at the stop until it leaves, a frame before its first input south.
    const states = asStates(inputs);
    states.splice(7, 0, { ...states[6]!, t: 3200 - 1000 / 60 });
    draw(meter, 1000, 4000, (t) => sampleMotion(states, t)!);
    feed(record, inputs, 1000, 4200 + SETTLE_MS);
    meter.settle(record);
    const f = meter.runFigures();
    expect(f.samples).toBeGreaterThan(170);
    expect(f.max).toBeLessThan(1e-9);
    expect(f).toMatchObject({ stops: 1, overshoot: 0, slideBacks: 0 });
    expect(meter.marks).toHaveLength(0);
  });

  it('gives overshoot 3 and one slide-back for a stop drawn 3 units past, then pulled back', () => {
    const inputs = cornerWalk();
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    // Walked on 25 ms past the stop (3 units), held there, then slid back onto it.
    draw(meter, 1000, 3000, (t) => {
      if (t <= 2525) return { x: (120 * (t - 1000)) / 1000, y: 0 };
      if (t <= 2575) return { x: 183, y: 0 };
      if (t <= 2650) return { x: 183 - (3 * (t - 2575)) / 75, y: 0 };
      return { x: 180, y: 0 };
    });
    feed(record, inputs, 1000, 3000 + SETTLE_MS);
    meter.settle(record);
    const f = meter.runFigures();
    expect(f.overshoot).toBeCloseTo(3, 1);
    expect(f.max).toBeCloseTo(3, 1);
    expect(f.stops).toBe(1);
    expect(f.slideBacks).toBe(1);
    // Over 2 units it is marked on the view, where it was drawn and where it truly was.
    expect(meter.marks.length).toBeGreaterThan(0);
    expect(meter.marks[0]).toMatchObject({ trueX: 180, trueY: 0 });
    expect(meter.figures()).toMatchObject({ stops: 1, slideBacks: 1 });
  });

  it('counts no slide-back where the record itself goes back against its heading (two turns in one tick, fed as one state)', () => {
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    // West from 100; within the next tick it went back east 5 units and turned west again: the
    // feed has the newest state, 3 units east of the one before, heading west like it.
    const inputs = [
      input(1000, 100, 0, true, Math.PI),
      input(1040, 103, 0, true, Math.PI),
      input(1290, 73, 0, true, Math.PI),
      input(1540, 43, 0, true, Math.PI),
    ];
    const states = asStates(inputs);
    draw(meter, 1000, 1540, (t) => sampleMotion(states, t)!);
    feed(record, inputs, 1000, 1540 + SETTLE_MS);
    meter.settle(record);
    const f = meter.runFigures();
    expect(f.max).toBeLessThan(1e-9);
    expect(f.slideBacks).toBe(0);
    // A pane that drew it on west from 100, while the record had it go back east, slid back.
    const ranOn = new DrawnErrorMeter();
    draw(ranOn, 1000, 1540, (t) =>
      t < 1040 ? { x: 100 - (120 * (t - 1000)) / 1000, y: 0 } : sampleMotion(states, t)!,
    );
    ranOn.settle(record);
    expect(ranOn.runFigures().slideBacks).toBe(1);
  });

  it('counts no slide-back for a walker leaving its stop back the way it came (the walk home after a stop)', () => {
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    // West to a stop at 70 (1250), then east from 1500: its first input 25 ms into the walk.
    const inputs = [
      input(1000, 100, 0, true, Math.PI),
      input(1250, 70, 0, false, Math.PI),
      input(1525, 73, 0, true, 0),
      input(1775, 103, 0, true, 0),
    ];
    // As a client draws it: standing at the stop until it leaves, 25 ms before that input.
    const states = asStates(inputs);
    states.splice(2, 0, { ...states[1]!, t: 1500 });
    draw(meter, 1000, 1750, (t) => sampleMotion(states, t)!);
    feed(record, inputs, 1000, 1750 + SETTLE_MS);
    meter.settle(record);
    const f = meter.runFigures();
    expect(f.max).toBeLessThan(1e-9);
    expect(f).toMatchObject({ stops: 1, overshoot: 0, slideBacks: 0 });
  });

  it('takes no stop from a walker the server stopped for silence whose held-back inputs then said it walked on', () => {
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    // Inputs up to 1500, then silence: the server stands it where its last input put it
    // (the same at, now standing); the inputs held back come at once, the newest dated 2750.
    const inputs = [input(1000, 0, 0, true), input(1250, 30, 0, true), input(1500, 60, 0, true)];
    feed(record, inputs, 1000, 2500);
    feed(record, [...inputs, input(1500, 60, 0, false)], 2550, 2700);
    feed(record, [input(2750, 210, 0, true)], 2750, 2750 + SETTLE_MS);
    // A pane that drew the walk as it was: straight on at 120 u/s.
    draw(meter, 1000, 2750, (t) => ({ x: (120 * (t - 1000)) / 1000, y: 0 }));
    meter.settle(record);
    const f = meter.runFigures();
    expect(f).toMatchObject({ stops: 0, overshoot: 0, slideBacks: 0 });
    expect(f.max).toBeLessThan(0.5);
  });

  it('judges a frame only once the record covers its time', () => {
    const inputs = cornerWalk();
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    feed(record, inputs, 1000, 1900);
    meter.frame(0, 1900, [{ id: WALKER, x: 108, y: 0 }]);
    meter.settle(record);
    // The newest input is dated 1750: at 1900 the record still only guesses.
    expect(meter.waiting).toBe(1);
    feed(record, inputs, 1950, 2000);
    meter.settle(record);
    expect(meter.waiting).toBe(0);
    expect(meter.runFigures().max).toBeCloseTo(0);
  });

  it('judges a standing entity once it stayed in the feed SETTLE_MS past the time drawn', () => {
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    const standing = [input(500, 50, 50, false)];
    meter.frame(0, 1000, [{ id: WALKER, x: 51, y: 50 }]);
    feed(record, standing, 500, 1000 + SETTLE_MS - TICK_MS);
    meter.settle(record);
    expect(meter.waiting).toBe(1);
    feed(record, standing, 1000 + SETTLE_MS, 1000 + SETTLE_MS);
    meter.settle(record);
    expect(meter.runFigures()).toMatchObject({ samples: 1, max: 1 });
  });

  it('leaves out an entity the feed never showed', () => {
    const record = new TruthRecord();
    const meter = new DrawnErrorMeter();
    meter.frame(0, 1000, [{ id: 99, x: 0, y: 0 }]);
    feed(record, [input(500, 0, 0, false)], 500, 1000 + SETTLE_MS);
    meter.settle(record);
    expect(meter.waiting).toBe(0);
    expect(meter.runFigures().samples).toBe(0);
  });

  it("follows a mob on a route: the client's path math is within the feed's tick, late drawing is not", () => {
    const MOB = 1 << 20;
    const start = { x: 0, y: 0 };
    const waypoints = [
      { x: 100, y: 0 },
      { x: 100, y: 100 },
    ];
    const speed = 100;
    const began = 1020;
    const record = new TruthRecord();
    for (let time = 1000; time <= 4500; time += TICK_MS) {
      const p = positionAlongPath(start, waypoints, speed, time - began);
      record.add({
        time,
        entities: [{ id: MOB, x: p.x, y: p.y, at: time, facing: p.facing, moving: !p.arrived, speed }],
      });
    }
    const route = pathMotion(start, waypoints, speed, began);
    const onTime = new DrawnErrorMeter();
    const late = new DrawnErrorMeter();
    for (let t = 1100; t <= 4000; t += 1000 / 60) {
      onTime.frame(t, t, [{ id: MOB, ...sampleMotion(route, t)! }]);
      late.frame(t, t, [{ id: MOB, ...sampleMotion(route, t - 100)! }]);
    }
    onTime.settle(record);
    late.settle(record);
    const a = onTime.runFigures();
    // The record is a line between ticks: it cuts the corner by under 2 units, nowhere else.
    expect(a.p50).toBeLessThan(1e-6);
    expect(a.max).toBeLessThan(2);
    expect(a).toMatchObject({ stops: 1, overshoot: 0, slideBacks: 0 });
    // Drawn 100 ms behind at 100 u/s: 10 units off while it walks.
    expect(late.runFigures().p50).toBeCloseTo(10, 0);
    expect(late.runFigures().overshoot).toBe(0);
  });
});

describe("the lab's live meter and the bench's after-the-run figures", () => {
  it('judge one walk, one stop and one pane drawn 10 units past it and pulled back alike', () => {
    // East at 100 u/s from x = 0 at 1000, an input at 1500, standing at x = 100 from 2000.
    const inputs = [
      input(1000, 0, 0, true, 0, 100),
      input(1500, 50, 0, true, 0, 100),
      input(2000, 100, 0, false, 0, 100),
    ];
    const drawn = (t: number) =>
      t <= 2000
        ? { x: (t - 1000) / 10, y: 0 }
        : t <= 2100
          ? { x: 100 + (t - 2000) / 10, y: 0 }
          : { x: Math.max(100, 110 - (t - 2100) / 10), y: 0 };
    const times: number[] = [];
    for (let t = 1000; t <= 2600; t += 20) times.push(t);

    const record = new TruthRecord();
    feed(record, inputs, 1000, 2600 + SETTLE_MS);
    const meter = new DrawnErrorMeter();
    for (const t of times) meter.frame(t, t, [{ id: WALKER, ...drawn(t) }]);
    meter.settle(record);
    const lab = meter.runFigures();

    const server = new ServerRecord();
    for (const i of inputs) {
      const p = { x: i.x, y: i.y, inputAt: i.at, moving: i.moving, facing: i.facing, moveSpeed: i.speed };
      server.observe({ ...p, alive: true }, 'West', i.at);
    }
    const bench = figures(
      server,
      times.map((t) => ({ t, serverNow: t + 100, ...drawn(t) })),
      0,
    );

    expect([lab.stops, lab.overshoot, lab.slideBacks]).toEqual([1, 10, 1]);
    expect([bench.stops, bench.overshoot.max, bench.slideBacks]).toEqual([1, 10, 1]);
    expect(bench.error.max).toBeCloseTo(lab.max, 9);
  });
});
