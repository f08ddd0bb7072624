/**
 * The clock remote entities are drawn by: the local clock mapped to server time from the
 * server times stamped on arriving WorldUpdates (and EnterWorld), minus the interpolation
 * delay. Drawing behind the newest arrival, not behind the true server clock, means the state
 * that ends a segment (a stop, a turn) has nearly always arrived before the drawn time gets
 * there, whatever the link's latency.
 */
import { INTERPOLATION_DELAY_MS } from '../../../shared/game/interpolation.js';

/** Below this many samples the clock follows the newest sample at once. */
const SETTLE_SAMPLES = 3;
/** How fast the offset drifts down toward slower arrivals (per sample). */
const DECAY = 0.05;

/**
 * It tracks the fastest arrival (a later update arriving early moves it up at once) and drifts
 * down slowly when every arrival is later, so added latency or jitter is absorbed by the
 * interpolation delay rather than by stutter.
 */
export class RenderClock {
  private offset: number | undefined;
  private samples = 0;
  delayMs: number;

  constructor(delayMs = INTERPOLATION_DELAY_MS) {
    this.delayMs = delayMs;
  }

  get synced(): boolean {
    return this.offset !== undefined;
  }

  observe(serverTime: number, localNow: number): void {
    const sample = serverTime - localNow;
    this.samples++;
    if (this.offset === undefined || sample > this.offset || this.samples <= SETTLE_SAMPLES) {
      this.offset = sample;
    } else {
      this.offset += (sample - this.offset) * DECAY;
    }
  }

  /** The server time of the newest arrivals, as seen from here. */
  serverNow(localNow: number): number {
    return localNow + (this.offset ?? 0);
  }

  /** The server time remote entities are drawn at. */
  renderTime(localNow: number): number {
    return this.serverNow(localNow) - this.delayMs;
  }
}
