/**
 * The one dispatch core, shared by every transport. For each connection:
 *
 *   bytes -> FrameDecoder (size, CRC) -> registry lookup (must be client-to-server)
 *         -> state check -> token bucket of the packet's rate class -> decode
 *         -> route by target: 'session' handler now, 'zone' / 'world' to the GameRouter
 *
 * Anything wrong on the way is answered with a fatal Error packet (code, reason, opcode),
 * flushed, then the connection is closed; other connections never notice. Session handlers
 * may be async: while one is pending, later packets of the same connection wait behind it
 * (state check included), so login steps never race.
 */
import { DecodeError, DecodeErrorCode } from '../../shared/codec/errors.js';
import { FrameDecoder, type Frame } from '../../shared/codec/frame.js';
import type { ClientPacket, PayloadOf, ServerPacket } from '../../shared/protocol/define.js';
import type { ErrorCode } from '../../shared/protocol/errors.js';
import { byOpcode, type AnyClientPacket } from '../../shared/protocol/registry.js';
import type { Fields } from '../../shared/codec/fields.js';
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
import { Session, type SessionErrorCode } from '../session/connection.js';
import type { HandlerContext, SessionHandlers } from '../session/handlers.js';
import type {
  Connection,
  ConnectionInput,
  ConnectionListener,
  TransportErrorCode,
} from '../transport/connection.js';
import type { GameRouter } from './router.js';

export type DispatchConfig = Pick<
  Config,
  'maxFrameSize' | 'handshakeTimeoutMs' | 'maxConnections' | 'maxConnectionsPerIp' | 'rates' | 'sendHardLimit'
>;

export interface DispatcherOptions {
  readonly config: DispatchConfig;
  readonly handlers: SessionHandlers;
  readonly router: GameRouter;
  readonly log: Logger;
  /** Monotonic milliseconds, for rate limiting. */
  readonly clock?: () => number;
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
  private accepting = true;
  private pendingRefusals = 0;

  constructor(private readonly options: DispatcherOptions) {}

  /** Called with every session once its connection is gone. */
  onSessionClosed(listener: SessionListener): void {
    this.closeListeners.push(listener);
  }

  /** New connections get ERR_SHUTDOWN from now on. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Queues a packet for every open session. */
  broadcast<P extends ServerPacket<string, Fields>>(def: P, value: PayloadOf<P>): void {
    const frame = def.encode(value as never);
    for (const s of this.sessions.values()) if (!s.closing) s.conn.send(frame, def.delivery);
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
    const refusal = this.refusal(conn);
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
    this.sessions.set(conn.id, session);
    this.perAddress.set(conn.remoteAddress, (this.perAddress.get(conn.remoteAddress) ?? 0) + 1);
    connections.inc({ transport: conn.transport });
    session.log.debug({ transport: conn.transport, address: conn.remoteAddress }, 'connection opened');
    session.onClosing = (s) => this.leaveGame(s);
    return new SessionInput(session, this, this.options);
  }

  private refusal(conn: Connection): [ErrorCode, string] | undefined {
    const { maxConnections, maxConnectionsPerIp } = this.options.config;
    if (!this.accepting) return ['ERR_SHUTDOWN', 'the server is shutting down'];
    if (this.sessions.size >= maxConnections)
      return ['ERR_SERVER_FULL', `the server holds ${maxConnections} connections`];
    if ((this.perAddress.get(conn.remoteAddress) ?? 0) >= maxConnectionsPerIp) {
      return ['ERR_TOO_MANY_FROM_ADDRESS', `at most ${maxConnectionsPerIp} connections per address`];
    }
    return undefined;
  }

  /** Bookkeeping when a session's connection is gone. */
  sessionClosed(session: Session, transportReason: string): void {
    if (!this.sessions.delete(session.id)) return;
    const address = session.conn.remoteAddress;
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
    connections.dec({ transport: session.conn.transport });
    session.markGone();
    const reason = session.closeReason ?? transportReason;
    disconnects.inc({ reason });
    session.log.debug({ reason }, 'connection closed');
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

/** One connection's input side: its decoder, ordering of async handlers and error policy. */
class SessionInput implements ConnectionInput {
  private readonly decoder: FrameDecoder;
  private readonly ctx: HandlerContext;
  /** The tail of this connection's queue of packets waiting behind an async handler. */
  private pending: Promise<void> | undefined;
  /** Until it fires (then let go: a Timeout and its closure per connection add up). */
  private handshakeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly session: Session,
    private readonly dispatcher: Dispatcher,
    private readonly options: DispatcherOptions,
  ) {
    this.decoder = new FrameDecoder(options.config.maxFrameSize);
    this.ctx = { session, sessions: dispatcher.sessions, log: session.log };
    const timeout = options.config.handshakeTimeoutMs;
    this.handshakeTimer = setTimeout(() => {
      this.handshakeTimer = undefined;
      if (session.state === 'handshake' && !session.closing) {
        session.error('ERR_HANDSHAKE_TIMEOUT', `no Hello within ${timeout} ms`, { fatal: true });
      }
    }, timeout);
    this.handshakeTimer.unref();
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
      if (e instanceof DecodeError) this.reject(e.code, e.message, opcode);
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
    clearTimeout(this.handshakeTimer);
    this.dispatcher.sessionClosed(this.session, reason);
  }

  private frame(frame: Frame): void {
    const opcode = frame.opcode;
    const packet = byOpcode(opcode);
    if (!packet || packet.dir !== 'c2s') {
      framesIn.add(opcode);
      bytesIn.add(opcode, frame.size);
      const what = packet ? `${packet.name} is sent by the server, not the client` : 'no such packet';
      this.reject('ERR_UNKNOWN_OPCODE', `opcode 0x${opcode.toString(16).padStart(4, '0')}: ${what}`, opcode);
      return;
    }
    const def = packet as AnyClientPacket;
    framesIn.add(opcode);
    bytesIn.add(opcode, frame.size);
    const session = this.session;
    if (!this.pending && !def.states.includes(session.state)) {
      this.wrongState(def);
      return;
    }
    const rateClass = def.rate ?? 'default';
    if (!session.buckets.take(rateClass, this.clock())) {
      this.reject('ERR_RATE_LIMITED', `${def.name}: over the '${rateClass}' rate limit`, opcode);
      return;
    }
    const value = def.decodeFrame(frame);
    const run = this.pending ? this.pending.then(() => this.dispatch(def, value)) : this.dispatch(def, value);
    if (run) {
      this.pending = run;
      void run.then(() => {
        if (this.pending === run) this.pending = undefined;
      });
    }
  }

  private clock(): number {
    return this.options.clock?.() ?? performance.now();
  }

  /** State check and route. Returns a promise only while an async handler is running. */
  private dispatch(def: AnyClientPacket, value: unknown): Promise<void> | undefined {
    const session = this.session;
    if (session.closing) return undefined;
    if (!def.states.includes(session.state)) {
      this.wrongState(def);
      return undefined;
    }
    try {
      switch (def.target) {
        case 'session':
          return this.runHandler(def, value);
        case 'zone':
          this.options.router.zone(session, def, value as never);
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
