/**
 * A player's input timeline: when each MoveInput takes effect on the server, and so when the
 * motion state observers draw from it is dated.
 *
 * A client stamps each input with its own clock (clientTime). The server places the input on
 * its own clock at clientTime + offset, where the offset is that of the MOST delayed input of
 * the last LATENESS_WINDOW_MS (arrival less clientTime), not of the least: an input that came
 * sooner waits in the player's queue for its time. So inputs take effect with the spacing
 * the client made them at, however the link delayed each one, and each state is dated when
 * it took effect, at most a tick before it is sent. Watchers draw every entity on the
 * server's timeline a little behind its newest news; a state dated when its client made it
 * (the least delayed offset) reached them late by the mover's jitter and stalls, after their
 * drawn time had passed it, and they drew a walker on past its stop and slid it back.
 *
 * The offset is chosen only while the player stands (at the input that starts a walk, or
 * one that turns in place): during a walk every state keeps the spacing dead reckoning
 * assumes. An input later than the offset allows (a stall longer than any of the window's)
 * is taken at once, dated when it should have been: watchers may have walked the mover on
 * past it, the one case left. The offset is at most MAX_HOLD_MS above the least delayed
 * input's, so one long stall does not hold every later input that long, and no input waits
 * longer than that after it arrived.
 *
 * The price is paid by the jittery or lossy player and those who watch it: its inputs take
 * effect later by `held`, how much later its most delayed recent input came than its least
 * (a clean link holds a few ms). Others' entities are drawn as before.
 *
 * An input "arrives" when the server read it, but never later than the tick that takes it
 * was due (server/zone/zone-runner.ts), and that tick runs after the socket reads of the turn
 * its timer fired in (tick-loop.ts). A server busy past a tick's time (a long tick, a
 * collection, a burst of logins) reads every input late and sends that tick late alike;
 * watchers already wait for late ticks (their delay follows their own arrival jitter), and
 * the input made the tick it would have made on time. Counted as the mover's lateness, one
 * such stall held every player's inputs that long for the whole window. An input read late
 * within a tick's interval (the server busy with the tick before) is still counted by its
 * read: its true arrival lies somewhere in the busy stretch, and the hold must not guess it
 * earlier than it was, or the state would reach watchers later than their margin allows.
 */

/**
 * How far back the most and least delayed inputs are looked for: long enough to keep a lossy
 * link's retransmission stalls (5% loss stalls one input in twenty) in view between them.
 */
export const LATENESS_WINDOW_MS = 30_000;
/**
 * An input this much later than its time is counted late: less is within the margin every
 * watcher's interpolation delay keeps for the tick wait (web-client/src/state/render-clock.ts).
 */
export const LATE_MS = 50;
/** The most an input is held beyond the least delayed input's offset. */
export const MAX_HOLD_MS = 1000;

/** Arrival less clientTime of recent inputs: the most and least delayed over a window. */
export class LatenessWindow {
  private readonly at: number[] = [];
  private readonly value: number[] = [];
  private head = 0;

  constructor(private readonly windowMs = LATENESS_WINDOW_MS) {}

  /** An input made at client time `clientTime` arrived at server time `arrived`. */
  add(arrived: number, clientTime: number): void {
    const from = arrived - this.windowMs;
    while (this.head < this.at.length && this.at[this.head]! < from) this.head++;
    // Compact now and then instead of shifting on every input.
    if (this.head > 64 && this.head * 2 > this.at.length) {
      this.at.splice(0, this.head);
      this.value.splice(0, this.head);
      this.head = 0;
    }
    this.at.push(arrived);
    this.value.push(arrived - clientTime);
  }

  /** The least delayed input's offset (Infinity when empty). */
  least(): number {
    let m = Infinity;
    for (let i = this.head; i < this.value.length; i++) m = Math.min(m, this.value[i]!);
    return m;
  }

  /** The most delayed input's offset, at most MAX_HOLD_MS above the least (-Infinity when empty). */
  most(): number {
    let m = -Infinity;
    for (let i = this.head; i < this.value.length; i++) m = Math.max(m, this.value[i]!);
    return Math.min(m, this.least() + MAX_HOLD_MS);
  }

  clear(): void {
    this.at.length = 0;
    this.value.length = 0;
    this.head = 0;
  }

  /** The samples in the window, oldest first: [arrived, arrived less clientTime]. */
  samples(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = this.head; i < this.at.length; i++) out.push([this.at[i]!, this.value[i]!]);
    return out;
  }

  /** Takes samples another zone's window held (a hand-off), oldest first. */
  restore(samples: readonly (readonly [number, number])[]): void {
    this.clear();
    for (const [at, value] of samples) {
      this.at.push(at);
      this.value.push(value);
    }
  }
}

/** A MoveInput (or an input made after one) waiting for its time on the server's clock. */
export interface QueuedInput<M> {
  input: M;
  /** Server ms it takes effect at. */
  due: number;
}

export interface InputTimeline<M> {
  readonly lateness: LatenessWindow;
  /** Inputs not yet due, oldest first. */
  readonly queue: QueuedInput<M>[];
  /** Server ms the newest input arrived (queued or not): a walker is silent only when this is old. */
  heardAt: number;
  /** Due time of the newest input queued or taken: no input is placed before it. */
  lastDue: number;
  /** How long the current offset holds an input beyond the least delayed one's (ms). */
  held: number;
  /**
   * Inputs that came more than LATE_MS after their time (a stall longer than any in the
   * window): taken at once, dated in the past, so watchers may have walked the player on.
   */
  late: number;
}

export function newTimeline<M>(now: number): InputTimeline<M> {
  return { lateness: new LatenessWindow(), queue: [], heardAt: now, lastDue: -Infinity, held: 0, late: 0 };
}

/**
 * Places an input on the timeline: returns the server time it takes effect at, and the
 * offset in force from now on. `offset` is the offset in use (Infinity before the first
 * input); `standing`: the player stands with nothing queued, so the offset may change.
 */
export function place<M>(
  tl: InputTimeline<M>,
  offset: number,
  clientTime: number,
  arrived: number,
  standing: boolean,
): { due: number; offset: number } {
  tl.heardAt = Math.max(tl.heardAt, arrived);
  if (!Number.isFinite(clientTime)) {
    const due = Math.max(arrived, tl.lastDue);
    tl.lastDue = due;
    return { due, offset };
  }
  tl.lateness.add(arrived, clientTime);
  if (standing || !Number.isFinite(offset)) {
    // Never before what was placed already: the new offset may be smaller than the old.
    offset = Math.max(tl.lateness.most(), tl.lastDue - clientTime);
    tl.held = Math.max(0, Math.round(offset - tl.lateness.least()));
  }
  // A clock that runs fast would date its inputs ever further ahead: none waits longer than
  // MAX_HOLD_MS, so the move checks still see what it claims.
  const due = Math.max(Math.min(clientTime + offset, arrived + MAX_HOLD_MS), tl.lastDue);
  if (due < arrived - LATE_MS) tl.late++;
  tl.lastDue = due;
  return { due, offset };
}
