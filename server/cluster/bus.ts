/**
 * The bus between the two roles: gateways (sockets, sessions, logins, write buffers) and zone
 * hosts (simulation, interest). It carries bytes already encoded once: a zone host sends each
 * gateway one message a tick with every session's bytes, so the bus never encodes, copies or
 * inspects a payload.
 *
 * Two implementations: InProcessBus (the embedded default, both roles in one process) and
 * NatsBus (a cluster, over nats-server). test/cluster/bus-suite.ts holds them to the same
 * behaviour.
 *
 * Ownership: publish takes the bytes. The publisher must not write into them afterwards (the
 * in-process bus hands the very array to subscribers; the NATS client keeps a reference until
 * its next flush). A handler's `data` is valid while the handler runs; copy it to keep it.
 * Given `release`, publish only borrows them: the bus calls it once it holds them no more
 * (every handler has run, or they are copied on their way out), and the publisher may write
 * into them again from then on (MessageWriter does, so a message is never copied to be sent).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Subject, SubjectPattern } from './subjects.js';

export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** Answers a request; false when the message was not one (or the bus is closed). */
  respond(data: Uint8Array): boolean;
}

/**
 * A handler may be async (a void return type takes an async function): a rejection is logged
 * and counted like a throw, never left unhandled.
 */
export type BusHandler = (message: BusMessage) => void;

export interface SubscribeOptions {
  /** Subscribers sharing a queue group split the messages: each goes to one of them. */
  queue?: string;
}

export interface BusSubscription {
  readonly subject: string;
  unsubscribe(): void;
}

export interface RequestOptions {
  /** Default DEFAULT_REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 2_000;
/** nats-server's default max_payload; the in-process bus keeps the same limit so both refuse alike. */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Counts since the bus was made. */
export interface BusStats {
  messagesIn: number;
  messagesOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Handlers that threw or rejected. */
  handlerErrors: number;
  /** Times the connection came back after a loss (always 0 in process). */
  reconnects: number;
  connected: boolean;
}

export interface Bus {
  /**
   * True when nothing published can be lost on the way (in process): the streams between the
   * roles then keep no copy of what they send, to send again (server/cluster/sequenced.ts).
   */
  readonly lossless?: boolean;
  /** `release`: the bytes are only lent (see above); a bus that never calls it keeps them. */
  publish(subject: Subject, data: Uint8Array, release?: () => void): void;
  subscribe(
    subject: Subject | SubjectPattern,
    handler: BusHandler,
    options?: SubscribeOptions,
  ): BusSubscription;
  /** The first answer's bytes; rejects with BusError timeout, no_responders, disconnected or closed. */
  request(subject: Subject, data: Uint8Array, options?: RequestOptions): Promise<Uint8Array>;
  /** Resolves once everything published and subscribed so far has reached the server. */
  flush(): Promise<void>;
  stats(): BusStats;
  /**
   * Calls `handler` each time the connection comes back after a loss, its subscriptions in
   * place again (never, in process); the returned function stops that.
   */
  onReconnect?(handler: () => void): () => void;
  /** Delivers what is in flight, then closes. */
  drain(): Promise<void>;
  /** Closes at once: subscriptions end, pending requests reject with `closed`. */
  close(): Promise<void>;
}

export const BusErrorCode = {
  Timeout: 'ERR_BUS_TIMEOUT',
  NoResponders: 'ERR_BUS_NO_RESPONDERS',
  Disconnected: 'ERR_BUS_DISCONNECTED',
  Closed: 'ERR_BUS_CLOSED',
  TooLarge: 'ERR_BUS_TOO_LARGE',
} as const;
export type BusErrorCode = (typeof BusErrorCode)[keyof typeof BusErrorCode];

export class BusError extends Error {
  constructor(
    readonly code: BusErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'BusError';
  }
}

/** Counts bytes and messages through a bus; one object per bus, read by busMetrics. */
export class BusCounters implements BusStats {
  messagesIn = 0;
  messagesOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  handlerErrors = 0;
  reconnects = 0;
  connected = true;

  snapshot(): BusStats {
    return { ...this };
  }
}

/**
 * The bus's counts as Prometheus metrics in `registry` (one bus per registry): read from the
 * bus when scraped, so publishing never touches a label set.
 */
export function busMetrics(registry: Registry, bus: Pick<Bus, 'stats'>): void {
  new Counter({
    name: 'wyvern_bus_messages_total',
    help: 'Messages through the bus, by direction (out: published or requested, in: delivered to a handler).',
    labelNames: ['direction'],
    registers: [registry],
    collect() {
      const s = bus.stats();
      this.reset();
      this.inc({ direction: 'in' }, s.messagesIn);
      this.inc({ direction: 'out' }, s.messagesOut);
    },
  });
  new Counter({
    name: 'wyvern_bus_bytes_total',
    help: 'Payload bytes through the bus, by direction.',
    labelNames: ['direction'],
    registers: [registry],
    collect() {
      const s = bus.stats();
      this.reset();
      this.inc({ direction: 'in' }, s.bytesIn);
      this.inc({ direction: 'out' }, s.bytesOut);
    },
  });
  new Counter({
    name: 'wyvern_bus_handler_errors_total',
    help: 'Bus handlers that threw or rejected.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(bus.stats().handlerErrors);
    },
  });
  new Counter({
    name: 'wyvern_bus_reconnects_total',
    help: 'Times the bus connection came back after a loss.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(bus.stats().reconnects);
    },
  });
  new Gauge({
    name: 'wyvern_bus_connected',
    help: '1 while the bus is connected (always 1 in process).',
    registers: [registry],
    collect() {
      this.set(bus.stats().connected ? 1 : 0);
    },
  });
}

/** Runs a handler; a throw or a rejection is reported, never thrown into the bus. */
export function runHandler(handler: BusHandler, message: BusMessage, onError: (err: unknown) => void): void {
  try {
    // A `() => void` handler may still return a value (an arrow's expression): only a promise is awaited.
    const result: unknown = handler(message);
    if (result instanceof Promise) result.catch(onError);
  } catch (err) {
    onError(err);
  }
}
