/**
 * The one dispatch core, shared by every transport. For each connection:
 *
 *   bytes -> FrameDecoder: each header judged as soon as its first 4 bytes are in
 *              (opcode must be a client packet, size within that packet's maximum, packet
 *              accepted in the connection's state), then the frame (CRC)
 *         -> state check -> token bucket of the packet's rate class -> decode
 *         -> route by target: 'session' handler now, 'zone' / 'world' to the GameRouter
 *
 * A 'zone' packet is routed by its header alone: its payload goes to the GameRouter unread,
 * and the zone host decodes it once (a payload that does not decode comes back from there,
 * and is answered as below).
 *
 * Anything wrong on the way is answered with a fatal Error packet (code, reason, opcode),
 * flushed, then the connection is closed; other connections never notice. Judging the
 * header first means a connection never holds more than one frame of a packet it may send
 * now: before login that is at most a Register (a few hundred bytes), and garbage is refused
 * on its first 4 bytes instead of being buffered until a timeout. Session handlers may be
 * async: while one is pending, later packets of the same connection wait behind it (state
 * check included), so login steps never race.
 *
 * Deadlines, checked by one sweep over all connections (a timer per connection would cost
 * memory and a re-arm per packet): Hello within handshakeTimeoutMs, LoginOk (or Resumed)
 * within loginTimeoutMs of connecting, not counting time the server itself spends on a
 * pending login (the SRP queue), and once logged in a packet at least every idleTimeoutMs
 * (clients ping). Each is a fatal Error with its own code.
 */
import { DecodeError, DecodeErrorCode } from '../../shared/codec/errors.js';
import { Frame, FrameDecoder, HEADER_SIZE } from '../../shared/codec/frame.js';
import type { ClientPacket } from '../../shared/protocol/define.js';
import type { ErrorCode } from '../../shared/protocol/errors.js';
import { byOpcode, clientPackets, type AnyClientPacket } from '../../shared/protocol/registry.js';
import { Ping, type ByeReason } from '../../shared/protocol/session.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import {
  bytesIn,
  connections,
  decodeErrors,
  disconnects,
  framesIn,
  handlerSeconds,
} from '../metrics/index.js';
import { Session, type SessionErrorCode } from '../session/session.js';
import type { HandlerContext, SessionHandlers } from '../session/handlers.js';
import type {
  Connection,
  ConnectionInput,
  ConnectionListener,
  TransportErrorCode,
} from '../transport/connection.js';
import { addressKey } from '../transport/address.js';
import type { GameRouter } from './router.js';

export type DispatchConfig = Pick<
  Config,
  | 'maxFrameSize'
  | 'handshakeTimeoutMs'
  | 'loginTimeoutMs'
  | 'idleTimeoutMs'
  | 'maxConnections'
  | 'maxConnectionsPerIp'
  | 'ipv6PrefixBits'
  | 'rates'
  | 'sendHardLimit'
>;

export interface DispatcherOptions {
  readonly config: DispatchConfig;
  readonly handlers: SessionHandlers;
  readonly router: GameRouter;
  readonly log: Logger;
  /** Monotonic milliseconds, for rate limiting and deadlines. */
  readonly clock?: () => number;
}

const PRE_LOGIN_STATES: readonly string[] = ['handshake', 'login'];

/**
 * The largest WebSocket message a connection may send before login: two of the largest
 * frames a client may send then (a Register; Hello and the first login packet may share
 * one message). The transports refuse a longer one before buffering it; TCP needs no such
 * bound, its headers being judged on arrival.
 */
export const LOGIN_MESSAGE_SIZE =
  2 *
  Math.max(
    ...clientPackets
      .filter((p) => p.states.some((s) => PRE_LOGIN_STATES.includes(s)))
      .map((p) => HEADER_SIZE + p.maxSize),
  );

/** How often deadlines are checked: a quarter of the shortest, within these bounds (ms). */
const SWEEP_MIN_MS = 20;
const SWEEP_MAX_MS = 1000;

/** A refusal found while judging a frame header that is not a codec error. */
class HeaderRefused extends Error {
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly opcode: number,
  ) {
    super(message);
  }
}

type SessionListener = (session: Session) => void;

const IGNORE: ConnectionInput = {
  data() {},
  violation() {},
  slowConsumer() {},
  closed() {},
};

export class Dispatcher implements ConnectionListener {
  /** Open sessions by connection id. */
  readonly sessions = new Map<number, Session>();
  private readonly perAddress = new Map<string, number>();
  private readonly closeListeners: SessionListener[] = [];
  /** Sessions already taken out of the game (see leaveGame). */
  private readonly leftGame = new WeakSet<Session>();
  private readonly drainWaiters: (() => void)[] = [];
  /** Input sides of open sessions, for the deadline sweep and shutdown. */
  private readonly inputs = new Set<SessionInput>();
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private accepting = true;
  private stopping = false;
  private pendingRefusals = 0;

  constructor(private readonly options: DispatcherOptions) {}

  /** Set by beginShutdown: session requests other than Ping are refused with ERR_SHUTDOWN. */
  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** Called with every session once its connection is gone. */
  onSessionClosed(listener: SessionListener): void {
    this.closeListeners.push(listener);
  }

  /** New connections get ERR_SHUTDOWN from now on. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /**
   * Stops taking requests: from now on session requests (login, register, characters...)
   * are refused with ERR_SHUTDOWN, and work in flight for a connection (a login waiting for
   * or running on the SRP pool) is abandoned so its handler answers ERR_SHUTDOWN. Resolves
   * once no session handler is running, or after `timeoutMs`: then nothing is left that
   * needs the SRP pool or the store, and they may close.
   */
  beginShutdown(timeoutMs: number): Promise<void> {
    this.stopping = true;
    const running: Promise<void>[] = [];
    for (const input of this.inputs) {
      const pending = input.shutdown();
      if (pending) running.push(pending);
    }
    if (running.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      void Promise.allSettled(running).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Says Bye to every open session: the last packet each gets (see Session.sayBye). */
  sayByeToAll(reason: (typeof ByeReason)[number], message: string): void {
    for (const s of this.sessions.values()) s.sayBye(reason, message);
  }

  /** Closes every session with `reason`; resolves when all are gone or after `timeoutMs`. */
  closeAll(reason: string, timeoutMs: number): Promise<void> {
    for (const s of [...this.sessions.values()]) s.close(reason);
    if (this.sessions.size === 0 && this.pendingRefusals === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.drainWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  open(conn: Connection): ConnectionInput {
    const key = addressKey(conn.remoteAddress, this.options.config.ipv6PrefixBits);
    const refusal = this.refusal(key);
    if (refusal) {
      this.pendingRefusals++;
      const session = new Session(conn, this.options.config.rates, this.options.log);
      session.error(refusal[0], refusal[1], { fatal: true });
      return {
        ...IGNORE,
        closed: () => {
          disconnects.inc({ reason: refusal[0] });
          this.pendingRefusals--;
          this.checkDrained();
        },
      };
    }
    const session = new Session(conn, this.options.config.rates, this.options.log);
    session.addressKey = key;
    this.sessions.set(conn.id, session);
    this.perAddress.set(key, (this.perAddress.get(key) ?? 0) + 1);
    connections.inc({ transport: conn.transport });
    const log = this.options.log;
    // Through the root logger: a per-connection child is made only once something is logged
    // for it, and at the default level this line is not.
    if (log.isLevelEnabled('debug')) {
      session.log.debug({ transport: conn.transport, address: conn.remoteAddress }, 'connection opened');
    }
    session.onClosing = (s) => this.leaveGame(s);
    const input = new SessionInput(session, this, this.options);
    this.inputs.add(input);
    this.startSweep();
    return input;
  }

  private startSweep(): void {
    if (this.sweepTimer !== undefined) return;
    const { handshakeTimeoutMs, loginTimeoutMs, idleTimeoutMs } = this.options.config;
    const shortest = Math.min(handshakeTimeoutMs, loginTimeoutMs, idleTimeoutMs);
    const period = Math.min(SWEEP_MAX_MS, Math.max(SWEEP_MIN_MS, Math.floor(shortest / 4)));
    this.sweepTimer = setInterval(() => {
      const now = this.now();
      for (const input of this.inputs) input.checkDeadlines(now);
    }, period);
    this.sweepTimer.unref();
  }

  /** Monotonic ms. */
  now(): number {
    return this.options.clock?.() ?? performance.now();
  }

  /** Called by a session's input once its connection is gone. */
  inputClosed(input: SessionInput): void {
    this.inputs.delete(input);
    if (this.inputs.size === 0 && this.sweepTimer !== undefined) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
    }
  }

  /** Why a new connection counted under `key` is refused, if it is. */
  private refusal(key: string): [ErrorCode, string] | undefined {
    const { maxConnections, maxConnectionsPerIp } = this.options.config;
    if (!this.accepting) return ['ERR_SHUTDOWN', 'the server is shutting down'];
    if (this.sessions.size >= maxConnections)
      return ['ERR_SERVER_FULL', `the server holds ${maxConnections} connections`];
    if ((this.perAddress.get(key) ?? 0) >= maxConnectionsPerIp) {
      const per = key.includes('/')
        ? `per address (IPv6: per ${key.slice(key.indexOf('/'))})`
        : 'per address';
      return ['ERR_TOO_MANY_FROM_ADDRESS', `at most ${maxConnectionsPerIp} connections ${per}`];
    }
    return undefined;
  }

  /** Bookkeeping when a session's connection is gone. */
  sessionClosed(session: Session, transportReason: string): void {
    if (!this.sessions.delete(session.id)) return;
    const address = session.addressKey;
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
    connections.dec({ transport: session.conn.transport });
    session.markGone();
    const reason = session.closeReason ?? transportReason;
    disconnects.inc({ reason });
    if (this.options.log.isLevelEnabled('debug')) session.log.debug({ reason }, 'connection closed');
    this.leaveGame(session);
    try {
      for (const listener of this.closeListeners) listener(session);
    } catch (e) {
      session.log.error({ err: e }, 'session close listener failed');
    }
    this.checkDrained();
  }

  /**
   * Takes the session out of the game once: when the server decides to close it (a slow
   * consumer leaves others' views at once, not after its socket's close grace) or when the
   * connection is gone, whichever comes first.
   */
  private leaveGame(session: Session): void {
    if (this.leftGame.has(session)) return;
    this.leftGame.add(session);
    try {
      this.options.router.sessionClosed?.(session);
    } catch (e) {
      session.log.error({ err: e }, 'session close listener failed');
    }
  }

  private checkDrained(): void {
    if (this.sessions.size > 0 || this.pendingRefusals > 0) return;
    for (const done of this.drainWaiters.splice(0)) done();
  }
}

/** What a handler gets; the session's logger is made only if a handler asks for it. */
class Context implements HandlerContext {
  constructor(
    readonly session: Session,
    readonly sessions: ReadonlyMap<number, Session>,
  ) {}

  get log(): Logger {
    return this.session.log;
  }
}

/**
 * One connection's input side: its decoder, ordering of async handlers, deadlines and error
 * policy. Kept small: an idle connection is this, its Session and its socket.
 */
class SessionInput implements ConnectionInput {
  private readonly decoder: FrameDecoder;
  private readonly ctx: HandlerContext;
  /** The tail of this connection's queue of packets waiting behind an async handler. */
  private pending: Promise<void> | undefined;
  /** Monotonic ms when the connection opened, and when its last whole frame arrived. */
  private readonly openedAt: number;
  private lastHeardAt: number;

  constructor(
    private readonly session: Session,
    private readonly dispatcher: Dispatcher,
    private readonly options: DispatcherOptions,
  ) {
    this.decoder = new FrameDecoder(options.config.maxFrameSize, (opcode, size) => this.judge(opcode, size));
    this.ctx = new Context(session, dispatcher.sessions);
    this.openedAt = this.lastHeardAt = dispatcher.now();
  }

  /** Closes the connection if it missed its deadline for the state it is in. */
  checkDeadlines(now: number): void {
    const session = this.session;
    if (session.closing) return;
    const { handshakeTimeoutMs, loginTimeoutMs, idleTimeoutMs } = this.options.config;
    const age = now - this.openedAt;
    const state = session.state;
    if (state === 'handshake' && age >= handshakeTimeoutMs) {
      session.error('ERR_HANDSHAKE_TIMEOUT', `no Hello within ${handshakeTimeoutMs} ms`, { fatal: true });
    } else if (state === 'handshake' || state === 'login') {
      // The login deadline counts from the connection's start; a login the server is still
      // working on (queued for the SRP pool) is not the client's delay.
      if (age >= loginTimeoutMs && !this.pending) {
        session.error('ERR_LOGIN_TIMEOUT', `not logged in within ${loginTimeoutMs} ms`, { fatal: true });
      } else {
        // Welcome went out long ago; a waiting connection keeps no send buffer.
        session.conn.releaseBuffer();
      }
    } else if (now - this.lastHeardAt >= idleTimeoutMs) {
      session.error('ERR_IDLE_TIMEOUT', `nothing received for ${idleTimeoutMs} ms`, { fatal: true });
    }
  }

  /**
   * Shutdown: abandons the work of a running handler (its SRP job), whose handler then
   * answers ERR_SHUTDOWN; returns the running handlers' tail to wait for, if any.
   */
  shutdown(): Promise<void> | undefined {
    if (!this.pending) return undefined;
    this.session.abandonWork();
    return this.pending;
  }

  /**
   * A frame's header, judged before the rest of the frame is buffered: an opcode the client
   * may not send, a size beyond the packet's largest encoding, or (with no handler pending,
   * which could still change the state) a packet not accepted in this state is refused now.
   */
  private judge(opcode: number, size: number): void {
    const packet = byOpcode(opcode);
    const hex = `0x${opcode.toString(16).padStart(4, '0')}`;
    if (!packet || packet.dir !== 'c2s') {
      const what = packet ? `${packet.name} is sent by the server, not the client` : 'no such packet';
      throw new DecodeError(DecodeErrorCode.UnknownOpcode, `opcode ${hex}: ${what}`, opcode);
    }
    const max = packet.maxSize + HEADER_SIZE;
    if (size > max) {
      throw new DecodeError(
        DecodeErrorCode.FrameSize,
        `frame size ${size} above ${max}, the largest ${packet.name} frame`,
        opcode,
      );
    }
    const state = this.session.state;
    // While shutting down, session requests are answered ERR_SHUTDOWN whatever the state.
    if (this.dispatcher.shuttingDown && packet.target === 'session') return;
    if (!this.pending && !packet.states.includes(state)) {
      throw new HeaderRefused(
        'ERR_WRONG_STATE',
        `${packet.name} is not accepted in state '${state}' (only ${packet.states.join(', ')})`,
        opcode,
      );
    }
  }

  data(chunk: Uint8Array): void {
    const session = this.session;
    if (session.closing) return;
    let opcode = 0;
    try {
      this.decoder.push(chunk);
      for (let frame = this.decoder.next(); frame !== undefined; frame = this.decoder.next()) {
        opcode = frame.opcode;
        this.frame(frame);
        if (session.closing) return;
        opcode = 0;
      }
      if (session.conn.transport === 'ws' && this.decoder.buffered > 0) {
        throw new DecodeError(
          DecodeErrorCode.PartialFrame,
          `a WebSocket message ended ${this.decoder.buffered} byte(s) into a frame`,
        );
      }
    } catch (e) {
      if (e instanceof DecodeError) this.reject(e.code, e.message, e.opcode || opcode);
      else if (e instanceof HeaderRefused) this.reject(e.code, e.message, e.opcode);
      else this.internal(e, opcode);
    }
  }

  violation(code: TransportErrorCode, reason: string): void {
    this.reject(code, reason, 0);
  }

  slowConsumer(): void {
    this.session.error('ERR_SLOW_CONSUMER', `more than ${this.options.config.sendHardLimit} bytes waiting`, {
      fatal: true,
      closeReason: 'slow consumer',
    });
  }

  closed(reason: string): void {
    this.dispatcher.inputClosed(this);
    this.dispatcher.sessionClosed(this.session, reason);
  }

  private frame(frame: Frame): void {
    const opcode = frame.opcode;
    // The judge passed its header: a client packet.
    const def = byOpcode(opcode) as AnyClientPacket;
    framesIn.add(opcode);
    bytesIn.add(opcode, frame.size);
    const session = this.session;
    if (this.refusedForShutdown(def)) return;
    if (!this.pending && !def.states.includes(session.state)) {
      this.wrongState(def);
      return;
    }
    const now = this.dispatcher.now();
    this.lastHeardAt = now;
    const rateClass = def.rate ?? 'default';
    if (!session.buckets.take(rateClass, now)) {
      this.reject('ERR_RATE_LIMITED', `${def.name}: over the '${rateClass}' rate limit`, opcode);
      return;
    }
    // A zone packet's payload goes on unread; one that waits behind a handler is copied, since
    // the frame's bytes are the decoder's only until it is pushed more.
    const value = def.target !== 'zone' ? def.decodeFrame(frame) : this.pending ? detached(frame) : frame;
    const run = this.pending ? this.pending.then(() => this.dispatch(def, value)) : this.dispatch(def, value);
    if (run) {
      this.pending = run;
      void run.then(() => {
        if (this.pending === run) this.pending = undefined;
      });
    }
  }

  /** State check and route. Returns a promise only while an async handler is running. */
  private dispatch(def: AnyClientPacket, value: unknown): Promise<void> | undefined {
    const session = this.session;
    if (session.closing) return undefined;
    if (!def.states.includes(session.state)) {
      this.wrongState(def);
      return undefined;
    }
    if (this.refusedForShutdown(def)) return undefined;
    try {
      switch (def.target) {
        case 'session':
          return this.runHandler(def, value);
        case 'zone':
          this.options.router.zone(session, def, value as Frame);
          return undefined;
        case 'world':
          this.options.router.world(session, def, value as never);
          return undefined;
      }
    } catch (e) {
      this.internal(e, def.opcode);
    }
    return undefined;
  }

  /**
   * While shutting down, session requests but Ping are refused with ERR_SHUTDOWN, whatever
   * the state (a Hello that came just too late included): the connection is about to get
   * Bye, and its request must not start work on a pool or store that is closing.
   */
  private refusedForShutdown(def: AnyClientPacket): boolean {
    if (!this.dispatcher.shuttingDown || def.target !== 'session' || def.opcode === Ping.opcode) return false;
    this.session.error('ERR_SHUTDOWN', `${def.name}: the server is shutting down`, {
      fatal: false,
      opcode: def.opcode,
    });
    return true;
  }

  private runHandler(def: AnyClientPacket, value: unknown): Promise<void> | undefined {
    const handler = this.options.handlers[def.name] as
      ((ctx: HandlerContext, payload: unknown) => void | Promise<void>) | undefined;
    if (!handler) {
      this.session.error('ERR_WRONG_STATE', `${def.name} is not available on this server`, {
        fatal: false,
        opcode: def.opcode,
      });
      return undefined;
    }
    const started = performance.now();
    const result = handler(this.ctx, value);
    if (!(result instanceof Promise)) {
      handlerSeconds.observe({ packet: def.name }, (performance.now() - started) / 1000);
      return undefined;
    }
    return result.then(
      () => {
        handlerSeconds.observe({ packet: def.name }, (performance.now() - started) / 1000);
      },
      (e: unknown) => this.internal(e, def.opcode),
    );
  }

  private wrongState(def: ClientPacket): void {
    this.reject(
      'ERR_WRONG_STATE',
      `${def.name} is not accepted in state '${this.session.state}' (only ${def.states.join(', ')})`,
      def.opcode,
    );
  }

  /** Bad input: counted, answered with a fatal Error, connection closed. */
  private reject(code: SessionErrorCode, reason: string, opcode: number): void {
    if (this.session.closing) return;
    decodeErrors.inc({ code });
    this.session.error(code, reason, { fatal: true, opcode });
  }

  private internal(e: unknown, opcode: number): void {
    this.session.log.error({ err: e, opcode }, 'handler failed');
    this.session.error('ERR_INTERNAL', 'the server hit an internal error', { fatal: true, opcode });
  }
}

/** A frame whose payload is a copy of its own, for a packet that waits. */
function detached(frame: Frame): Frame {
  return new Frame(frame.opcode, frame.bytes.slice(frame.start, frame.end), 0, frame.end - frame.start);
}
