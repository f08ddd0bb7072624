/**
 * A seat's life on its zone host: a seat is one gateway session's character in (or on its way
 * into, or out of) one of this host's zones. Its whole standing is one state value, and the
 * only way it changes is `seatTransition(state, event)`: the next state and the effects the
 * realm carries out, in order, or a refusal (the event means nothing in that state: a late
 * duplicate, or a race lost to an earlier event), which changes nothing.
 *
 * The usual path is loading -> joining -> inWorld -> lingering (the connection dropped) ->
 * leaving -> gone. A lingering character taken by a new session goes attaching -> inWorld; a
 * walk into the zone beside goes arriving -> inWorld; into another host's zone, handingOff ->
 * gone (taken there) or returning -> inWorld (given back). A seat whose connection closes or
 * whose character a newer session takes while it is on its way in is cancelled and leaves.
 *
 * Nothing here touches a zone, a gateway link, the bus or the clock: `now` comes in the events
 * that need it, and the effects are data (see SeatEffect). The full table is in docs/CLUSTER.md
 * ("Seats") and test/server/seat.test.ts.
 */

/** Why a character leaves the world when its seat sends it away (the world's LeaveReason). */
export type SeatLeave = 'disconnected' | 'takenOver';

/** What the gateway hears when one of its sessions loses its seat (the LEFT record's reason). */
export type SeatExit = 'left' | 'notEntered' | 'takenOver';

export type SeatState =
  /** Entering: waits for an older seat of the character to go, for its last save, and for its row. */
  | { readonly kind: 'loading' }
  /** Its join is queued in the world: no entity yet. */
  | { readonly kind: 'joining' }
  /** Entering, but its connection closed or a newer session took the character: it leaves once it can. */
  | { readonly kind: 'cancelled'; readonly reason: SeatLeave }
  /** Its entity is in the world and its bytes go to its session. */
  | { readonly kind: 'inWorld' }
  /** Its connection is gone: the entity stands, visible and attackable, until `since` + the linger time. */
  | { readonly kind: 'lingering'; readonly since: number }
  /**
   * Given to a new session (a Resume, a login through another gateway) or resent to its own
   * after a lost tick message: the world sends it its whole state at the next step. `moved`:
   * the session's gateway must also hear the zone (it was taken while walking into it).
   */
  | { readonly kind: 'attaching'; readonly moved: boolean }
  /** Walked into the zone beside on this host, or handed here by another host: the zone takes it at its next step. */
  | { readonly kind: 'arriving'; readonly connected: boolean }
  /**
   * Walked into another host's zone: a HANDOFF request is out and its entity is a ghost here.
   * `superseded`: a newer session took the character meanwhile (given back, it leaves).
   */
  | { readonly kind: 'handingOff'; readonly connected: boolean; readonly superseded: boolean }
  /** The other host did not take it: its entity comes back where it stood, without a word to its gateway. */
  | { readonly kind: 'returning'; readonly connected: boolean }
  /** Its leave is queued in the world: the seat goes when the entity does. */
  | { readonly kind: 'leaving'; readonly reason: SeatLeave }
  /** Nothing left here (its gateway told, or not, as the effects say). */
  | { readonly kind: 'gone' };

export type SeatKind = SeatState['kind'];

export type SeatEvent =
  /** The character's row was read (the account's own): its join goes to the world. */
  | { readonly type: 'rowRead' }
  /** There is no such character on the account. */
  | { readonly type: 'noRow' }
  /** Entering failed (the store did not answer). */
  | { readonly type: 'loadFailed' }
  /** The world made, took in or re-attached the seat's entity. */
  | { readonly type: 'joined'; readonly now: number }
  /** The gateway said the connection is gone (DETACH), or the gateway itself is gone. */
  | { readonly type: 'closed'; readonly now: number }
  /** A newer session enters the same character from its row: this seat must go first. */
  | { readonly type: 'superseded' }
  /**
   * A new session takes the character over where it stands; its old session hears `exit`:
   * `left` when it lingered, `takenOver` when it was still connected through another gateway.
   */
  | { readonly type: 'takeOver'; readonly exit: SeatExit }
  /** The gateway lost a tick message: the session's view must be sent anew. */
  | { readonly type: 'resync' }
  /** The entity walked into the zone beside, one this host runs. */
  | { readonly type: 'handedOff' }
  /** The entity walked into a zone another host runs: a HANDOFF request goes out. */
  | { readonly type: 'handedOut' }
  /** The other host answered TAKEN. */
  | { readonly type: 'taken' }
  /** The other host refused, nobody runs the zone, or nobody answered: the player comes back. */
  | { readonly type: 'givenBack' }
  /** Its linger time (and its combat linger time) is up. */
  | { readonly type: 'expired' }
  /** The world says the entity left. */
  | { readonly type: 'left' }
  /** Another host took the seat's zone: everything of it here goes, unsaved and untold. */
  | { readonly type: 'lost' };

export type SeatEventType = SeatEvent['type'];

export type SeatEffect =
  /** Queue the join of the character's row in the seat's zone. */
  | { readonly kind: 'queueJoin' }
  /** Queue the entity's leave. */
  | { readonly kind: 'queueLeave'; readonly reason: SeatLeave }
  /** Queue its detach: the world holds the walker where it stands. */
  | { readonly kind: 'queueDetach' }
  /** Queue its attach to the seat's (new) session: the world resends it everything. */
  | { readonly kind: 'queueAttach' }
  /** Queue its arrival back from the hand-off state it left with. */
  | { readonly kind: 'queueArrive' }
  /** A new output for the seat's session (where its bytes go). */
  | { readonly kind: 'openOutput' }
  /** The entity's bytes go to the seat's output from now on. */
  | { readonly kind: 'bindOutput' }
  /** Unbind and close the output: the entity's bytes go nowhere. */
  | { readonly kind: 'dropOutput' }
  /** The seat belongs to the session taking it over from now on. */
  | { readonly kind: 'relink' }
  /** Tell the gateway the session is in the world (JOINED). */
  | { readonly kind: 'tellEntered' }
  /** Tell the gateway the session's zone changed (MOVED). */
  | { readonly kind: 'tellMoved' }
  /** Tell the gateway the session lost its seat (LEFT), unless the gateway forgot the session. */
  | { readonly kind: 'tellExited'; readonly exit: SeatExit }
  /** Send the session's late inputs on to the host that took it, for a while. */
  | { readonly kind: 'forwardInputs' }
  /** Tell the host that took it that its connection is gone. */
  | { readonly kind: 'forwardDetach' };

export type SeatTransition =
  { readonly state: SeatState; readonly effects: readonly SeatEffect[] } | { readonly refused: string };

const to = (state: SeatState, ...effects: SeatEffect[]): SeatTransition => ({ state, effects });
const refuse = (refused: string): SeatTransition => ({ refused });

const GONE: SeatState = { kind: 'gone' };
const IN_WORLD: SeatState = { kind: 'inWorld' };
const queueLeave = (reason: SeatLeave): SeatEffect => ({ kind: 'queueLeave', reason });
const tellExited = (exit: SeatExit): SeatEffect => ({ kind: 'tellExited', exit });
const open: SeatEffect = { kind: 'openOutput' };
const bind: SeatEffect = { kind: 'bindOutput' };
const drop: SeatEffect = { kind: 'dropOutput' };
const detach: SeatEffect = { kind: 'queueDetach' };
const attach: SeatEffect = { kind: 'queueAttach' };

/** The seat's next state and what the realm must do, or why the event changes nothing. */
export function seatTransition(state: SeatState, event: SeatEvent): SeatTransition {
  if (state.kind === 'gone') return refuse('the seat is gone');
  switch (event.type) {
    case 'rowRead':
      if (state.kind === 'loading') return to({ kind: 'joining' }, { kind: 'queueJoin' });
      if (state.kind === 'cancelled') return to(GONE, tellExited('left'));
      return refuse('not loading');
    case 'noRow':
      if (state.kind === 'loading') return to(GONE, tellExited('notEntered'));
      if (state.kind === 'cancelled') return to(GONE, tellExited('left'));
      return refuse('not loading');
    case 'loadFailed':
      if (state.kind === 'loading' || state.kind === 'cancelled') return to(GONE, tellExited('notEntered'));
      return refuse('not loading');
    case 'joined':
      return joined(state, event.now);
    case 'closed':
      return closed(state, event.now);
    case 'superseded':
      return superseded(state);
    case 'takeOver':
      return takeOver(state, event.exit);
    case 'resync':
      return resync(state);
    case 'handedOff':
      return handedOff(state);
    case 'handedOut':
      return handedOut(state);
    case 'taken':
      if (state.kind !== 'handingOff') return refuse('no hand-off out');
      return state.connected
        ? to(GONE, { kind: 'forwardInputs' })
        : to(GONE, { kind: 'forwardInputs' }, { kind: 'forwardDetach' });
    case 'givenBack':
      if (state.kind !== 'handingOff') return refuse('no hand-off out');
      if (state.superseded)
        return to({ kind: 'leaving', reason: 'takenOver' }, { kind: 'queueArrive' }, queueLeave('takenOver'));
      return state.connected
        ? to({ kind: 'returning', connected: true }, open, { kind: 'queueArrive' })
        : to({ kind: 'returning', connected: false }, { kind: 'queueArrive' });
    case 'expired':
      if (state.kind !== 'lingering') return refuse('not lingering');
      return to({ kind: 'leaving', reason: 'disconnected' }, queueLeave('disconnected'));
    case 'left':
      return left(state);
    case 'lost':
      return to(GONE, drop);
  }
}

function resync(state: SeatState): SeatTransition {
  switch (state.kind) {
    case 'inWorld':
    case 'returning':
      if (!connected(state)) return refuse('no connection');
      return to({ kind: 'attaching', moved: false }, drop, attach);
    case 'arriving':
      if (!state.connected) return refuse('no connection');
      return to({ kind: 'attaching', moved: true }, drop, attach);
    default:
      return refuse(`nothing to resend while ${state.kind}`);
  }
}

function handedOff(state: SeatState): SeatTransition {
  switch (state.kind) {
    case 'inWorld':
      return to({ kind: 'arriving', connected: true });
    case 'lingering':
      return to({ kind: 'arriving', connected: false }, detach);
    case 'attaching':
      return to({ kind: 'attaching', moved: true });
    case 'leaving':
      // Its leave was queued in the zone it walked out of: queued again where it went.
      return to(state, queueLeave(state.reason));
    default:
      return refuse(`no entity walking while ${state.kind}`);
  }
}

function handedOut(state: SeatState): SeatTransition {
  switch (state.kind) {
    case 'inWorld':
    case 'attaching':
      return to({ kind: 'handingOff', connected: true, superseded: false }, drop);
    case 'lingering':
      return to({ kind: 'handingOff', connected: false, superseded: false }, drop);
    case 'leaving':
      // Taken there, its connection is no longer this character's: the next host lets it
      // linger and go. Given back, it leaves here.
      return to({ kind: 'handingOff', connected: false, superseded: state.reason === 'takenOver' }, drop);
    default:
      return refuse(`no entity walking while ${state.kind}`);
  }
}

function left(state: SeatState): SeatTransition {
  switch (state.kind) {
    case 'loading':
    case 'joining':
    case 'cancelled':
      return refuse('no entity yet');
    case 'handingOff':
      return refuse('its entity is out to another host');
    default:
      return to(GONE, drop, tellExited('left'));
  }
}

/** Whether the seat has a connection its bytes may go to (in a state where that can change). */
function connected(state: SeatState): boolean {
  return 'connected' in state ? state.connected : state.kind === 'inWorld';
}

function joined(state: SeatState, now: number): SeatTransition {
  switch (state.kind) {
    case 'joining':
      return to(IN_WORLD, open, bind, { kind: 'tellEntered' });
    case 'cancelled':
      // The connection went away (or another took the character) while the join was queued.
      return to({ kind: 'leaving', reason: state.reason }, queueLeave(state.reason));
    case 'attaching':
      return state.moved
        ? to(IN_WORLD, open, bind, { kind: 'tellMoved' }, { kind: 'tellEntered' })
        : to(IN_WORLD, open, bind, { kind: 'tellEntered' });
    case 'arriving':
      // Its detach was queued when the connection dropped on the way.
      return state.connected
        ? to(IN_WORLD, bind, { kind: 'tellMoved' })
        : to({ kind: 'lingering', since: now });
    case 'returning':
      // Its gateway never heard it left this zone.
      return state.connected ? to(IN_WORLD, bind) : to({ kind: 'lingering', since: now }, detach);
    case 'lingering':
      return refuse('an attach whose session closed before the world applied it');
    default:
      return refuse(`not waiting for an entity while ${state.kind}`);
  }
}

function closed(state: SeatState, now: number): SeatTransition {
  switch (state.kind) {
    case 'loading':
    case 'joining':
      return to({ kind: 'cancelled', reason: 'disconnected' });
    case 'inWorld':
    case 'attaching':
      return to({ kind: 'lingering', since: now }, drop, detach);
    case 'arriving':
      if (!state.connected) break;
      return to({ kind: 'arriving', connected: false }, drop, detach);
    case 'handingOff':
      // Out to another host: its answer decides where the character lingers.
      if (!state.connected) break;
      return to({ ...state, connected: false });
    case 'returning':
      if (!state.connected) break;
      return to({ kind: 'returning', connected: false }, drop);
    case 'leaving':
      // Taken over while connected, on its way out: its bytes stop here.
      if (state.reason === 'disconnected') break;
      return to(state, drop);
    default:
      break;
  }
  return refuse('no connection already');
}

function superseded(state: SeatState): SeatTransition {
  switch (state.kind) {
    case 'loading':
    case 'joining':
      return to({ kind: 'cancelled', reason: 'takenOver' });
    case 'cancelled':
      return state.reason === 'takenOver'
        ? refuse('superseded already')
        : to({ kind: 'cancelled', reason: 'takenOver' });
    case 'handingOff':
      if (state.superseded) return refuse('superseded already');
      return to({ ...state, superseded: true });
    case 'leaving':
      return refuse('leaving already');
    default:
      return to({ kind: 'leaving', reason: 'takenOver' }, queueLeave('takenOver'));
  }
}

function takeOver(state: SeatState, exit: SeatExit): SeatTransition {
  const handOver = (moved: boolean, ...first: SeatEffect[]): SeatTransition =>
    to({ kind: 'attaching', moved }, ...first, tellExited(exit), { kind: 'relink' }, attach);
  switch (state.kind) {
    case 'lingering':
      return handOver(false);
    case 'inWorld':
      return handOver(false, drop, detach);
    case 'arriving':
      return state.connected ? handOver(true, drop, detach) : refuse('its connection is gone');
    case 'returning':
      return state.connected ? handOver(false, drop, detach) : refuse('its connection is gone');
    default:
      return refuse(`no entity to take over while ${state.kind}`);
  }
}

/** Whether the session's zone inputs are applied: it has an entity in one of this host's zones. */
export function takesInputs(state: SeatState): boolean {
  switch (state.kind) {
    case 'inWorld':
    case 'lingering':
    case 'attaching':
    case 'arriving':
    case 'leaving':
      return true;
    default:
      return false;
  }
}
