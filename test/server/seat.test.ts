/**
 * The zone host's seat machine (server/zone/seat.ts), pair by pair: every state it can be in
 * against every event, the accepted ones listed in TRANSITIONS (from, event -> to, effects in
 * order) and every other pair refused, changing nothing. docs/CLUSTER.md ("Seats") shows the
 * same table.
 */
import { describe, expect, it } from 'vitest';
import {
  seatTransition,
  takesInputs,
  type SeatEffect,
  type SeatEvent,
  type SeatState,
} from '../../server/zone/seat.js';

const NOW = 5000;

/** Every state a seat can be in, by the name the table uses. */
const STATES = {
  loading: { kind: 'loading' },
  joining: { kind: 'joining' },
  'cancelled(disconnected)': { kind: 'cancelled', reason: 'disconnected' },
  'cancelled(takenOver)': { kind: 'cancelled', reason: 'takenOver' },
  inWorld: { kind: 'inWorld' },
  'lingering(1000)': { kind: 'lingering', since: 1000 },
  attaching: { kind: 'attaching', moved: false },
  'attaching(moved)': { kind: 'attaching', moved: true },
  arriving: { kind: 'arriving', connected: true },
  'arriving(closed)': { kind: 'arriving', connected: false },
  handingOff: { kind: 'handingOff', connected: true, superseded: false },
  'handingOff(closed)': { kind: 'handingOff', connected: false, superseded: false },
  'handingOff(superseded)': { kind: 'handingOff', connected: true, superseded: true },
  'handingOff(closed, superseded)': { kind: 'handingOff', connected: false, superseded: true },
  returning: { kind: 'returning', connected: true },
  'returning(closed)': { kind: 'returning', connected: false },
  'leaving(disconnected)': { kind: 'leaving', reason: 'disconnected' },
  'leaving(takenOver)': { kind: 'leaving', reason: 'takenOver' },
  gone: { kind: 'gone' },
} satisfies Record<string, SeatState>;
type StateName = keyof typeof STATES | `lingering(${typeof NOW})`;

/** Every event, by the name the table uses. */
const EVENTS = {
  rowRead: { type: 'rowRead' },
  noRow: { type: 'noRow' },
  loadFailed: { type: 'loadFailed' },
  joined: { type: 'joined', now: NOW },
  closed: { type: 'closed', now: NOW },
  superseded: { type: 'superseded' },
  'takeOver(left)': { type: 'takeOver', exit: 'left' },
  'takeOver(takenOver)': { type: 'takeOver', exit: 'takenOver' },
  resync: { type: 'resync' },
  handedOff: { type: 'handedOff' },
  handedOut: { type: 'handedOut' },
  taken: { type: 'taken' },
  givenBack: { type: 'givenBack' },
  expired: { type: 'expired' },
  left: { type: 'left' },
  lost: { type: 'lost' },
} satisfies Record<string, SeatEvent>;
type EventName = keyof typeof EVENTS;

/** A state's name in the table. */
function nameOf(s: SeatState): string {
  switch (s.kind) {
    case 'cancelled':
    case 'leaving':
      return `${s.kind}(${s.reason})`;
    case 'lingering':
      return `lingering(${s.since})`;
    case 'attaching':
      return s.moved ? 'attaching(moved)' : 'attaching';
    case 'arriving':
    case 'returning':
      return s.connected ? s.kind : `${s.kind}(closed)`;
    case 'handingOff': {
      const marks = [...(s.connected ? [] : ['closed']), ...(s.superseded ? ['superseded'] : [])];
      return marks.length ? `handingOff(${marks.join(', ')})` : 'handingOff';
    }
    default:
      return s.kind;
  }
}

/** Effects as the table writes them: a kind, with its argument in parentheses. */
function effectsOf(effects: readonly SeatEffect[]): string {
  return effects
    .map((e) =>
      e.kind === 'queueLeave'
        ? `queueLeave(${e.reason})`
        : e.kind === 'tellExited'
          ? `tellExited(${e.exit})`
          : e.kind,
    )
    .join(' ');
}

const leave = (why: string) => `dropOutput tellExited(${why})`;
const takeOver = (exit: string, first = '') => `${first}tellExited(${exit}) relink queueAttach`.trimStart();

/** Every accepted (state, event) pair: [from, event, to, effects in order]. */
const TRANSITIONS: readonly (readonly [StateName, EventName, StateName, string])[] = [
  // Entering: the row, then the world's join.
  ['loading', 'rowRead', 'joining', 'queueJoin'],
  ['loading', 'noRow', 'gone', 'tellExited(notEntered)'],
  ['loading', 'loadFailed', 'gone', 'tellExited(notEntered)'],
  ['loading', 'closed', 'cancelled(disconnected)', ''],
  ['loading', 'superseded', 'cancelled(takenOver)', ''],
  ['loading', 'lost', 'gone', 'dropOutput'],
  ['joining', 'joined', 'inWorld', 'openOutput bindOutput tellEntered'],
  ['joining', 'closed', 'cancelled(disconnected)', ''],
  ['joining', 'superseded', 'cancelled(takenOver)', ''],
  ['joining', 'lost', 'gone', 'dropOutput'],
  // Cancelled on the way in: it goes as soon as it can.
  ['cancelled(disconnected)', 'rowRead', 'gone', 'tellExited(left)'],
  ['cancelled(disconnected)', 'noRow', 'gone', 'tellExited(left)'],
  ['cancelled(disconnected)', 'loadFailed', 'gone', 'tellExited(notEntered)'],
  ['cancelled(disconnected)', 'joined', 'leaving(disconnected)', 'queueLeave(disconnected)'],
  ['cancelled(disconnected)', 'superseded', 'cancelled(takenOver)', ''],
  ['cancelled(disconnected)', 'lost', 'gone', 'dropOutput'],
  ['cancelled(takenOver)', 'rowRead', 'gone', 'tellExited(left)'],
  ['cancelled(takenOver)', 'noRow', 'gone', 'tellExited(left)'],
  ['cancelled(takenOver)', 'loadFailed', 'gone', 'tellExited(notEntered)'],
  ['cancelled(takenOver)', 'joined', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['cancelled(takenOver)', 'lost', 'gone', 'dropOutput'],
  // In the world.
  ['inWorld', 'closed', `lingering(${NOW})`, 'dropOutput queueDetach'],
  ['inWorld', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['inWorld', 'takeOver(left)', 'attaching', takeOver('left', 'dropOutput queueDetach ')],
  ['inWorld', 'takeOver(takenOver)', 'attaching', takeOver('takenOver', 'dropOutput queueDetach ')],
  ['inWorld', 'resync', 'attaching', 'dropOutput queueAttach'],
  ['inWorld', 'handedOff', 'arriving', ''],
  ['inWorld', 'handedOut', 'handingOff', 'dropOutput'],
  ['inWorld', 'left', 'gone', leave('left')],
  ['inWorld', 'lost', 'gone', 'dropOutput'],
  // Lingering without a connection.
  ['lingering(1000)', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['lingering(1000)', 'takeOver(left)', 'attaching', takeOver('left')],
  ['lingering(1000)', 'takeOver(takenOver)', 'attaching', takeOver('takenOver')],
  ['lingering(1000)', 'handedOff', 'arriving(closed)', 'queueDetach'],
  ['lingering(1000)', 'handedOut', 'handingOff(closed)', 'dropOutput'],
  ['lingering(1000)', 'expired', 'leaving(disconnected)', 'queueLeave(disconnected)'],
  ['lingering(1000)', 'left', 'gone', leave('left')],
  ['lingering(1000)', 'lost', 'gone', 'dropOutput'],
  // Attached to a new session (or resent to its own), waiting for the world.
  ['attaching', 'joined', 'inWorld', 'openOutput bindOutput tellEntered'],
  ['attaching', 'closed', `lingering(${NOW})`, 'dropOutput queueDetach'],
  ['attaching', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['attaching', 'handedOff', 'attaching(moved)', ''],
  ['attaching', 'handedOut', 'handingOff', 'dropOutput'],
  ['attaching', 'left', 'gone', leave('left')],
  ['attaching', 'lost', 'gone', 'dropOutput'],
  ['attaching(moved)', 'joined', 'inWorld', 'openOutput bindOutput tellMoved tellEntered'],
  ['attaching(moved)', 'closed', `lingering(${NOW})`, 'dropOutput queueDetach'],
  ['attaching(moved)', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['attaching(moved)', 'handedOff', 'attaching(moved)', ''],
  ['attaching(moved)', 'handedOut', 'handingOff', 'dropOutput'],
  ['attaching(moved)', 'left', 'gone', leave('left')],
  ['attaching(moved)', 'lost', 'gone', 'dropOutput'],
  // Walked into the zone beside on this host, or handed here by another.
  ['arriving', 'joined', 'inWorld', 'bindOutput tellMoved'],
  ['arriving', 'closed', 'arriving(closed)', 'dropOutput queueDetach'],
  ['arriving', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['arriving', 'takeOver(left)', 'attaching(moved)', takeOver('left', 'dropOutput queueDetach ')],
  ['arriving', 'takeOver(takenOver)', 'attaching(moved)', takeOver('takenOver', 'dropOutput queueDetach ')],
  ['arriving', 'resync', 'attaching(moved)', 'dropOutput queueAttach'],
  ['arriving', 'left', 'gone', leave('left')],
  ['arriving', 'lost', 'gone', 'dropOutput'],
  ['arriving(closed)', 'joined', `lingering(${NOW})`, ''],
  ['arriving(closed)', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['arriving(closed)', 'left', 'gone', leave('left')],
  ['arriving(closed)', 'lost', 'gone', 'dropOutput'],
  // Out to another host, waiting for its answer.
  ['handingOff', 'closed', 'handingOff(closed)', ''],
  ['handingOff', 'superseded', 'handingOff(superseded)', ''],
  ['handingOff', 'taken', 'gone', 'forwardInputs'],
  ['handingOff', 'givenBack', 'returning', 'openOutput queueArrive'],
  ['handingOff', 'lost', 'gone', 'dropOutput'],
  ['handingOff(closed)', 'superseded', 'handingOff(closed, superseded)', ''],
  ['handingOff(closed)', 'taken', 'gone', 'forwardInputs forwardDetach'],
  ['handingOff(closed)', 'givenBack', 'returning(closed)', 'queueArrive'],
  ['handingOff(closed)', 'lost', 'gone', 'dropOutput'],
  ['handingOff(superseded)', 'closed', 'handingOff(closed, superseded)', ''],
  ['handingOff(superseded)', 'taken', 'gone', 'forwardInputs'],
  ['handingOff(superseded)', 'givenBack', 'leaving(takenOver)', 'queueArrive queueLeave(takenOver)'],
  ['handingOff(superseded)', 'lost', 'gone', 'dropOutput'],
  ['handingOff(closed, superseded)', 'taken', 'gone', 'forwardInputs forwardDetach'],
  ['handingOff(closed, superseded)', 'givenBack', 'leaving(takenOver)', 'queueArrive queueLeave(takenOver)'],
  ['handingOff(closed, superseded)', 'lost', 'gone', 'dropOutput'],
  // Given back by the other host: it comes back where it stood.
  ['returning', 'joined', 'inWorld', 'bindOutput'],
  ['returning', 'closed', 'returning(closed)', 'dropOutput'],
  ['returning', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['returning', 'takeOver(left)', 'attaching', takeOver('left', 'dropOutput queueDetach ')],
  ['returning', 'takeOver(takenOver)', 'attaching', takeOver('takenOver', 'dropOutput queueDetach ')],
  ['returning', 'resync', 'attaching', 'dropOutput queueAttach'],
  ['returning', 'left', 'gone', leave('left')],
  ['returning', 'lost', 'gone', 'dropOutput'],
  ['returning(closed)', 'joined', `lingering(${NOW})`, 'queueDetach'],
  ['returning(closed)', 'superseded', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['returning(closed)', 'left', 'gone', leave('left')],
  ['returning(closed)', 'lost', 'gone', 'dropOutput'],
  // On its way out.
  ['leaving(disconnected)', 'handedOff', 'leaving(disconnected)', 'queueLeave(disconnected)'],
  ['leaving(disconnected)', 'handedOut', 'handingOff(closed)', 'dropOutput'],
  ['leaving(disconnected)', 'left', 'gone', leave('left')],
  ['leaving(disconnected)', 'lost', 'gone', 'dropOutput'],
  ['leaving(takenOver)', 'closed', 'leaving(takenOver)', 'dropOutput'],
  ['leaving(takenOver)', 'handedOff', 'leaving(takenOver)', 'queueLeave(takenOver)'],
  ['leaving(takenOver)', 'handedOut', 'handingOff(closed, superseded)', 'dropOutput'],
  ['leaving(takenOver)', 'left', 'gone', leave('left')],
  ['leaving(takenOver)', 'lost', 'gone', 'dropOutput'],
  // gone: every event is refused.
];

const accepted = new Map(
  TRANSITIONS.map(([from, event, to, effects]) => [`${from} + ${event}`, { to, effects }]),
);

const PAIRS = Object.keys(STATES).flatMap((state) =>
  Object.keys(EVENTS).map((event) => [state as keyof typeof STATES, event as EventName] as const),
);

describe('the seat machine', () => {
  it('lists each pair once, and only pairs of known states and events', () => {
    expect(accepted.size).toBe(TRANSITIONS.length);
    for (const [from, event] of TRANSITIONS) {
      expect(Object.keys(STATES)).toContain(from);
      expect(Object.keys(EVENTS)).toContain(event);
    }
  });

  it.each(TRANSITIONS)('%s + %s -> %s [%s]', (from, event, to, effects) => {
    const t = seatTransition(STATES[from as keyof typeof STATES], EVENTS[event]);
    if ('refused' in t) throw new Error(`refused: ${t.refused}`);
    expect(nameOf(t.state)).toBe(to);
    expect(effectsOf(t.effects)).toBe(effects);
  });

  const refused = PAIRS.filter(([state, event]) => !accepted.has(`${state} + ${event}`));

  it.each(refused)('%s refuses %s', (state, event) => {
    const t = seatTransition(STATES[state], EVENTS[event]);
    expect(t).toEqual({ refused: expect.any(String) });
  });

  it('covers every pair of states and events', () => {
    expect(TRANSITIONS.length + refused.length).toBe(Object.keys(STATES).length * Object.keys(EVENTS).length);
  });

  it('leaves the state it was given untouched', () => {
    const state = { kind: 'handingOff', connected: true, superseded: false } as const;
    seatTransition(state, EVENTS.closed);
    seatTransition(state, EVENTS.superseded);
    expect(state).toEqual({ kind: 'handingOff', connected: true, superseded: false });
  });
});

describe('which seats take zone inputs', () => {
  const TAKES: Readonly<Record<keyof typeof STATES, boolean>> = {
    loading: false,
    joining: false,
    'cancelled(disconnected)': false,
    'cancelled(takenOver)': false,
    inWorld: true,
    'lingering(1000)': true,
    attaching: true,
    'attaching(moved)': true,
    arriving: true,
    'arriving(closed)': true,
    // Its entity is another host's until the answer, then comes back in the arrive.
    handingOff: false,
    'handingOff(closed)': false,
    'handingOff(superseded)': false,
    'handingOff(closed, superseded)': false,
    returning: false,
    'returning(closed)': false,
    'leaving(disconnected)': true,
    'leaving(takenOver)': true,
    gone: false,
  };

  it.each(Object.entries(TAKES))('%s: %s', (state, takes) => {
    expect(takesInputs(STATES[state as keyof typeof STATES])).toBe(takes);
  });
});

describe('a seat driven through its life', () => {
  /** Runs the events in turn from `state`, failing on a refusal; returns the names passed through. */
  function run(state: SeatState, ...events: SeatEvent[]): string[] {
    const path = [nameOf(state)];
    for (const e of events) {
      const t = seatTransition(state, e);
      if ('refused' in t) throw new Error(`${nameOf(state)} refused ${e.type}: ${t.refused}`);
      state = t.state;
      path.push(nameOf(state));
    }
    return path;
  }

  it('enters, lingers after a drop, is resumed, and logs out', () => {
    expect(
      run(
        STATES.loading,
        EVENTS.rowRead,
        EVENTS.joined,
        EVENTS.closed,
        EVENTS['takeOver(left)'],
        EVENTS.joined,
        EVENTS.left,
      ),
    ).toEqual(['loading', 'joining', 'inWorld', `lingering(${NOW})`, 'attaching', 'inWorld', 'gone']);
  });

  it('walks out to another host, is refused, comes back, and lingers after a drop there', () => {
    expect(run(STATES.inWorld, EVENTS.handedOut, EVENTS.givenBack, EVENTS.joined, EVENTS.closed)).toEqual([
      'inWorld',
      'handingOff',
      'returning',
      'inWorld',
      `lingering(${NOW})`,
    ]);
  });

  it('taken over by a newer session while out to another host, leaves once given back', () => {
    expect(run(STATES.inWorld, EVENTS.handedOut, EVENTS.superseded, EVENTS.givenBack, EVENTS.left)).toEqual([
      'inWorld',
      'handingOff',
      'handingOff(superseded)',
      'leaving(takenOver)',
      'gone',
    ]);
  });
});
