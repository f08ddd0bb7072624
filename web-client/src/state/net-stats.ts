/**
 * Netcode figures for the panel and for tests: frames and bytes per second each way (over
 * a sliding one-second window), packets by type, tick rate from the server's own tick
 * numbers and times (so link jitter does not distort it), round-trip time, entities in view,
 * arrival jitter, interpolation delay and corrected moves. Time is always passed in.
 */

const WINDOW_MS = 1000;

export type Direction = 'in' | 'out';

interface Event {
  at: number;
  bytes: number;
}

export interface PacketCount {
  frames: number;
  bytes: number;
}

export interface NetStatsSnapshot {
  rttMs: number | undefined;
  tickRate: number | undefined;
  framesInPerSec: number;
  framesOutPerSec: number;
  bytesInPerSec: number;
  bytesOutPerSec: number;
  totalFramesIn: number;
  totalFramesOut: number;
  totalBytesIn: number;
  totalBytesOut: number;
  packetsIn: Record<string, PacketCount>;
  packetsOut: Record<string, PacketCount>;
  entitiesInView: number;
  interpolationDelayMs: number;
  /** How late arrivals come behind the fastest (the render clock's measure). */
  jitterMs: number;
  correctedMoves: number;
  pendingMoves: number;
}

export class NetStats {
  private readonly window: Record<Direction, Event[]> = { in: [], out: [] };
  private readonly totals: Record<Direction, PacketCount> = {
    in: { frames: 0, bytes: 0 },
    out: { frames: 0, bytes: 0 },
  };
  private readonly byType: Record<Direction, Map<string, PacketCount>> = { in: new Map(), out: new Map() };
  private readonly ticks: { tick: number; serverTime: number }[] = [];
  rttMs: number | undefined;
  entitiesInView = 0;
  interpolationDelayMs = 0;
  jitterMs = 0;
  correctedMoves = 0;
  pendingMoves = 0;

  /** One frame of `bytes` (header included) of packet `name`. */
  record(dir: Direction, name: string, bytes: number, now: number): void {
    this.window[dir].push({ at: now, bytes });
    const t = this.totals[dir];
    t.frames++;
    t.bytes += bytes;
    const map = this.byType[dir];
    const c = map.get(name);
    if (c) {
      c.frames++;
      c.bytes += bytes;
    } else {
      map.set(name, { frames: 1, bytes });
    }
    this.prune(dir, now);
  }

  /** A WorldUpdate arrived (its tick and server time). */
  recordTick(tick: number, serverTime: number): void {
    this.ticks.push({ tick, serverTime });
    const cutoff = serverTime - 2 * WINDOW_MS;
    while (this.ticks.length > 2 && (this.ticks[0] as { serverTime: number }).serverTime < cutoff) {
      this.ticks.shift();
    }
  }

  /** Ticks per second of server time between the oldest and newest tick seen lately. */
  tickRate(): number | undefined {
    const first = this.ticks[0];
    const last = this.ticks[this.ticks.length - 1];
    if (!first || !last || last.serverTime <= first.serverTime) return undefined;
    return ((last.tick - first.tick) * 1000) / (last.serverTime - first.serverTime);
  }

  perSecond(dir: Direction, now: number): { frames: number; bytes: number } {
    this.prune(dir, now);
    const events = this.window[dir];
    let bytes = 0;
    for (const e of events) bytes += e.bytes;
    return { frames: (events.length * 1000) / WINDOW_MS, bytes: (bytes * 1000) / WINDOW_MS };
  }

  snapshot(now: number): NetStatsSnapshot {
    const inRate = this.perSecond('in', now);
    const outRate = this.perSecond('out', now);
    return {
      rttMs: this.rttMs,
      tickRate: this.tickRate(),
      framesInPerSec: inRate.frames,
      framesOutPerSec: outRate.frames,
      bytesInPerSec: inRate.bytes,
      bytesOutPerSec: outRate.bytes,
      totalFramesIn: this.totals.in.frames,
      totalFramesOut: this.totals.out.frames,
      totalBytesIn: this.totals.in.bytes,
      totalBytesOut: this.totals.out.bytes,
      packetsIn: Object.fromEntries([...this.byType.in].map(([k, v]) => [k, { ...v }])),
      packetsOut: Object.fromEntries([...this.byType.out].map(([k, v]) => [k, { ...v }])),
      entitiesInView: this.entitiesInView,
      interpolationDelayMs: this.interpolationDelayMs,
      jitterMs: this.jitterMs,
      correctedMoves: this.correctedMoves,
      pendingMoves: this.pendingMoves,
    };
  }

  private prune(dir: Direction, now: number): void {
    const events = this.window[dir];
    const cutoff = now - WINDOW_MS;
    let n = 0;
    while (n < events.length && (events[n] as Event).at <= cutoff) n++;
    if (n > 0) events.splice(0, n);
  }
}
