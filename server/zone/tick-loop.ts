/**
 * The fixed tick: runs `tick` every 1/tickRate s by the monotonic clock, each tick timed from
 * when the previous one was due (not from when it ended), so the rate holds on average.
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
  ) {}

  start(): void {
    const interval = 1000 / this.tickRate;
    this.nextTickAt = this.now() + interval;
    const loop = () => {
      this.tick(Math.max(0, this.now() - this.nextTickAt));
      this.nextTickAt += interval;
      const now = this.now();
      if (now - this.nextTickAt > interval) {
        // Far behind (the process was stalled): start afresh rather than burst ticks.
        this.lateTicks++;
        this.nextTickAt = now + interval;
      }
      this.timer = setTimeout(loop, Math.max(0, this.nextTickAt - now));
    };
    this.timer = setTimeout(loop, interval);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
