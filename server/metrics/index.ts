/**
 * The one Prometheus registry of the process, its metrics and the text behind /metrics.
 *
 * Per-frame counts (frames and bytes in and out, drops) are hot: thousands of frames per
 * tick. They are tallied in plain arrays indexed by packet and copied into their counters
 * only when /metrics is scraped, so the send path never hashes a label set.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { packets } from '../../shared/protocol/registry.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const UNKNOWN_PACKET = 'unknown';
/** Packet index by opcode; the last index stands for every opcode the registry lacks. */
const packetIndex = new Uint16Array(0x10000).fill(packets.length);
packets.forEach((p, i) => (packetIndex[p.opcode] = i));
const packetNames = [...packets.map((p) => p.name), UNKNOWN_PACKET];

/** The packet name for an opcode, for labels and logs ('unknown' when none). */
export function packetName(opcode: number): string {
  return packetNames[packetIndex[opcode & 0xffff]!]!;
}

/** A counter labelled by packet name, fed through a plain array. */
export class PacketTally {
  private readonly counts = new Float64Array(packetNames.length);

  constructor(name: string, help: string) {
    const counts = this.counts;
    new Counter({
      name,
      help,
      labelNames: ['packet'],
      registers: [registry],
      collect() {
        this.reset();
        for (let i = 0; i < counts.length; i++) {
          if (counts[i]! > 0) this.inc({ packet: packetNames[i]! }, counts[i]!);
        }
      },
    });
  }

  add(opcode: number, n = 1): void {
    this.counts[packetIndex[opcode & 0xffff]!]! += n;
  }

  /** The count so far for one packet name (tests and status pages). */
  get(name: string): number {
    const i = packetNames.indexOf(name);
    return i < 0 ? 0 : this.counts[i]!;
  }
}

export const framesIn = new PacketTally('wyvern_frames_in_total', 'Frames received, by packet.');
export const bytesIn = new PacketTally('wyvern_bytes_in_total', 'Bytes received in whole frames, by packet.');
export const framesOut = new PacketTally('wyvern_frames_out_total', 'Frames queued for sending, by packet.');
export const bytesOut = new PacketTally('wyvern_bytes_out_total', 'Bytes queued for sending, by packet.');
export const droppedPackets = new PacketTally(
  'wyvern_dropped_packets_total',
  'Droppable packets skipped for a client over the send soft limit, by packet.',
);

export const connections = new Gauge({
  name: 'wyvern_connections',
  help: 'Open connections, by transport.',
  labelNames: ['transport'],
  registers: [registry],
});
connections.set({ transport: 'tcp' }, 0);
connections.set({ transport: 'ws' }, 0);

export const decodeErrors = new Counter({
  name: 'wyvern_decode_errors_total',
  help: 'Bad input that closed a connection (codec errors, wrong state, rate limit, ...), by error code.',
  labelNames: ['code'],
  registers: [registry],
});

export const errorsSent = new Counter({
  name: 'wyvern_errors_sent_total',
  help: 'Error packets sent, by code and whether they were fatal.',
  labelNames: ['code', 'fatal'],
  registers: [registry],
});

export const disconnects = new Counter({
  name: 'wyvern_disconnects_total',
  help: 'Closed connections, by reason.',
  labelNames: ['reason'],
  registers: [registry],
});

export const handlerSeconds = new Histogram({
  name: 'wyvern_handler_seconds',
  help: 'Time spent in session handlers (awaits included), by packet.',
  labelNames: ['packet'],
  buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  registers: [registry],
});

export const loginResults = new Counter({
  name: 'wyvern_login_results_total',
  help: 'Login attempts, by result.',
  labelNames: ['result'],
  registers: [registry],
});

export const storeSaveSeconds = new Histogram({
  name: 'wyvern_store_save_seconds',
  help: 'Time to write one batch of changes to the store.',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

/**
 * From the gateway receiving a MoveInput to the zone host applying it: the wait for the next
 * tick plus the bus. Measured on two clocks when the roles run on two machines.
 */
export const moveInputDelaySeconds = new Histogram({
  name: 'wyvern_move_input_delay_seconds',
  help: 'Time from a gateway receiving a MoveInput to the zone host applying it (next tick, bus included).',
  buckets: [0.001, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.075, 0.1, 0.15, 0.25, 0.5, 1],
  registers: [registry],
});

/**
 * How long each player's MoveInputs wait on the server beyond its least delayed input's
 * time (server/world/timeline.ts): sampled once a second per player in the world, so the
 * quantiles are over player-seconds. What a jittery mover's watchers pay in extra delay.
 */
export const inputHoldSeconds = new Histogram({
  name: 'wyvern_input_hold_seconds',
  help: "Each player's input hold (its inputs' wait for their time beyond the least delayed one's), sampled once a second per player.",
  buckets: [0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1],
  registers: [registry],
});

export const zoneClaimEvents = new Counter({
  name: 'wyvern_zone_claim_events_total',
  help:
    "A zone host's zones and their claims: stopped (the claim not held: the zone stops), resumed (held " +
    'again, unbroken: it carries on), lost (another host took it: dropped here, stood by for).',
  labelNames: ['event'],
  registers: [registry],
});

export const handoffs = new Counter({
  name: 'wyvern_handoffs_total',
  help:
    'Players handed across a zone border: to a zone of the same host (local), sent to another host (sent), ' +
    'taken from one (received), refused (a broken or stale request, a zone not run here, a session already ' +
    'here), or given back to their zone (returned: refused or unanswered).',
  labelNames: ['kind'],
  registers: [registry],
});

export const tickSeconds = new Histogram({
  name: 'wyvern_tick_seconds',
  help: "Duration of one world tick on a zone host (simulation, outbox, the gateways' messages).",
  // Fine around the 50 ms budget of a 20 Hz tick, where p99 is judged.
  buckets: [
    0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.045, 0.05, 0.06, 0.075, 0.1,
    0.15, 0.25, 0.5, 1,
  ],
  registers: [registry],
});

export const gatewayBatchSeconds = new Histogram({
  name: 'wyvern_gateway_batch_seconds',
  help: "Time a gateway takes over one zone host's tick message: its sessions' bytes into their connections, then the one write per connection (the tick's socket writes).",
  buckets: [
    0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.045, 0.05, 0.06,
    0.075, 0.1, 0.15, 0.25, 0.5, 1,
  ],
  registers: [registry],
});

export const replicationRecords = new Counter({
  name: 'wyvern_replication_records_total',
  help: 'Entity records encoded by the replication writer (once each, however many clients receive them).',
  registers: [registry],
});

export const replicationBytes = new Counter({
  name: 'wyvern_replication_bytes_total',
  help: 'Replication bytes: encoded (once per tick, shared), written (to connections, per client) and skipped (clients behind).',
  labelNames: ['stage'],
  registers: [registry],
});

/** The send path's counts, in the shape transports take (SendObserver). */
export const sendObserver = {
  queued(opcode: number, bytes: number): void {
    framesOut.add(opcode);
    bytesOut.add(opcode, bytes);
  },
  dropped(opcode: number): void {
    droppedPackets.add(opcode);
  },
};

const srpHeapSources = new Set<() => number>();

export const srpWorkerHeap = new Gauge({
  name: 'wyvern_srp_worker_heap_bytes',
  help: "The SRP worker threads' V8 heaps together (not in nodejs_heap_size_total_bytes), as of their last jobs.",
  registers: [registry],
  collect() {
    let sum = 0;
    for (const source of srpHeapSources) sum += source();
    this.set(sum);
  },
});

/** Adds an SRP pool's worker heaps to the gauge; returns the way to remove it. */
export function trackSrpHeap(source: () => number): () => void {
  srpHeapSources.add(source);
  return () => srpHeapSources.delete(source);
}

/** Anything whose send buffer can be measured: a Connection. */
export interface BufferedSource {
  bufferedBytes(): number;
}
const sendQueueSources = new Set<() => Iterable<BufferedSource>>();

export const sendQueueBytes = new Gauge({
  name: 'wyvern_send_queue_bytes',
  help: 'Bytes waiting to be sent (our queue plus the socket buffer): sum and max over connections.',
  labelNames: ['stat'],
  registers: [registry],
  collect() {
    let sum = 0;
    let max = 0;
    for (const source of sendQueueSources) {
      for (const c of source()) {
        const b = c.bufferedBytes();
        sum += b;
        if (b > max) max = b;
      }
    }
    this.set({ stat: 'sum' }, sum);
    this.set({ stat: 'max' }, max);
  },
});

/** Adds a set of connections to the send-queue gauge; returns the way to remove it. */
export function trackSendQueues(source: () => Iterable<BufferedSource>): () => void {
  sendQueueSources.add(source);
  return () => sendQueueSources.delete(source);
}

/** The Prometheus text exposition of every metric. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
