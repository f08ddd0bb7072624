/**
 * The gateway's placement machine (server/gateway/placement.ts), pair by pair: every state a
 * live session's placement can be in against every event, the accepted ones listed in
 * TRANSITIONS (from, event -> to, effects in order) and every other pair refused, changing
 * nothing. docs/CLUSTER.md ("Placements") shows the same table.
 */
import { describe, expect, it } from 'vitest';
import {
  placementStart,
  placementTransition,
  sendsInputs,
  takesBytes,
  type PlacementEffect,
  type PlacementEvent,
  type PlacementState,
} from '../../server/gateway/placement.js';

const STATES = {
  entering: { kind: 'entering' },
  resuming: { kind: 'resuming' },
  inWorld: { kind: 'inWorld' },
  zoneDown: { kind: 'zoneDown', hadEntity: false },
  'zoneDown(hadEntity)': { kind: 'zoneDown', hadEntity: true },
  rejoining: { kind: 'rejoining' },
  gone: { kind: 'gone' },
} satisfies Record<string, PlacementState>;
type StateName = keyof typeof STATES;

const EVENTS = {
  joined: { type: 'joined' },
  'left(left)': { type: 'left', exit: 'left' },
  'left(notEntered)': { type: 'left', exit: 'notEntered' },
  'left(takenOver)': { type: 'left', exit: 'takenOver' },
  closed: { type: 'closed' },
  zoneDown: { type: 'zoneDown' },
  'zoneUp(sameHost)': { type: 'zoneUp', sameHost: true },
  'zoneUp(newHost)': { type: 'zoneUp', sameHost: false },
  rejoinDue: { type: 'rejoinDue' },
  tickLost: { type: 'tickLost' },
} satisfies Record<string, PlacementEvent>;
type EventName = keyof typeof EVENTS;

function nameOf(s: PlacementState): string {
  return s.kind === 'zoneDown' && s.hadEntity ? 'zoneDown(hadEntity)' : s.kind;
}

function effectsOf(effects: readonly PlacementEffect[]): string {
  return effects.map((e) => (e.kind === 'exitSession' ? `exitSession(${e.exit})` : e.kind)).join(' ');
}

/** What every live placement does on the host's word and on its connection's end. */
const live = (from: StateName) =>
  [
    [from, 'joined', 'inWorld', 'list enterSession'],
    [from, 'left(left)', 'gone', 'unlist exitSession(left)'],
    [from, 'left(notEntered)', 'gone', 'unlist exitSession(notEntered)'],
    [from, 'left(takenOver)', 'gone', 'unlist exitSession(takenOver)'],
    // Its character may linger: kept apart, for a Resume, until the host's LEFT.
    [from, 'closed', 'gone', 'sendDetach keepLingering'],
  ] as const;

/** Every accepted (state, event) pair: [from, event, to, effects in order]. */
const TRANSITIONS: readonly (readonly [StateName, EventName, StateName, string])[] = [
  ...live('entering'),
  ['entering', 'zoneDown', 'zoneDown', 'tellZoneDown'],

  ...live('resuming'),
  ['resuming', 'zoneDown', 'zoneDown(hadEntity)', 'tellZoneDown'],
  ['resuming', 'tickLost', 'resuming', 'sendResync'],

  ...live('inWorld'),
  ['inWorld', 'zoneDown', 'zoneDown(hadEntity)', 'tellZoneDown'],
  ['inWorld', 'tickLost', 'inWorld', 'sendResync'],

  // Its zone's host is gone: the host's word is stale, and nothing lingers if it closes.
  ['zoneDown', 'closed', 'gone', 'unlist'],
  ['zoneDown', 'zoneUp(sameHost)', 'rejoining', 'forgetEntity sendJoin'],
  ['zoneDown', 'zoneUp(newHost)', 'rejoining', 'forgetEntity sendJoin'],
  ['zoneDown(hadEntity)', 'closed', 'gone', 'unlist'],
  // The same host kept its entity: only its view is sent anew.
  ['zoneDown(hadEntity)', 'zoneUp(sameHost)', 'inWorld', 'sendResync'],
  ['zoneDown(hadEntity)', 'zoneUp(newHost)', 'rejoining', 'forgetEntity sendJoin'],

  ...live('rejoining'),
  ['rejoining', 'zoneDown', 'zoneDown', 'tellZoneDown'],
  ['rejoining', 'rejoinDue', 'rejoining', 'sendJoin'],
  // gone: every event is refused.
];

const accepted = new Map(
  TRANSITIONS.map(([from, event, to, effects]) => [`${from} + ${event}`, { to, effects }]),
);
const PAIRS = Object.keys(STATES).flatMap((state) =>
  Object.keys(EVENTS).map((event) => [state as StateName, event as EventName] as const),
);
const refused = PAIRS.filter(([state, event]) => !accepted.has(`${state} + ${event}`));

describe('the placement machine', () => {
  it('lists each pair once', () => {
    expect(accepted.size).toBe(TRANSITIONS.length);
    expect(TRANSITIONS.length + refused.length).toBe(PAIRS.length);
  });

  it.each(TRANSITIONS)('%s + %s -> %s [%s]', (from, event, to, effects) => {
    const t = placementTransition(STATES[from], EVENTS[event]);
    if ('refused' in t) throw new Error(`refused: ${t.refused}`);
    expect(nameOf(t.state)).toBe(to);
    expect(effectsOf(t.effects)).toBe(effects);
  });

  it.each(refused)('%s refuses %s', (state, event) => {
    expect(placementTransition(STATES[state], EVENTS[event])).toEqual({ refused: expect.any(String) });
  });
});

describe('a new placement', () => {
  it.each([
    [false, false, 'entering', 'sendJoin'],
    [false, true, 'resuming', 'sendJoin'],
    [true, false, 'zoneDown', 'tellZoneDown'],
    [true, true, 'zoneDown(hadEntity)', 'tellZoneDown'],
  ] as const)('zone down %s, resumed %s: %s [%s]', (zoneDown, resumed, state, effects) => {
    const start = placementStart({ zoneDown, resumed });
    expect(nameOf(start.state)).toBe(state);
    expect(effectsOf(start.effects)).toBe(effects);
  });
});

describe('what a placement lets through', () => {
  const TABLE: Readonly<Record<StateName, readonly [inputs: boolean, bytes: boolean]>> = {
    entering: [false, true],
    // Its entity is known from before: inputs go to it before the host's JOINED.
    resuming: [true, true],
    inWorld: [true, true],
    zoneDown: [false, false],
    'zoneDown(hadEntity)': [false, false],
    rejoining: [false, true],
    gone: [false, false],
  };

  const rows = Object.entries(TABLE).map(
    ([state, [inputs, bytes]]) => [state as StateName, inputs, bytes] as const,
  );

  it.each(rows)('%s: zone inputs %s, host bytes %s', (state, inputs, bytes) => {
    expect(sendsInputs(STATES[state])).toBe(inputs);
    expect(takesBytes(STATES[state])).toBe(bytes);
  });
});
