/**
 * The bus inside one process (`npm start`: gateway and zone host together). Subjects match as
 * in NATS (`*` one token, `>` the rest), queue groups split messages, requests time out or
 * fail at once with no responders. Delivery is batched into one microtask: a publisher never
 * runs a subscriber inside its own call (no re-entry into the tick), and everything published
 * during a tick is delivered right after it, in order, without copying the bytes. Lent bytes
 * (publish's `release`) are given back once the last of their handlers has run.
 */
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
  type BusMessage,
  type BusStats,
  type BusSubscription,
  type RequestOptions,
  type SubscribeOptions,
} from './bus.js';
import type { Subject, SubjectPattern } from './subjects.js';

interface Sub extends BusSubscription {
  readonly tokens: readonly string[] | undefined;
  readonly handler: BusHandler;
  readonly queue: string | undefined;
  active: boolean;
}

interface Delivery {
  sub: Sub;
  message: BusMessage;
  /** The message's deliveries still to run, and who lent its bytes. */
  lent: Lent | undefined;
}

interface Lent {
  left: number;
  readonly release: () => void;
}

export interface InProcessBusOptions {
  logger?: Logger;
  maxPayload?: number;
  /**
   * False: the roles above it keep what they send to send again, as over NATS (for tests of
   * that path). Default true: nothing is lost in process.
   */
  lossless?: boolean;
}

export class InProcessBus implements Bus {
  private readonly counters = new BusCounters();
  private readonly logger: Logger;
  private readonly maxPayload: number;
  /** Subscriptions without wildcards, by subject (the common case: one lookup). */
  private readonly exact = new Map<string, Sub[]>();
  private readonly wildcard: Sub[] = [];
  private readonly queueTurns = new Map<string, number>();
  private queue: Delivery[] = [];
  private scheduled = false;
  private idle: (() => void)[] = [];
  private readonly pending = new Set<{ reject(err: BusError): void }>();
  private closed = false;
  readonly lossless: boolean;

  constructor(options: InProcessBusOptions = {}) {
    this.logger = (options.logger ?? silentLogger).child({ component: 'bus' });
    this.maxPayload = options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
    this.lossless = options.lossless ?? true;
  }

  publish(subject: Subject, data: Uint8Array, release?: () => void): void {
    this.send(subject, data, undefined, release);
  }

  subscribe(
    subject: Subject | SubjectPattern,
    handler: BusHandler,
    options: SubscribeOptions = {},
  ): BusSubscription {
    if (this.closed) throw new BusError(BusErrorCode.Closed, 'the bus is closed');
    const wild = subject.includes('*') || subject.includes('>');
    const sub: Sub = {
      subject,
      tokens: wild ? subject.split('.') : undefined,
      handler,
      queue: options.queue,
      active: true,
      unsubscribe: () => {
        if (!sub.active) return;
        sub.active = false;
        const list = wild ? this.wildcard : this.exact.get(subject);
        if (list) list.splice(list.indexOf(sub), 1);
        if (!wild && list?.length === 0) this.exact.delete(subject);
      },
    };
    if (wild) this.wildcard.push(sub);
    else {
      const list = this.exact.get(subject);
      if (list) list.push(sub);
      else this.exact.set(subject, [sub]);
    }
    return sub;
  }

  request(subject: Subject, data: Uint8Array, options: RequestOptions = {}): Promise<Uint8Array> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      let done = false;
      const entry = {
        reject: (err: BusError) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          this.pending.delete(entry);
          reject(err);
        },
      };
      const timer = setTimeout(
        () =>
          entry.reject(new BusError(BusErrorCode.Timeout, `no answer on ${subject} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.pending.add(entry);
      const reply = (answer: Uint8Array): boolean => {
        if (this.closed) return false;
        this.count(answer);
        if (done) return true;
        done = true;
        clearTimeout(timer);
        this.pending.delete(entry);
        // The answer reaches the requester like any delivery: after the responder returns.
        queueMicrotask(() => {
          this.counters.messagesIn++;
          this.counters.bytesIn += answer.length;
          resolve(answer);
        });
        return true;
      };
      try {
        if (this.send(subject, data, reply) === 0) {
          entry.reject(new BusError(BusErrorCode.NoResponders, `no subscriber on ${subject}`));
        }
      } catch (err) {
        entry.reject(err as BusError);
      }
    });
  }

  flush(): Promise<void> {
    if (!this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  stats(): BusStats {
    return this.counters.snapshot();
  }

  async drain(): Promise<void> {
    await this.flush();
    await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const list of this.exact.values()) for (const sub of list) sub.active = false;
    for (const sub of this.wildcard) sub.active = false;
    this.exact.clear();
    this.wildcard.length = 0;
    for (const entry of [...this.pending]) entry.reject(new BusError(BusErrorCode.Closed, 'the bus closed'));
    this.queue = [];
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Queues the message for its subscribers; returns how many will get it. */
  private send(
    subject: string,
    data: Uint8Array,
    reply: ((answer: Uint8Array) => boolean) | undefined,
    release?: () => void,
  ): number {
    if (this.closed) throw new BusError(BusErrorCode.Closed, 'the bus is closed');
    if (data.length > this.maxPayload) {
      throw new BusError(
        BusErrorCode.TooLarge,
        `${data.length} bytes on ${subject}: over ${this.maxPayload}`,
      );
    }
    this.count(data);
    const message: BusMessage = { subject, data, respond: reply ?? (() => false) };
    const lent: Lent | undefined = release && { left: 0, release };
    let receivers = 0;
    let groups: Map<string, Sub[]> | undefined;
    const consider = (sub: Sub) => {
      if (sub.queue === undefined) {
        this.queue.push({ sub, message, lent });
        receivers++;
        return;
      }
      groups ??= new Map();
      const members = groups.get(sub.queue);
      if (members) members.push(sub);
      else groups.set(sub.queue, [sub]);
    };
    const exact = this.exact.get(subject);
    if (exact) for (const sub of exact) consider(sub);
    if (this.wildcard.length > 0) {
      const tokens = subject.split('.');
      for (const sub of this.wildcard) if (matches(sub.tokens!, tokens)) consider(sub);
    }
    if (groups) {
      for (const [name, members] of groups) {
        const turn = this.queueTurns.get(name) ?? 0;
        this.queueTurns.set(name, turn + 1);
        this.queue.push({ sub: members[turn % members.length]!, message, lent });
        receivers++;
      }
    }
    if (lent) {
      // Nobody to hand them to: back at once.
      if (receivers === 0) lent.release();
      else lent.left = receivers;
    }
    if (receivers > 0 && !this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.deliver());
    }
    return receivers;
  }

  private count(data: Uint8Array): void {
    this.counters.messagesOut++;
    this.counters.bytesOut += data.length;
  }

  private deliver(): void {
    // Messages published by handlers join the end of this same run.
    for (let i = 0; i < this.queue.length; i++) {
      const { sub, message, lent } = this.queue[i]!;
      if (sub.active) {
        this.counters.messagesIn++;
        this.counters.bytesIn += message.data.length;
        runHandler(sub.handler, message, (err) => {
          this.counters.handlerErrors++;
          this.logger.error({ err, subject: message.subject }, 'bus handler failed');
        });
      }
      // A handler's data is valid while it runs: after the last one, the bytes are their lender's.
      if (lent && --lent.left === 0) lent.release();
    }
    this.queue = [];
    this.scheduled = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** NATS subject matching: `*` is one token, `>` one or more trailing tokens. */
function matches(pattern: readonly string[], tokens: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p === '>') return tokens.length > i;
    if (i >= tokens.length) return false;
    if (p !== '*' && p !== tokens[i]) return false;
  }
  return pattern.length === tokens.length;
}
