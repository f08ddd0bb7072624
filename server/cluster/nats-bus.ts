/**
 * The bus over nats-server (@nats-io/transport-node). The connection never gives up: it
 * reconnects forever with exponential backoff and jitter, logs every change of status, and
 * keeps subscriptions across a NATS restart (the client re-subscribes). What is published
 * while disconnected waits in the client's buffer and goes out on reconnect; requests in
 * flight when the link drops reject with ERR_BUS_DISCONNECTED instead of hanging.
 */
import { connect, errors, type NatsConnection, type Status } from '@nats-io/transport-node';
import { silentLogger, type Logger } from '../log.js';
import {
  BusCounters,
  BusError,
  BusErrorCode,
  DEFAULT_MAX_PAYLOAD,
  DEFAULT_REQUEST_TIMEOUT_MS,
  runHandler,
  type Bus,
  type BusHandler,
  type BusStats,
  type BusSubscription,
  type RequestOptions,
  type SubscribeOptions,
} from './bus.js';
import type { Subject, SubjectPattern } from './subjects.js';

export interface NatsBusOptions {
  /** nats://host:port, one or several. */
  servers: string | string[];
  /** The client name nats-server shows (for example "gateway-0"). */
  name?: string;
  logger?: Logger;
  /** First reconnect delay; doubles per failed attempt up to reconnectMaxMs. Default 250. */
  reconnectMinMs?: number;
  /** Default 5000. */
  reconnectMaxMs?: number;
  /** How often the client pings the server; a dead link shows after two missed pings. Default 10000. */
  pingIntervalMs?: number;
}

export class NatsBus implements Bus {
  private readonly counters = new BusCounters();
  private readonly logger: Logger;
  private statusLoop: Promise<void> = Promise.resolve();
  private closing = false;
  private readonly reconnected = new Set<() => void>();

  private constructor(
    /** The connection, for the registry to share (JetStream KV rides on it). */
    readonly connection: NatsConnection,
    logger: Logger,
  ) {
    this.logger = logger;
  }

  /** Connects, waiting (and retrying with backoff) until a server answers. */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const logger = (options.logger ?? silentLogger).child({ component: 'bus' });
    const minMs = options.reconnectMinMs ?? 250;
    const maxMs = options.reconnectMaxMs ?? 5_000;
    let attempt = 0;
    logger.info({ servers: options.servers }, 'bus connecting (waits until a server answers)');
    const connection = await connect({
      servers: options.servers,
      name: options.name,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      reconnectTimeWait: minMs,
      reconnectDelayHandler: () => {
        const base = Math.min(maxMs, minMs * 2 ** Math.min(attempt++, 16));
        return base / 2 + Math.random() * (base / 2);
      },
      pingInterval: options.pingIntervalMs ?? 10_000,
      maxPingOut: 2,
    });
    const bus = new NatsBus(connection, logger);
    bus.statusLoop = bus.watchStatus(() => (attempt = 0));
    logger.info({ server: connection.getServer() }, 'bus connected');
    return bus;
  }

  publish(subject: Subject, data: Uint8Array, release?: () => void): void {
    this.checkSize(subject, data);
    try {
      // The client queues the very array until it writes its socket, for as long as a
      // reconnect takes: lent bytes go as a copy of their own (the one copy a cluster needs).
      this.connection.publish(subject, release ? data.slice() : data);
    } catch (err) {
      throw translate(err, subject);
    } finally {
      release?.();
    }
    this.counters.messagesOut++;
    this.counters.bytesOut += data.length;
  }

  subscribe(
    subject: Subject | SubjectPattern,
    handler: BusHandler,
    options: SubscribeOptions = {},
  ): BusSubscription {
    const counters = this.counters;
    const logger = this.logger;
    let sub;
    try {
      sub = this.connection.subscribe(subject, {
        queue: options.queue,
        callback: (err, msg) => {
          if (err) {
            logger.warn({ err, subject }, 'bus subscription ended with an error');
            return;
          }
          counters.messagesIn++;
          counters.bytesIn += msg.data.length;
          runHandler(handler, msg, (handlerErr) => {
            counters.handlerErrors++;
            logger.error({ err: handlerErr, subject: msg.subject }, 'bus handler failed');
          });
        },
      });
    } catch (err) {
      throw translate(err, subject);
    }
    return {
      subject,
      unsubscribe: () => {
        if (!sub.isClosed()) sub.unsubscribe();
      },
    };
  }

  async request(subject: Subject, data: Uint8Array, options: RequestOptions = {}): Promise<Uint8Array> {
    this.checkSize(subject, data);
    this.counters.messagesOut++;
    this.counters.bytesOut += data.length;
    try {
      const reply = await this.connection.request(subject, data, {
        timeout: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      });
      this.counters.messagesIn++;
      this.counters.bytesIn += reply.data.length;
      return reply.data;
    } catch (err) {
      // Closing cancels requests in flight with a generic error: say why.
      if (this.closing) {
        throw new BusError(BusErrorCode.Closed, 'the bus closed', { cause: err });
      }
      throw translate(err, subject);
    }
  }

  async flush(): Promise<void> {
    try {
      await this.connection.flush();
    } catch (err) {
      throw translate(err, 'flush');
    }
  }

  stats(): BusStats {
    const s = this.counters.snapshot();
    s.connected = !this.connection.isClosed() && this.counters.connected;
    return s;
  }

  onReconnect(handler: () => void): () => void {
    this.reconnected.add(handler);
    return () => this.reconnected.delete(handler);
  }

  async drain(): Promise<void> {
    this.closing = true;
    // Disconnected, a drain would wait for the server to come back: nothing can be flushed to
    // it meanwhile, so the connection simply closes (what waits in the client is lost).
    if (!this.counters.connected && !this.connection.isClosed()) await this.connection.close();
    else if (!this.connection.isClosed() && !this.connection.isDraining()) await this.connection.drain();
    await this.statusLoop;
  }

  async close(): Promise<void> {
    this.closing = true;
    if (!this.connection.isClosed()) await this.connection.close();
    await this.statusLoop;
  }

  private checkSize(subject: string, data: Uint8Array): void {
    const max = this.connection.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
    if (data.length > max)
      throw new BusError(BusErrorCode.TooLarge, `${data.length} bytes on ${subject}: over ${max}`);
  }

  private async watchStatus(onReconnect: () => void): Promise<void> {
    try {
      for await (const s of this.connection.status()) this.onStatus(s, onReconnect);
    } catch (err) {
      this.logger.error({ err }, 'bus status stream failed');
    }
  }

  private onStatus(s: Status, onReconnect: () => void): void {
    switch (s.type) {
      case 'disconnect':
        this.counters.connected = false;
        this.logger.warn({ server: s.server }, 'bus disconnected, reconnecting');
        break;
      case 'reconnect':
        this.counters.connected = true;
        this.counters.reconnects++;
        onReconnect();
        this.logger.info({ server: s.server }, 'bus reconnected');
        for (const handler of this.reconnected) {
          try {
            handler();
          } catch (err) {
            this.logger.error({ err }, 'bus reconnect handler failed');
          }
        }
        break;
      case 'reconnecting':
        this.logger.debug('bus reconnecting');
        break;
      case 'error':
        this.logger.warn({ err: s.error }, 'bus server error');
        break;
      case 'staleConnection':
        this.logger.warn('bus connection stale (pings unanswered)');
        break;
      case 'slowConsumer':
        this.logger.warn({ subject: s.sub.getSubject(), pending: s.pending }, 'bus slow consumer');
        break;
      case 'ldm':
        this.logger.info({ server: s.server }, 'bus server entering lame duck mode');
        break;
      case 'close':
        this.counters.connected = false;
        this.logger.info('bus closed');
        break;
      case 'update':
      case 'forceReconnect':
        this.logger.debug({ status: s }, 'bus status');
        break;
      case 'ping':
        break;
    }
  }
}

function translate(err: unknown, subject: string): BusError {
  if (err instanceof BusError) return err;
  const cause = err instanceof errors.RequestError && err.cause ? err.cause : err;
  if (cause instanceof errors.TimeoutError) {
    return new BusError(BusErrorCode.Timeout, `no answer on ${subject} in time`, { cause: err });
  }
  if (
    cause instanceof errors.NoRespondersError ||
    (err instanceof errors.RequestError && err.isNoResponders())
  ) {
    return new BusError(BusErrorCode.NoResponders, `no subscriber on ${subject}`, { cause: err });
  }
  if (cause instanceof errors.ClosedConnectionError || cause instanceof errors.DrainingConnectionError) {
    return new BusError(BusErrorCode.Closed, 'the bus is closed', { cause: err });
  }
  if (err instanceof errors.RequestError) {
    return new BusError(BusErrorCode.Disconnected, `request on ${subject} failed: ${err.message}`, {
      cause: err,
    });
  }
  return new BusError(BusErrorCode.Disconnected, `${subject}: ${(err as Error)?.message ?? String(err)}`, {
    cause: err,
  });
}
