/**
 * A placement's life on its gateway: a placement is one live session's place in a zone, from
 * its JOIN to the zone host's LEFT or the connection's end. Its standing is one state value, and
 * the only way it changes is `placementTransition(state, event)`: the next state and the
 * effects the gateway carries out, in order, or a refusal, which changes nothing.
 *
 * The usual path is entering -> inWorld -> gone. A Resume of a character lingering on this
 * gateway starts resuming (its entity known: inputs flow before the host's JOINED). A zone
 * whose host is gone puts its placements in zoneDown; when it is claimed again they go
 * rejoining (JOIN repeated until JOINED), or straight back to inWorld if the same host kept the
 * entity (a resync).
 *
 * A closed connection ends the placement. What it leaves behind is not a placement but the
 * record of its character lingering in the world, held here (in the directory) until the host
 * says LEFT, and found there by a Resume: the gateway keeps those apart (the PlacementBook's
 * lingering records, placements.ts).
 * Nothing here touches a session, the bus or the directory: the effects are data.
 */

export type PlacementState =
  /** JOIN sent: waiting for the zone host's JOINED. */
  | { readonly kind: 'entering' }
  /** Took over the character lingering here: its entity known, its inputs go to the zone; JOINED comes. */
  | { readonly kind: 'resuming' }
  /** JOINED: inputs go to the zone, the host's bytes to the connection. */
  | { readonly kind: 'inWorld' }
  /** Its zone's host is gone: inputs dropped, told ERR_ZONE_DOWN once. `hadEntity`: it was in the world. */
  | { readonly kind: 'zoneDown'; readonly hadEntity: boolean }
  /** Its zone is claimed again: the JOIN is repeated until JOINED (the new host loads its last save). */
  | { readonly kind: 'rejoining' }
  /** No longer a placement: forgotten, or its character left lingering. */
  | { readonly kind: 'gone' };

export type PlacementKind = PlacementState['kind'];

/** Why the zone host said LEFT (the LEFT record's reason). */
export type PlacementExit = 'left' | 'notEntered' | 'takenOver';

export type PlacementEvent =
  /** The zone host says the character is in the world (JOINED). */
  | { readonly type: 'joined' }
  /** The zone host says the character is gone, or never came (LEFT). */
  | { readonly type: 'left'; readonly exit: PlacementExit }
  /** The session's connection closed. */
  | { readonly type: 'closed' }
  /** The registry says its zone's claim lapsed: the host is gone. */
  | { readonly type: 'zoneDown' }
  /** Its zone is claimed again, by the host that lost it (`sameHost`) or another. */
  | { readonly type: 'zoneUp'; readonly sameHost: boolean }
  /** Time to repeat an unanswered JOIN. */
  | { readonly type: 'rejoinDue' }
  /** The host's tick messages were found missing: the session's view must be sent anew. */
  | { readonly type: 'tickLost' };

export type PlacementEventType = PlacementEvent['type'];

export type PlacementEffect =
  /** A JOIN record to the zone host. */
  | { readonly kind: 'sendJoin' }
  /** A DETACH record: the connection is gone, the character may linger. */
  | { readonly kind: 'sendDetach' }
  /** A RESYNC record: the host sends the session its whole state anew. */
  | { readonly kind: 'sendResync' }
  /** Tell the session ERR_ZONE_DOWN. */
  | { readonly kind: 'tellZoneDown' }
  /** The session is in the world (its state machine, server/session/world-state.ts). */
  | { readonly kind: 'enterSession' }
  /** Tell the session why its character left (Bye for a take-over, an error if it never entered). */
  | { readonly kind: 'exitSession'; readonly exit: PlacementExit }
  /** List the character in the directory as held here (once). */
  | { readonly kind: 'list' }
  /** Take it out of the directory. */
  | { readonly kind: 'unlist' }
  /** Keep the character as lingering here until the host's LEFT. */
  | { readonly kind: 'keepLingering' }
  /** Its entity is no longer known (the next host makes a new one). */
  | { readonly kind: 'forgetEntity' };

export type PlacementTransition =
  | { readonly state: PlacementState; readonly effects: readonly PlacementEffect[] }
  | { readonly refused: string };

const to = (state: PlacementState, ...effects: PlacementEffect[]): PlacementTransition => ({
  state,
  effects,
});
const refuse = (refused: string): PlacementTransition => ({ refused });

const GONE: PlacementState = { kind: 'gone' };
const IN_WORLD: PlacementState = { kind: 'inWorld' };
const send = (kind: 'sendJoin' | 'sendDetach' | 'sendResync'): PlacementEffect => ({ kind });

/**
 * A new placement: a JOIN for its zone, unless the zone is down (then it waits like the
 * others there). `resumed`: it takes over the character lingering on this gateway, whose
 * entity is known.
 */
export function placementStart(o: { readonly zoneDown: boolean; readonly resumed: boolean }): {
  readonly state: PlacementState;
  readonly effects: readonly PlacementEffect[];
} {
  if (o.zoneDown)
    return { state: { kind: 'zoneDown', hadEntity: o.resumed }, effects: [{ kind: 'tellZoneDown' }] };
  return { state: { kind: o.resumed ? 'resuming' : 'entering' }, effects: [send('sendJoin')] };
}

/** The placement's next state and what the gateway must do, or why the event changes nothing. */
export function placementTransition(state: PlacementState, event: PlacementEvent): PlacementTransition {
  if (state.kind === 'gone') return refuse('the placement is gone');
  const down = state.kind === 'zoneDown';
  switch (event.type) {
    case 'joined':
      // Again while in the world: a resync's (or a take-over's) JOINED.
      if (down) return refuse('its zone is down: a JOINED from the host that is gone');
      return to(IN_WORLD, { kind: 'list' }, { kind: 'enterSession' });
    case 'left':
      if (down) return refuse('its zone is down: a LEFT from the host that is gone');
      return to(GONE, { kind: 'unlist' }, { kind: 'exitSession', exit: event.exit });
    case 'closed':
      // In no zone: nothing lingers, nothing to enter later.
      if (down) return to(GONE, { kind: 'unlist' });
      return to(GONE, send('sendDetach'), { kind: 'keepLingering' });
    case 'zoneDown':
      if (down) return refuse('its zone is down already');
      return to(
        { kind: 'zoneDown', hadEntity: state.kind === 'inWorld' || state.kind === 'resuming' },
        { kind: 'tellZoneDown' },
      );
    case 'zoneUp':
      if (!down) return refuse('its zone is not down');
      // The same host kept running it: the entity is still there, its view is sent anew.
      if (event.sameHost && state.hadEntity) return to(IN_WORLD, send('sendResync'));
      return to({ kind: 'rejoining' }, { kind: 'forgetEntity' }, send('sendJoin'));
    case 'rejoinDue':
      if (state.kind !== 'rejoining') return refuse('not rejoining');
      return to(state, send('sendJoin'));
    case 'tickLost':
      if (state.kind !== 'inWorld' && state.kind !== 'resuming') return refuse('no view to resend');
      return to(state, send('sendResync'));
  }
}

/** Whether the session's zone packets go to its zone: it has an entity there. */
export function sendsInputs(state: PlacementState): boolean {
  return state.kind === 'inWorld' || state.kind === 'resuming';
}

/** Whether the zone host's bytes for the session go into its connection. */
export function takesBytes(state: PlacementState): boolean {
  return state.kind !== 'zoneDown' && state.kind !== 'gone';
}
