/**
 * The fixed tick: runs `tick` every 1/tickRate s by the monotonic clock, each tick timed from
 * when the previous one was due (not from when it ended), so the rate holds on average.
 *
 * A tick runs after the socket reads of the turn its timer fired in. Node runs timers before
 * it polls for I/O, so a tick run from its timer misses every input that reached the socket
 * while the loop was busy just before (the last tick's writes, a collection); they made the
 * next tick, and their players' hold (server/world/timeline.ts) grew by an interval for the
 * window. The check phase comes after the poll; the second immediate lets the gateway's input
 * outbox, itself flushed from an immediate queued by those reads, go first.
 */
export class TickLoop {
  private timer: NodeJS.Timeout | undefined;
  private nextTickAt = 0;
  /** Ticks started late by more than a whole interval (the loop was blocked). */
  lateTicks = 0;

  constructor(
    private readonly tickRate: number,
    /** One tick; `lateMs`: how long after it was due it started (the loop was busy). */
    private readonly tick: (lateMs: number) => void,
    /** The monotonic clock, in ms. */
    private readonly now: () => number = () => performance.now(),
    /** Runs `fn` once the turn's socket reads, and what they queue for its end, are done. */
    private readonly afterReads: (fn: () => void) => void = (fn) => setImmediate(() => setImmediate(fn)),
  ) {}

  private stopped = false;

  start(): void {
    const interval = 1000 / this.tickRate;
    this.nextTickAt = this.now() + interval;
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.tick(Math.max(0, this.now() - this.nextTickAt));
      this.nextTickAt += interval;
      const now = this.now();
      if (now - this.nextTickAt > interval) {
        // Far behind (the process was stalled): start afresh rather than burst ticks.
        this.lateTicks++;
        this.nextTickAt = now + interval;
      }
      this.timer = setTimeout(() => this.afterReads(loop), Math.max(0, this.nextTickAt - now));
    };
    this.timer = setTimeout(() => this.afterReads(loop), interval);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
