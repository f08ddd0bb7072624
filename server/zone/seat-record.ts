/**
 * A seat: what the seat book (seat-book.ts) keeps for one gateway session's character on this
 * host, and what a seat effect needs beyond it.
 */
import type { RecordOut } from '../cluster/inner/define.js';
import type { Packet } from '../cluster/wire.js';
import type { HandoffState, SavedCharacter } from '../world/index.js';
import type { GatewayLink, SessionOutput } from './gateway-link.js';
import type { SeatState } from './seat.js';
import type { ZoneRunner } from './zone-runner.js';

/** A character in (or on its way into) one of this host's zones, for one gateway session. */
export interface Seat {
  host: ZoneRunner;
  /** The id the world knows the session by: this host's own, whichever gateway holds it. */
  readonly worldSession: number;
  /** The gateway holding the session, and its id there. */
  link: GatewayLink;
  session: number;
  readonly accountId: number;
  readonly characterId: number;
  /** Known spells travel with the stored row; the world does not change them yet. */
  spells: number[];
  /** Its zone packets that came while it was handed out: they follow it to the next host. */
  heldInputs?: RecordOut<typeof Packet>[];
  /**
   * Taken from another host: until its gateway's MOVEDON comes on from there (or this time
   * passes), its packets that come straight from the gateway wait here, behind those forwarded.
   */
  forwardsUntil?: number;
  waiting?: RecordOut<typeof Packet>[];
  /** Its gateway's MOVEDON came while its hand-off was out: it follows the held packets. */
  movedOn?: boolean;
  playerId?: number;
  /** Where its bytes go while it has a connection. */
  output: SessionOutput | undefined;
  /** Where it stands: changed only by seatTransition, through SeatBook.drive. */
  state: SeatState;
  /** Resolves once the seat is gone (its entity left, or it never got one). */
  readonly gone: Promise<void>;
  readonly markGone: () => void;
}

/** What some seat effects need beyond the seat (see SeatBook.drive). */
export interface SeatContext {
  /** The zone the event happened in (joined, walked into), when it is not the seat's own. */
  readonly host?: ZoneRunner;
  /** The seat's entity, once the world has made it. */
  readonly playerId?: number;
  /** The row a join enters. */
  readonly character?: SavedCharacter;
  /** The state a player given back comes back with. */
  readonly arrival?: HandoffState;
  /** The session taking the seat over. */
  readonly taker?: { readonly link: GatewayLink; readonly session: number };
  /** The zone a seat was handed to on another host. */
  readonly zone?: string;
}
