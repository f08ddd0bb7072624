/**
 * Players taken from another host, while its late inputs may still be on their way here: the
 * gateway sends a session's packets to the old zone until it hears MOVED, and the old host
 * forwards those (forwards.ts), one hop longer than what the gateway sends here straight
 * after. So a packet that comes straight from the gateway waits, behind the forwarded ones,
 * until the gateway's MOVEDON comes on from the old host (it says nothing more goes there) or
 * FORWARDS_WAIT_MS has passed (the old host died with it): a stop, a turn or a line said is
 * never applied before one sent earlier.
 */
import type { RecordOut } from '../cluster/inner/define.js';
import type { Packet } from '../cluster/wire.js';
import type { Seat } from './seat-book.js';

/** How long packets straight from the gateway wait for the old host's forwards, at most. */
const FORWARDS_WAIT_MS = 1_000;

export class Arrivals {
  /** Seats with packets waiting. */
  private readonly waiting = new Set<Seat>();

  constructor(
    private readonly clock: () => number,
    /** Applies a packet that waited, in its order. */
    private readonly apply: (seat: Seat, record: RecordOut<typeof Packet>) => void,
  ) {}

  /** The seat was just taken from another host: its gateway's packets wait for the forwards. */
  expect(seat: Seat): void {
    seat.forwardsUntil = this.clock() + FORWARDS_WAIT_MS;
  }

  /** Whether a packet for the seat waits (`straight`: from its gateway, not forwarded). */
  holds(seat: Seat, record: RecordOut<typeof Packet>, straight: boolean): boolean {
    if (!straight || seat.forwardsUntil === undefined) return false;
    if (this.clock() >= seat.forwardsUntil) {
      this.release(seat);
      return false;
    }
    // Its bytes are the message's, valid only while it is read.
    (seat.waiting ??= []).push({ ...record, payload: record.payload.slice() });
    this.waiting.add(seat);
    return true;
  }

  /** The forwards are done (MOVEDON came on) or waited for long enough: what waited is applied. */
  release(seat: Seat): void {
    const waiting = seat.waiting ?? [];
    seat.forwardsUntil = seat.waiting = undefined;
    this.waiting.delete(seat);
    for (const record of waiting) this.apply(seat, record);
  }

  /** Releases the seats that have waited FORWARDS_WAIT_MS (before each tick). */
  releaseDue(now: number): void {
    for (const seat of [...this.waiting]) if (now >= (seat.forwardsUntil ?? 0)) this.release(seat);
  }
}
