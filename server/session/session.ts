/**
 * One Session per connection: its protocol state, who it is once logged in, and the
 * helpers handlers use to answer. Other modules add their own fields here (account,
 * character, entity) rather than keeping side tables keyed by connection id.
 */
import { Bye, ErrorPacket, type ByeReason } from '../../shared/protocol/session.js';
import type { ConnState, PayloadOf, ServerPacket } from '../../shared/protocol/define.js';
import type { ErrorCode } from '../../shared/protocol/errors.js';
import type { Fields } from '../../shared/codec/fields.js';
import { errorsSent } from '../metrics/index.js';
import type { Logger } from '../log.js';
import type { Connection, TransportErrorCode } from '../transport/connection.js';
import { RateBuckets } from './rate-limit.js';
import type { Config } from '../config.js';

export type SessionErrorCode = ErrorCode | TransportErrorCode;

export interface ErrorOptions {
  /** A fatal error closes the connection after the Error packet is flushed. */
  readonly fatal: boolean;
  /** The opcode of the packet that caused it; 0 when none. */
  readonly opcode?: number;
  /** The close reason for logs and metrics when fatal; the code by default. */
  readonly closeReason?: string;
}

const REASON_MAX_BYTES = 200;
/** The abort reason of work abandoned because the server is shutting down. */
const SHUTTING_DOWN = new Error('the server is shutting down');
const utf8 = new TextEncoder();

/** Cuts text to fit a string field of `maxBytes` UTF-8 bytes without splitting a character. */
export function clipUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || utf8.encode(text).length <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = utf8.encode(ch).length;
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

export class Session {
  state: ConnState = 'handshake';
  /** Set by the Hello handler. */
  client: { kind: string; name: string } | undefined;
  accountId: number | undefined;
  account: string | undefined;
  characterId: number | undefined;
  entityId: number | undefined;
  readonly openedAt = Date.now();
  readonly buckets: RateBuckets;
  /**
   * What per-address limits count this connection under (server/transport/address.ts):
   * its address, or its IPv6 prefix. Set by the dispatch core.
   */
  addressKey: string;
  /** Why the server closed it, once it has decided to; a peer hang-up leaves it unset. */
  closeReason: string | undefined;
  /** Called once the server has decided to close this session (set by the dispatch core). */
  onClosing: ((session: Session) => void) | undefined;
  /** Made on first use of `signal`: most connections never start slow work. */
  private work: AbortController | undefined;
  private readonly rootLog: Logger;
  private logger: Logger | undefined;
  private workEnd: Error | undefined;

  constructor(
    readonly conn: Connection,
    rates: Config['rates'],
    log: Logger,
  ) {
    this.buckets = new RateBuckets(rates);
    this.rootLog = log;
    this.addressKey = conn.remoteAddress;
  }

  /** This connection's logger, made on first use: most idle connections never log. */
  get log(): Logger {
    return (this.logger ??= this.rootLog.child({ conn: this.conn.id }));
  }

  get id(): number {
    return this.conn.id;
  }

  /**
   * Aborted once the connection is gone or the server abandons the session's work
   * (shutdown): pass it to slow work (SRP, store) started for this session.
   */
  get signal(): AbortSignal {
    this.work ??= new AbortController();
    if (this.workEnd && !this.work.signal.aborted) this.work.abort(this.workEnd);
    return this.work.signal;
  }

  /** Whether the server abandoned this session's work because it is shutting down. */
  get shuttingDown(): boolean {
    return this.workEnd === SHUTTING_DOWN;
  }

  /**
   * Forgets the signal handed out so far: for a caller that knows no work started with it is
   * still running (the login handlers run one at a time, and login is over). A later `signal`
   * is a fresh one, aborted already if the connection is gone.
   */
  releaseSignal(): void {
    // Work given up at shutdown keeps its controller: a later `signal` must stay aborted.
    if (!this.workEnd) this.work = undefined;
  }

  /** Called by the dispatch core when the connection has closed. */
  markGone(): void {
    this.endWork(new Error('connection closed'));
  }

  /** Called by the dispatch core on shutdown: work in flight is given up and answered ERR_SHUTDOWN. */
  abandonWork(): void {
    this.endWork(SHUTTING_DOWN);
  }

  private endWork(reason: Error): void {
    if (this.workEnd) return;
    this.workEnd = reason;
    this.work?.abort(reason);
  }

  get closing(): boolean {
    return this.closeReason !== undefined || this.conn.closed;
  }

  /** Encodes and queues one packet with its declared delivery; false when dropped or closed. */
  send<P extends ServerPacket<string, Fields>>(def: P, value: PayloadOf<P>): boolean {
    return this.conn.send(def.encode(value as never), def.delivery);
  }

  /**
   * Bye: the last packet of this connection. Whatever is sent after it (an answer to a
   * request that crossed it, a tick's updates) is discarded, so a client never hears from a
   * server that said goodbye.
   */
  sayBye(reason: (typeof ByeReason)[number], message: string): void {
    if (this.closing) return;
    this.send(Bye, { reason, message });
    this.conn.seal();
  }

  /**
   * Sends an Error packet. Fatal: logged once, then the connection is flushed and closed
   * with the code as its reason. Non-fatal: a refusal the client can recover from.
   */
  error(code: SessionErrorCode, reason: string, options: ErrorOptions): void {
    if (this.closing) return;
    const fatal = options.fatal;
    errorsSent.inc({ code, fatal: fatal ? 'true' : 'false' });
    this.conn.send(
      ErrorPacket.encode({
        code,
        reason: clipUtf8(reason, REASON_MAX_BYTES),
        opcode: options.opcode ?? 0,
        fatal,
      }),
      'reliable',
    );
    if (fatal) {
      this.log.info({ code, reason, opcode: options.opcode ?? 0, state: this.state }, 'closing on error');
      this.close(options.closeReason ?? code);
    }
  }

  /** Flushes what is queued and closes; `reason` is kept for metrics and logs. */
  close(reason: string): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    this.conn.close(reason);
    // The socket may take a while to finish closing; the game need not wait for it.
    this.onClosing?.(this);
  }
}
