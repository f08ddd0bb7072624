import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  joinPlayer,
  leavePlayer,
  type Player,
  type World,
  type WorldEvent,
  type WorldInput,
} from '../../server/world/index.js';
import {
  INSTANT,
  join,
  mobAt,
  mobId,
  move,
  ofType,
  player,
  runEach,
  runUntil,
  seenBy,
  spell,
  template,
  tick,
  unseenBy,
  world,
} from './builders.js';

/** Walks `p` along y one second a step: each call moves it to x and runs that step. */
function stepper(w: World, p: Player, y: number): (x: number) => WorldEvent[] {
  let t = 0;
  return (x) => {
    t += 1000;
    return tick(w, [move(p, x, y, { t })], t);
  };
}

/** Every seen and unseen `observer` got in `events`. */
function flapsOf(events: WorldEvent[], observer: number): number[] {
  return [...seenBy(events, observer), ...unseenBy(events, observer)];
}

describe('interest', () => {
  it('nearby players see each other, far ones see neither', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 300, name: 'Alda' }));
    const c = join(w, player({ x: 900, y: 900 }));
    const b = join(w, player({ x: 200, y: 300, name: 'Brin' }));
    expect(a.visible.get(b.id)).toBe(b);
    expect(b.visible.get(a.id)).toBe(a);
    expect(c.visible.size).toBe(0);
    expect([...b.observers]).toEqual([a.id]);
  });

  it('a joining player is seen at once by those viewing its cell, and sees them at the next step', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 300 }));
    const joined = joinPlayer(w, 7, player({ x: 150, y: 300 }));
    expect(seenBy(joined.events, a.id)).toEqual([joined.playerId]);
    const b = w.players.get(joined.playerId)!;
    expect(b.visible.size).toBe(0);
    expect(seenBy(tick(w, [], 50), b.id)).toEqual([a.id]);
  });

  it('a new observer gets a seen event carrying the entity as it stands', () => {
    const w = world({ mobs: [mobAt(300, 300)] });
    const { playerId } = joinPlayer(w, 7, player({ x: 100, y: 300 }));
    const events = tick(w, [], 50);
    const m = w.mobs.get(mobId(0))!;
    const seen = ofType(events, 'seen').filter((e) => e.observerId === playerId);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.entity).toBe(m);
    expect(m).toMatchObject({
      kind: 'mob',
      name: 'Wolf',
      health: 50,
      maxHealth: 50,
      x: 300,
      y: 300,
      alive: true,
    });
    expect(m.template.id).toBe(1);
    expect(m.level).toBeGreaterThanOrEqual(2);
    expect(m.level).toBeLessThanOrEqual(4);
  });

  it('views whole cells: sees what stands in a cell partly within the radius, even beyond the radius', () => {
    const w = world({ zone: { obstacles: [] } });
    // The cell x 300..400 has a point 200 from a; b stands 290 away inside it.
    const a = join(w, player({ x: 100, y: 550 }));
    const b = join(w, player({ x: 390, y: 550 }));
    expect(a.visible.has(b.id)).toBe(true);
    expect(a.viewCells.has(b.cell)).toBe(true);
  });

  it('a cell enters at the radius and leaves only beyond radius × margin: pacing across the border does not flap', () => {
    const w = world({ zone: { obstacles: [] } });
    // b stands in the cell x 700..800, y 500..600; a walks along y = 550, so the cell is 700 - a.x away.
    const b = join(w, player({ x: 705, y: 550 }));
    const a = join(w, player({ x: 400, y: 550 }));
    expect(a.visible.has(b.id)).toBe(false);
    const walkTo = stepper(w, a, 550);
    const flaps = (events: WorldEvent[]): number[] => flapsOf(events, a.id);

    expect(seenBy(walkTo(455), a.id)).toEqual([b.id]); // 245 away: in
    // pacing between 245 and 285 (the cell enters at 250, leaves beyond 287.5): nothing
    const pacing: number[] = [];
    for (const x of [420, 455, 415, 450, 413, 452, 420]) pacing.push(...flaps(walkTo(x)));
    expect(pacing).toEqual([]);
    expect(a.visible.has(b.id)).toBe(true);

    expect(unseenBy(walkTo(400), a.id)).toEqual([b.id]); // 300 away: out
    // pacing between 296 and 254 (outside the enter radius): still nothing
    for (const x of [445, 404, 446, 405]) pacing.push(...flaps(walkTo(x)));
    expect(pacing).toEqual([]);
    expect(a.visible.has(b.id)).toBe(false);

    expect(seenBy(walkTo(455), a.id)).toEqual([b.id]);
  });

  it('an entity crossing cells inside a view stays seen with no seen or unseen', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 300, y: 550 }));
    const b = join(w, player({ x: 395, y: 550 }));
    const cells = new Set<number>();
    const events: WorldEvent[] = [];
    const walkTo = stepper(w, b, 550);
    for (const x of [420, 380, 421, 379, 420]) {
      events.push(...walkTo(x));
      cells.add(b.cell);
    }
    expect(cells.size).toBe(2);
    expect(flapsOf(events, a.id)).toEqual([]);
    expect(a.visible.has(b.id)).toBe(true);
  });

  it('an entity stays in its cell until it is cellHysteresis past the edge', () => {
    const w = world({ zone: { obstacles: [] } });
    // Cell x 300..400; the rules give 16 units of hysteresis.
    const b = join(w, player({ x: 390, y: 550 }));
    const home = b.cell;
    const walkTo = stepper(w, b, 550);
    const at = (x: number): number => {
      walkTo(x);
      return b.cell;
    };
    expect(at(410)).toBe(home);
    expect(at(415.9)).toBe(home);
    const next = at(416);
    expect(next).toBe(home + 1);
    expect(at(390)).toBe(next); // 10 units back past the edge: still filed on the far side
    expect(at(383.9)).toBe(home);
  });

  it('a standing player at the edge of its view does not lose and regain an entity pacing across the border', () => {
    const w = world({ zone: { obstacles: [] } });
    // Cell x 300..400 is 200 from a (in view); cell x 400..500 is 300 away (never in view).
    const a = join(w, player({ x: 100, y: 550 }));
    const b = join(w, player({ x: 390, y: 550 }));
    expect(a.visible.has(b.id)).toBe(true);
    const flaps: number[] = [];
    const walkTo = stepper(w, b, 550);
    for (const x of [405, 395, 410, 392, 414, 396]) flaps.push(...flapsOf(walkTo(x), a.id));
    expect(flaps).toEqual([]);
    expect(a.visible.has(b.id)).toBe(true);
  });

  it('a standing player stops seeing an entity the step it is cellHysteresis into a cell out of view, and sees it again the step it is as far back', () => {
    const w = world({ zone: { obstacles: [] } });
    // Cell x 300..400 is 200 from a (in view); cell x 400..500 is 300 away (never in view).
    const a = join(w, player({ x: 100, y: 550 }));
    const b = join(w, player({ x: 390, y: 550 }));
    expect(a.visible.has(b.id)).toBe(true);
    const walkTo = stepper(w, b, 550);
    const out = walkTo(420);
    expect(unseenBy(out, a.id)).toEqual([b.id]);
    expect(b.observers.has(a.id)).toBe(false);
    const back = walkTo(380);
    expect(seenBy(back, a.id)).toEqual([b.id]);
    expect(b.observers.has(a.id)).toBe(true);
  });

  it('a standing player sees a mob the step it walks into a viewed cell', () => {
    const w = world({ mobs: [mobAt(420, 700)], templates: [template({ aggroRadius: 400 })] });
    const p = join(w, player({ x: 100, y: 700 }));
    const m = w.mobs.get(mobId(0))!;
    expect(p.visible.has(m.id)).toBe(false);
    let seenAt: number | undefined;
    runEach(
      w,
      1000,
      (events) => {
        if (seenAt === undefined && seenBy(events, p.id).includes(m.id)) seenAt = m.x;
      },
      50,
    );
    // The mob walks 5 units a step: it had just gone 16 units (the hysteresis) past x = 400
    // into the cell 200 from p.
    expect(seenAt).toBeLessThan(384);
    expect(seenAt).toBeGreaterThanOrEqual(379);
    expect(p.visible.has(m.id)).toBe(true);
  });

  it('keeps observers and visible sets consistent both ways', () => {
    const w = world({ mobs: [mobAt(200, 200), mobAt(800, 800)] });
    const a = join(w, player({ x: 100, y: 200 }));
    const m = w.mobs.get(mobId(0))!;
    expect(a.visible.has(m.id)).toBe(true);
    expect(m.observers.has(a.id)).toBe(true);
    expect(w.mobs.get(mobId(1))!.observers.size).toBe(0);
  });

  it('a player that leaves the world is removed with reason left from the cell its observers view', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 300 }));
    const b = join(w, player({ x: 150, y: 300 }));
    const cell = b.cell;
    const events = leavePlayer(w, b.id, 'disconnected');
    expect(events.map((e) => e.type)).toEqual(['save', 'removed', 'leftWorld']);
    expect(ofType(events, 'removed')).toEqual([
      { type: 'removed', entity: b, cell, reason: 'left', observers: [a.id] },
    ]);
    expect(a.viewCells.has(cell)).toBe(true);
    expect(a.visible.size).toBe(0);
    expect(a.observers.size).toBe(0);
  });

  // The despawn of an entity that left goes to those viewing its cell when the step ends; a
  // player whose view lets go of that cell in the same step (interest runs last) is named
  // among the `removed` event's observers, so it is told too (test/server/replication.test.ts).
  it('names everyone who saw an entity that left, even one whose view drops the cell in that step', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 455, y: 550 }));
    const b = join(w, player({ x: 705, y: 550 }));
    expect(a.visible.has(b.id)).toBe(true);
    const events = tick(
      w,
      [move(a, 410, 550, { t: 1000 }), { type: 'leave', entityId: b.id, reason: 'disconnected' }],
      1000,
    );
    const removed = ofType(events, 'removed')[0]!;
    expect(a.viewCells.has(removed.cell)).toBe(false);
    expect(removed.observers).toContain(a.id);
  });
});

// ---------------------------------------------------------------- invariants, by brute force

type Action =
  | { kind: 'join'; x: number; y: number; health: number }
  | { kind: 'leave'; who: number }
  | { kind: 'logout'; who: number }
  | { kind: 'walk'; who: number; dx: number; dy: number; moving: boolean }
  | { kind: 'jump'; who: number; x: number; y: number }
  | { kind: 'cast'; who: number; target: number };

/** A 600 × 600 zone with a wall: crowded enough that views overlap and change often. */
const SIDE = 600;

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('join' as const),
      x: fc.integer({ min: 0, max: SIDE }),
      y: fc.integer({ min: 0, max: SIDE }),
      health: fc.integer({ min: 1, max: 40 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('leave' as const), who: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('logout' as const), who: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('walk' as const),
      who: fc.nat(),
      dx: fc.double({ min: -1, max: 1, noNaN: true }),
      dy: fc.double({ min: -1, max: 1, noNaN: true }),
      moving: fc.boolean(),
    }),
    weight: 10,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('jump' as const),
      who: fc.nat(),
      x: fc.integer({ min: 0, max: SIDE }),
      y: fc.integer({ min: 0, max: SIDE }),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('cast' as const), who: fc.nat(), target: fc.nat() }),
    weight: 3,
  },
);

const stepArb = fc.record({
  dt: fc.integer({ min: 50, max: 1000 }),
  actions: fc.array(actionArb, { maxLength: 5 }),
});

const configArb = fc.record({
  cellSize: fc.constantFrom(50, 64, 100, 160),
  interestRadius: fc.integer({ min: 60, max: 300 }),
  interestMargin: fc.constantFrom(1, 1.05, 1.15, 1.5),
  /** As a share of the cell: 0 (none) up to the most allowed, half a cell. */
  hysteresis: fc.constantFrom(0, 0.1, 0.25, 0.5),
  mobs: fc.array(fc.tuple(fc.integer({ min: 20, max: SIDE - 20 }), fc.integer({ min: 20, max: SIDE - 20 })), {
    maxLength: 8,
  }),
  seed: fc.nat(),
});

function nth<T>(items: Iterable<T>, i: number): T | undefined {
  const list = [...items];
  return list.length === 0 ? undefined : list[i % list.length];
}

/** The inputs an action makes in the world as it stands (players and mobs picked by index). */
function inputsFor(w: World, a: Action, now: number, dt: number, session: number): WorldInput[] {
  if (a.kind === 'join') {
    return [{ type: 'join', sessionId: session, character: player({ x: a.x, y: a.y, health: a.health }) }];
  }
  const p = nth(w.players.values(), a.who);
  if (!p) return [];
  switch (a.kind) {
    case 'leave':
      return [{ type: 'leave', entityId: p.id, reason: 'disconnected' }];
    case 'logout':
      return [{ type: 'logout', entityId: p.id }];
    case 'walk': {
      // No further than the character walks in the step: an honest client on the server's clock.
      const reach = (p.speed * dt) / 1000;
      const x = p.x + a.dx * reach * Math.SQRT1_2;
      const y = p.y + a.dy * reach * Math.SQRT1_2;
      return [move(p, x, y, { t: now, moving: a.moving, facing: Math.atan2(a.dy, a.dx) })];
    }
    case 'jump':
      return [move(p, a.x, a.y, { t: now })];
    case 'cast': {
      const m = nth(w.mobs.values(), a.target);
      return m ? [{ type: 'cast', entityId: p.id, spellId: INSTANT, targetId: m.id }] : [];
    }
  }
}

function cellDistance2(w: World, cell: number, x: number, y: number): number {
  const size = w.rules.cellSize;
  const cols = w.playerGrid.cols;
  const cx = cell % cols;
  const cy = (cell - cx) / cols;
  const dx = Math.max(cx * size - x, 0, x - (cx + 1) * size);
  const dy = Math.max(cy * size - y, 0, y - (cy + 1) * size);
  return dx * dx + dy * dy;
}

function sameIds(a: Iterable<number>, b: Iterable<number>): boolean {
  const x = [...a].sort((i, j) => i - j);
  const y = [...b].sort((i, j) => i - j);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Whether (x, y) lies in `cell` grown by the world's cellHysteresis on every side. */
function inGrownCell(w: World, cell: number, x: number, y: number): boolean {
  const g = w.playerGrid;
  const { cellSize, cellHysteresis } = w.rules;
  const x0 = g.originX + (cell % g.cols) * cellSize - cellHysteresis;
  const y0 = g.originY + Math.floor(cell / g.cols) * cellSize - cellHysteresis;
  const span = cellSize + 2 * cellHysteresis;
  return x >= x0 && x < x0 + span && y >= y0 && y < y0 + span;
}

/**
 * Every view, visible set, observer set and activation count against a brute-force
 * reference over all cells and entities; returns what disagrees (nothing when all is well).
 */
function interestProblems(w: World): string[] {
  const problems: string[] = [];
  const r = w.rules.interestRadius;
  const enter2 = r * r;
  const leave2 = (r * w.rules.interestMargin) ** 2;
  const drift = Math.min(w.rules.cellSize / 4, (r * (w.rules.interestMargin - 1)) / 2);
  const cellCount = w.playerGrid.cells.length;
  const cols = w.playerGrid.cols;
  const players = [...w.players.values()];
  const entities = [...players, ...w.mobs.values()];

  for (const e of entities) {
    if (e.cell < 0) {
      if (e.kind === 'player') problems.push(`player ${e.id} in the world but not in the grid`);
      if (e.observers.size > 0) problems.push(`${e.id} out of the grid has observers`);
      continue;
    }
    const grid = e.kind === 'player' ? w.playerGrid : w.mobGrid;
    if (grid.cellOf(e.x, e.y) !== e.cell && !inGrownCell(w, e.cell, e.x, e.y))
      problems.push(`${e.id} at (${e.x}, ${e.y}) filed in cell ${e.cell}`);
    if (grid.cells[e.cell]![e.slot] !== e) problems.push(`${e.id} not at its slot`);
  }

  for (const p of players) {
    for (let cell = 0; cell < cellCount; cell++) {
      // From where the view was computed: every cell within the radius is in, none beyond the
      // margin. (A cell exactly at the radius may go either way: the scan takes cells as half-open.)
      const d2 = cellDistance2(w, cell, p.viewX, p.viewY);
      const has = p.viewCells.has(cell);
      if (d2 < enter2 && !has) problems.push(`player ${p.id} misses cell ${cell} within the radius`);
      if (d2 > leave2 && has) problems.push(`player ${p.id} keeps cell ${cell} beyond the margin`);
      if (w.cellObservers[cell]!.has(p) !== has) problems.push(`cellObservers[${cell}] disagrees on ${p.id}`);
    }
    // ...and it was computed no further than the drift from where the player stands.
    const drifted = Math.hypot(p.x - p.viewX, p.y - p.viewY);
    if (drifted > drift + 1e-9)
      problems.push(`player ${p.id} drifted ${drifted} from its view (max ${drift})`);

    const expected = entities.filter((e) => e !== p && e.cell >= 0 && p.viewCells.has(e.cell));
    if (
      !sameIds(
        p.visible.keys(),
        expected.map((e) => e.id),
      )
    ) {
      problems.push(
        `player ${p.id} sees [${[...p.visible.keys()]}], its cells hold [${expected.map((e) => e.id)}]`,
      );
    }
    for (const e of expected)
      if (p.visible.has(e.id) && p.visible.get(e.id) !== e) problems.push(`stale ${e.id}`);
  }

  for (const e of entities) {
    const watching = players.filter((p) => p.visible.has(e.id)).map((p) => p.id);
    if (!sameIds(e.observers, watching))
      problems.push(`${e.id} observers [${[...e.observers]}], seen by [${watching}]`);
  }

  // Activation: a cell is awake while a player stands within the span around it.
  const span = w.activationSpan;
  for (let cell = 0; cell < cellCount; cell++) {
    let near = 0;
    for (const p of players) {
      if (
        Math.abs((p.cell % cols) - (cell % cols)) <= span &&
        Math.abs(Math.floor(p.cell / cols) - Math.floor(cell / cols)) <= span
      )
        near++;
    }
    if (w.activation[cell] !== near)
      problems.push(`activation[${cell}] = ${w.activation[cell]}, players near: ${near}`);
    if (w.activeCells.has(cell) !== near > 0) problems.push(`activeCells disagrees on ${cell}`);
  }
  return problems;
}

/**
 * Replays view events into per-observer sets (each seen new, each unseen seen before, a
 * removal gone from every set) and returns what went wrong.
 */
function replay(model: Map<number, Set<number>>, events: readonly WorldEvent[]): string[] {
  const problems: string[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'joined':
        model.set(e.playerId, new Set());
        break;
      case 'seen': {
        const s = model.get(e.observerId);
        if (!s) problems.push(`seen for unknown observer ${e.observerId}`);
        else if (s.has(e.entity.id)) problems.push(`${e.entity.id} seen twice by ${e.observerId}`);
        else s.add(e.entity.id);
        break;
      }
      case 'unseen': {
        const s = model.get(e.observerId);
        if (!s?.delete(e.entityId)) problems.push(`${e.entityId} unseen by ${e.observerId} without a seen`);
        break;
      }
      case 'removed':
        for (const s of model.values()) s.delete(e.entity.id);
        break;
      case 'leftWorld':
        model.delete(e.playerId);
        break;
      default:
        break;
    }
  }
  return problems;
}

function replayProblems(w: World, model: Map<number, Set<number>>): string[] {
  const problems: string[] = [];
  if (!sameIds(model.keys(), w.players.keys())) problems.push(`events know players [${[...model.keys()]}]`);
  for (const p of w.players.values()) {
    const s = model.get(p.id);
    if (s && !sameIds(s, p.visible.keys()))
      problems.push(`events say ${p.id} sees [${[...s]}], it sees [${[...p.visible.keys()]}]`);
  }
  return problems;
}

describe('interest invariants', () => {
  it('after random joins, walks, casts, deaths and leaves, every view and visible set matches a brute-force reference and the events replay to them', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb, { minLength: 20, maxLength: 60 }), (cfg, steps) => {
        const w = world({
          seed: cfg.seed,
          zone: {
            width: SIDE,
            height: SIDE,
            obstacles: [{ x: 300, y: 0, w: 20, h: 250 }],
            playerSpawn: { x: 100, y: 100 },
            graveyard: { x: 50, y: 550 },
          },
          mobs: cfg.mobs.map(([x, y]) => mobAt(x, y)),
          templates: [template({ wanderRadius: 150, aggroRadius: 80, respawnTime: 1000 })],
          spells: [
            spell({
              id: INSTANT,
              castTime: 0,
              cooldown: 0,
              manaCost: 0,
              range: 300,
              projectileSpeed: 0,
              min: 50,
              max: 50,
            }),
          ],
          rules: {
            cellSize: cfg.cellSize,
            interestRadius: cfg.interestRadius,
            interestMargin: cfg.interestMargin,
            cellHysteresis: cfg.cellSize * cfg.hysteresis,
            wanderPauseMin: 0,
            wanderPauseMax: 300,
            corpseTime: 300,
          },
        });
        const model = new Map<number, Set<number>>();
        let now = 0;
        let session = 1;
        for (const s of steps) {
          now += s.dt;
          const inputs = s.actions.flatMap((a) => inputsFor(w, a, now, s.dt, session++));
          const problems = [
            ...replay(model, tick(w, inputs, now)),
            ...interestProblems(w),
            ...replayProblems(w, model),
          ];
          expect(problems, `step at ${now}`).toEqual([]);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('a long walk past many cells keeps the view exact at every step', () => {
    const w = world({ zone: { obstacles: [] }, mobs: [mobAt(500, 500), mobAt(120, 880), mobAt(880, 120)] });
    const a = join(w, player({ x: 50, y: 50 }));
    join(w, player({ x: 500, y: 520 }));
    const model = new Map<number, Set<number>>();
    for (const p of w.players.values()) model.set(p.id, new Set(p.visible.keys()));
    let t = w.now;
    // Diagonally across the zone at walking speed, a state every 250 ms.
    const stride = (120 * 0.25) / Math.SQRT2;
    for (let i = 1; i <= 36; i++) {
      t += 250;
      const events = tick(
        w,
        [move(a, 50 + i * stride, 50 + i * stride, { t, moving: true, facing: Math.PI / 4 })],
        t,
      );
      expect([...replay(model, events), ...interestProblems(w), ...replayProblems(w, model)]).toEqual([]);
    }
    expect(a.x).toBeGreaterThan(800);
  });
});

describe('cell activation', () => {
  it('does no per-mob work for 10,000 mobs with no player in the zone', () => {
    const mobs = [];
    for (let i = 0; i < 10_000; i++) mobs.push(mobAt(20 + (i % 100) * 9.5, 20 + Math.floor(i / 100) * 9.5));
    const w = world({
      mobs,
      zone: { obstacles: [], playerSpawn: { x: 990, y: 990 } },
      rules: { wanderPauseMin: 0, wanderPauseMax: 10 },
    });
    expect(w.mobs.size).toBe(10_000);
    let events = 0;
    for (let t = 50; t <= 2000; t += 50) {
      events += tick(w, [], t).length;
      expect(w.stats.simulatedMobs).toBe(0);
    }
    expect(events).toBe(0);
    expect([...w.mobs.values()].every((m) => m.route === null && m.state === 'idle')).toBe(true);
  });

  it('simulates only the mobs near a player', () => {
    const mobs = [mobAt(150, 150), mobAt(900, 900)];
    const w = world({ mobs, zone: { obstacles: [] }, rules: { wanderPauseMin: 0, wanderPauseMax: 10 } });
    join(w, player({ x: 100, y: 100 }));
    runUntil(w, 500);
    expect(w.stats.simulatedMobs).toBe(1);
    expect(w.mobs.get(mobId(0))!.state).not.toBe('idle');
    expect(w.mobs.get(mobId(1))!.state).toBe('idle');
  });
});
