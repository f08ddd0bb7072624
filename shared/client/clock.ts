/**
 * Clock sync, NTP style. Each Ping {seq, clientTime} comes back as Pong {clientTime,
 * serverTime}; received at `now`:
 *
 *   rtt    = now - clientTime
 *   offset = serverTime - (clientTime + rtt / 2)      (server clock - client clock)
 *
 * The offset assumes the two legs took equally long, so the sample with the lowest rtt has
 * the smallest possible error (at most rtt / 2); a small window of recent samples is kept
 * and the best one is used, which rides out a delayed packet without going stale.
 *
 * The client clock: `performance.timeOrigin + performance.now()` when `performance` exists
 * (milliseconds since the Unix epoch, like the server's clock, but monotonic, so an rtt is
 * never negative when the wall clock is adjusted), else `Date.now()`. Tests inject `now`.
 */

export type Now = () => number;

export const defaultNow: Now = (() => {
  const perf = (globalThis as { performance?: { timeOrigin?: number; now(): number } }).performance;
  if (perf && typeof perf.timeOrigin === 'number' && typeof perf.now === 'function') {
    const origin = perf.timeOrigin;
    return () => origin + perf.now();
  }
  return () => Date.now();
})();

export interface ClockSample {
  /** Round trip in ms. */
  readonly rtt: number;
  /** Server clock minus client clock, in ms. */
  readonly offset: number;
  /** Client time the sample was taken. */
  readonly at: number;
}

export interface ClockSyncOptions {
  now?: Now;
  /** How many recent samples to choose the best from. */
  window?: number;
}

export class ClockSync {
  readonly now: Now;
  private readonly window: number;
  private readonly samples: ClockSample[] = [];
  private best: ClockSample | undefined;

  constructor(options: ClockSyncOptions = {}) {
    this.now = options.now ?? defaultNow;
    this.window = Math.max(1, options.window ?? 8);
  }

  /** Records one round trip: the client time sent, the server time that came back, and when. */
  addSample(clientTime: number, serverTime: number, receivedAt: number = this.now()): ClockSample {
    const rtt = Math.max(0, receivedAt - clientTime);
    const sample: ClockSample = { rtt, offset: serverTime - (clientTime + rtt / 2), at: receivedAt };
    this.samples.push(sample);
    if (this.samples.length > this.window) this.samples.shift();
    let best = this.samples[0]!;
    for (const s of this.samples) if (s.rtt < best.rtt) best = s;
    this.best = best;
    return sample;
  }

  /** Whether any round trip has been measured; before that serverNow() is the client clock. */
  get synced(): boolean {
    return this.best !== undefined;
  }

  /** Offset of the best sample in the window (server - client, ms); 0 before any sample. */
  get offset(): number {
    return this.best?.offset ?? 0;
  }

  /** Round trip of the best sample in the window (ms). */
  get rtt(): number | undefined {
    return this.best?.rtt;
  }

  /** Round trip of the newest sample (ms), for display. */
  get lastRtt(): number | undefined {
    return this.samples[this.samples.length - 1]?.rtt;
  }

  /** The server's clock now (ms since the Unix epoch), or at client time `at`. */
  serverNow(at: number = this.now()): number {
    return at + this.offset;
  }

  /** The client time at which the server clock reads `serverTime`. */
  toClientTime(serverTime: number): number {
    return serverTime - this.offset;
  }

  reset(): void {
    this.samples.length = 0;
    this.best = undefined;
  }
}
