/**
 * WyvernClient: the headless client over any ByteTransport. One FrameDecoder turns the
 * transport's bytes into frames, `byOpcode` decodes them, and each packet goes, in order, to
 * the client's own bookkeeping (clock, world view, state), to the `onPacket` hook, then to
 * handlers registered with `on`. Requests (hello, login, enterWorld, ...) are promises that
 * resolve on their answer and reject with a WyvernError on a refusal (an Error packet whose
 * opcode is the request's), a fatal Error, a timeout or a closed connection: none is left
 * hanging.
 */
import { FrameDecoder, HEADER_SIZE } from '../codec/frame.js';
import { DecodeError } from '../codec/errors.js';
import { Hello, Ping, Pong, Welcome, ErrorPacket, Bye } from '../protocol/session.js';
import {
  Register,
  Registered,
  LoginStart,
  LoginChallenge,
  LoginProof,
  LoginOk,
  LoginQueue,
} from '../protocol/account.js';
import { Resume, Resumed } from '../protocol/account.js';
import {
  ListCharacters,
  CharacterList,
  CreateCharacter,
  CharacterCreated,
  DeleteCharacter,
  CharacterDeleted,
  EnterWorldRequest,
  EnterWorld,
  ZoneChanged,
  ZoneInfo,
} from '../protocol/character.js';
import { MoveInput, PositionCorrection } from '../protocol/movement.js';
import { WorldUpdate } from '../protocol/entity.js';
import { MotionRefs, type WorldUpdatePayload } from '../protocol/motion-refs.js';
import { SpellBook, CastSpell, CancelCast } from '../protocol/spell.js';
import { ChatSend, Whisper, Who, WhoList } from '../protocol/chat.js';
import { LogoutRequest, LogoutStarted, LogoutCancelled, LogoutComplete } from '../protocol/logout.js';
import { PROTOCOL_VERSION } from '../protocol/common.js';
import type { ClientPacket, ConnState, PayloadOf, ServerPacket } from '../protocol/define.js';
import type { ClientKind } from '../protocol/session.js';

export type ClientKindName = (typeof ClientKind)[number];
import { byOpcode } from '../protocol/registry.js';
import { ClockSync, type ClockSample, type Now } from './clock.js';
import { ErrorCode } from '../protocol/errors.js';
import { ClientErrorCode, WyvernError } from './errors.js';
import { makeVerifier, startLogin, type SrpProof } from './srp.js';
import type { DeviceTokenStore } from './device-tokens.js';
import type { ByteTransport } from './transport.js';
import { WorldView, type EnterWorldPayload, type ZoneInfoPayload } from './world-view.js';

/** Any server-to-client packet definition (for `on` and `waitFor`). */
export type AnyServerDef = ServerPacket<string, any>;
/** Any client-to-server packet definition (for `send`). */
export type AnyClientDef = ClientPacket<string, any>;

export type WelcomePayload = PayloadOf<typeof Welcome>;
export type RegisteredPayload = PayloadOf<typeof Registered>;
export type CharacterSummary = PayloadOf<typeof CharacterList>['characters'][number];
export type SpellBookPayload = PayloadOf<typeof SpellBook>;
export type WhoListPayload = PayloadOf<typeof WhoList>;
export type ErrorPayload = PayloadOf<typeof ErrorPacket>;
export type ByePayload = PayloadOf<typeof Bye>;

/** LoginStart's deviceToken when the client has none. */
const NO_TOKEN = new Uint8Array(0);

export interface LoginResult {
  accountId: number;
  account: string;
  /** Single use, short-lived: Resume with it after a dropped connection. */
  resumeToken: Uint8Array;
}

/** A password login's result: also this device's remembered-device token for the account. */
export interface PasswordLoginResult extends LoginResult {
  deviceToken: Uint8Array;
}

export interface EnterWorldResult {
  zone: ZoneInfoPayload;
  spells: SpellBookPayload;
  enter: EnterWorldPayload;
}

export interface ResumeResult extends LoginResult {
  /** The character still in the world that this connection took back (0: none, pick one). */
  characterId: number;
  /** Its state as the server re-sent it, when `characterId` is not 0. */
  entered?: EnterWorldResult;
}

/** Where the connection stands; 'closed' once the transport has closed. */
export type ClientState = ConnState | 'closed';

export interface PacketCounters {
  framesIn: number;
  bytesIn: number;
  framesOut: number;
  bytesOut: number;
}

/** Frames and bytes (header included) in and out, per packet name and in total. */
export class ClientStats {
  readonly packets = new Map<string, PacketCounters>();
  readonly total: PacketCounters = { framesIn: 0, bytesIn: 0, framesOut: 0, bytesOut: 0 };

  countIn(name: string, bytes: number): void {
    const c = this.counters(name);
    c.framesIn++;
    c.bytesIn += bytes;
    this.total.framesIn++;
    this.total.bytesIn += bytes;
  }

  countOut(name: string, bytes: number): void {
    const c = this.counters(name);
    c.framesOut++;
    c.bytesOut += bytes;
    this.total.framesOut++;
    this.total.bytesOut += bytes;
  }

  reset(): void {
    this.packets.clear();
    Object.assign(this.total, { framesIn: 0, bytesIn: 0, framesOut: 0, bytesOut: 0 });
  }

  private counters(name: string): PacketCounters {
    let c = this.packets.get(name);
    if (!c) {
      c = { framesIn: 0, bytesIn: 0, framesOut: 0, bytesOut: 0 };
      this.packets.set(name, c);
    }
    return c;
  }
}

export interface WyvernClientOptions {
  /** Client clock (ms since the Unix epoch); see clock.ts for the default. */
  now?: Now;
  /** How long a request waits for its answer (ms). Default 15 s. */
  requestTimeoutMs?: number;
  /** Called with an exception thrown by a handler; by default it is rethrown outside the receive loop. */
  onHandlerError?: (err: unknown) => void;
  /**
   * The world view to keep up to date (default: a new one). A page that reconnects passes the
   * same view to each new client, so what it draws from keeps its listeners.
   */
  world?: WorldView;
}

export interface WaitForOptions<T> {
  predicate?: (payload: T) => boolean;
  /** Default: the client's request timeout; 0 waits until the connection closes. */
  timeoutMs?: number;
  /** Opcodes whose refusal (a non-fatal Error carrying that opcode) rejects this wait. */
  refusedBy?: readonly number[];
}

interface Pending {
  readonly refusedBy: readonly number[];
  fail(err: Error): void;
}

/** Name under which frames with an opcode this client does not know are counted. */
export const UNKNOWN_PACKET = 'unknown';

export class WyvernClient {
  readonly clock: ClockSync;
  readonly world: WorldView;
  /** The references WorldUpdate heads and moveBy records count from (resolved on arrival). */
  readonly motionRefs = new MotionRefs();
  readonly stats = new ClientStats();
  state: ClientState = 'handshake';
  welcome: WelcomePayload | undefined;
  account: string | undefined;
  accountId: number | undefined;
  resumeToken: Uint8Array | undefined;
  zone: ZoneInfoPayload | undefined;
  spellBook: SpellBookPayload | undefined;
  /** The newest WorldUpdate's tick and time: the server time of the updates in and after it. */
  lastTick: { tick: number; serverTime: number } | undefined;
  /** Why the connection closed, once it has. */
  closeReason: string | undefined;
  /**
   * The server running the character's zone went down (ERR_ZONE_DOWN): the world view stands
   * still and inputs go nowhere until the server puts the character back (EnterWorld, which
   * clears this), by itself.
   */
  zoneDown = false;
  /** Resolves with the reason when the connection closes. */
  readonly closed: Promise<string>;

  /** Every received packet, after the client's own bookkeeping and before `on` handlers. */
  onPacket: ((name: string, payload: unknown, frameBytes: number) => void) | undefined;
  /** A server Error that no pending request took (fatal ones included). */
  onError: ((err: WyvernError) => void) | undefined;
  /** The connection closed. */
  onClose: ((reason: string) => void) | undefined;

  private readonly decoder = new FrameDecoder();
  private readonly handlers = new Map<number, Set<(payload: any, def: any) => void>>();
  private readonly pending = new Set<Pending>();
  private readonly requestTimeoutMs: number;
  private readonly onHandlerError: (err: unknown) => void;
  private fatalError: WyvernError | undefined;
  private bye: ByePayload | undefined;
  private batchTime: number | undefined;
  private helloSentAt: number | undefined;
  private pingSeq = 0;
  private moveSeq = 0;
  private epoch = 0;
  private clockTimer: ReturnType<typeof setInterval> | undefined;
  private resolveClosed!: (reason: string) => void;

  constructor(
    readonly transport: ByteTransport,
    options: WyvernClientOptions = {},
  ) {
    this.clock = new ClockSync(options.now ? { now: options.now } : {});
    this.world = options.world ?? new WorldView();
    this.requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
    this.onHandlerError =
      options.onHandlerError ??
      ((err) =>
        queueMicrotask(() => {
          throw err;
        }));
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    transport.onBytes = (bytes) => this.receive(bytes);
    transport.onClose = (reason) => this.handleClose(reason);
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** The server's clock now (ms since the Unix epoch), from clock sync. */
  serverNow(): number {
    return this.clock.serverNow();
  }

  // ---- sending and receiving ------------------------------------------------------------

  /** Sends one packet; false when the connection is closed. Throws EncodeError on a bad value. */
  send<P extends AnyClientDef>(def: P, value: PayloadOf<P>): boolean {
    const frame = def.encode(value);
    return this.sendFrame(def.name, frame);
  }

  /** Calls `handler` for every `def` packet received; returns the unsubscribe function. */
  on<P extends AnyServerDef>(def: P, handler: (payload: PayloadOf<P>, def: P) => void): () => void {
    let set = this.handlers.get(def.opcode);
    if (!set) {
      set = new Set();
      this.handlers.set(def.opcode, set);
    }
    const h = handler as (payload: unknown, def: unknown) => void;
    set.add(h);
    return () => {
      set.delete(h);
    };
  }

  /** The next `def` packet (that passes `predicate`). Rejects on timeout, fatal error or close. */
  waitFor<P extends AnyServerDef>(def: P, options: WaitForOptions<PayloadOf<P>> = {}): Promise<PayloadOf<P>> {
    const { predicate } = options;
    return this.track<PayloadOf<P>>(
      options.refusedBy ?? [],
      options.timeoutMs ?? this.requestTimeoutMs,
      `${def.name}`,
      (resolve) =>
        this.on(def, (payload) => {
          if (!predicate || predicate(payload)) resolve(payload);
        }),
    );
  }

  /** Sends `def` and waits for `reply`; a refusal of `def` rejects. */
  async request<P extends AnyClientDef, R extends AnyServerDef>(
    def: P,
    value: PayloadOf<P>,
    reply: R,
    options: Omit<WaitForOptions<PayloadOf<R>>, 'refusedBy'> = {},
  ): Promise<PayloadOf<R>> {
    const frame = def.encode(value);
    const answer = this.waitFor(reply, { ...options, refusedBy: [def.opcode] });
    this.sendFrame(def.name, frame);
    return answer;
  }

  /** Closes the connection; pending requests reject with ERR_CLOSED. */
  close(reason = 'closed by the client'): void {
    if (this.isClosed) return;
    this.transport.close();
    this.handleClose(reason);
  }

  // ---- session ----------------------------------------------------------------------------

  /** Hello -> Welcome. */
  async hello(options: { clientKind: ClientKindName; clientName: string }): Promise<WelcomePayload> {
    const frame = Hello.encode({
      protocolVersion: PROTOCOL_VERSION,
      clientKind: options.clientKind,
      clientName: options.clientName,
    });
    const answer = this.waitFor(Welcome, { refusedBy: [Hello.opcode] });
    this.helloSentAt = this.clock.now();
    this.sendFrame(Hello.name, frame);
    return answer;
  }

  /** Creates an account: SRP salt and verifier are computed here; the password is not sent. */
  async register(account: string, password: string): Promise<RegisteredPayload> {
    let made: { salt: Uint8Array; verifier: Uint8Array };
    try {
      made = await makeVerifier(account, password);
    } catch (err) {
      throw new WyvernError(ClientErrorCode.Srp, describe(err), false, Register.opcode);
    }
    return this.request(Register, { account, salt: made.salt, verifier: made.verifier }, Registered);
  }

  /**
   * SRP-6a login: LoginStart -> (LoginQueue updates) -> LoginChallenge -> LoginProof ->
   * LoginOk, whose M2 must prove the server knows the verifier. LoginStart carries the
   * remembered-device token for the account (`deviceToken`, else the one `deviceTokens`
   * keeps), and `deviceTokens` keeps the new one LoginOk brings.
   */
  async login(
    account: string,
    password: string,
    options: {
      onQueue?: (position: number, length: number) => void;
      deviceToken?: Uint8Array;
      deviceTokens?: DeviceTokenStore;
    } = {},
  ): Promise<PasswordLoginResult> {
    let answer: (salt: Uint8Array, B: Uint8Array) => Promise<SrpProof>;
    try {
      answer = await startLogin(account, password);
    } catch (err) {
      throw new WyvernError(ClientErrorCode.Srp, describe(err), false, LoginStart.opcode);
    }
    const deviceToken = options.deviceToken ?? options.deviceTokens?.get(account) ?? NO_TOKEN;
    const frame = LoginStart.encode({ account, deviceToken });
    const challenge = await this.track<PayloadOf<typeof LoginChallenge>>(
      [LoginStart.opcode],
      this.requestTimeoutMs,
      'LoginChallenge',
      (resolve, _fail, rearm) => {
        const offQueue = this.on(LoginQueue, (q) => {
          // Waiting in the queue is progress: the timeout counts from the newest update.
          rearm();
          options.onQueue?.(q.position, q.queueLength);
        });
        const offChallenge = this.on(LoginChallenge, resolve);
        this.sendFrame(LoginStart.name, frame);
        return () => {
          offQueue();
          offChallenge();
        };
      },
    );
    let proof: SrpProof;
    try {
      proof = await answer(challenge.salt, challenge.B);
    } catch (err) {
      throw new WyvernError(ClientErrorCode.Srp, describe(err), false, LoginProof.opcode);
    }
    const ok = await this.request(LoginProof, { A: proof.A, M1: proof.M1 }, LoginOk);
    if (!(await proof.verifyServer(ok.M2))) {
      const err = new WyvernError(ClientErrorCode.BadServerProof, 'LoginOk M2 does not match', true);
      this.close('the server failed to prove the account');
      throw err;
    }
    this.authenticated(ok);
    if (ok.deviceToken.length > 0) options.deviceTokens?.set(ok.account, ok.deviceToken);
    return {
      accountId: ok.accountId,
      account: ok.account,
      resumeToken: ok.resumeToken,
      deviceToken: ok.deviceToken,
    };
  }

  /**
   * Resume -> Resumed, with the token from the last LoginOk or Resumed (each works once).
   * When the account's character is still in the world (its connection dropped a moment
   * ago), this connection takes it back: ZoneInfo, SpellBook and EnterWorld follow, and the
   * promise resolves once they have arrived, in the world, without EnterWorldRequest.
   */
  async resume(account: string, token: Uint8Array): Promise<ResumeResult> {
    // EnterWorld may come in the same chunk as Resumed: listen before asking.
    let enter: EnterWorldPayload | undefined;
    const off = this.on(EnterWorld, (e) => (enter ??= e));
    try {
      const ok = await this.request(Resume, { account, token }, Resumed);
      this.authenticated(ok);
      const result: ResumeResult = {
        accountId: ok.accountId,
        account: ok.account,
        resumeToken: ok.resumeToken,
        characterId: ok.characterId,
      };
      if (ok.characterId === 0) return result;
      enter ??= await this.waitFor(EnterWorld);
      if (!this.zone || !this.spellBook) {
        throw new WyvernError(
          ClientErrorCode.Protocol,
          'EnterWorld came before ZoneInfo and SpellBook',
          false,
        );
      }
      return { ...result, entered: { zone: this.zone, spells: this.spellBook, enter } };
    } finally {
      off();
    }
  }

  async listCharacters(): Promise<CharacterSummary[]> {
    return (await this.request(ListCharacters, {}, CharacterList)).characters;
  }

  async createCharacter(name: string, appearance: number): Promise<CharacterSummary> {
    return (await this.request(CreateCharacter, { name, appearance }, CharacterCreated)).character;
  }

  async deleteCharacter(characterId: number): Promise<void> {
    await this.request(DeleteCharacter, { characterId }, CharacterDeleted, {
      predicate: (p) => p.characterId === characterId,
    });
  }

  /** EnterWorldRequest -> ZoneInfo, SpellBook, EnterWorld (in that order). */
  enterWorld(characterId: number): Promise<EnterWorldResult> {
    const frame = EnterWorldRequest.encode({ characterId });
    return this.track<EnterWorldResult>(
      [EnterWorldRequest.opcode],
      this.requestTimeoutMs,
      'EnterWorld',
      (resolve, fail) => {
        let zone: ZoneInfoPayload | undefined;
        let spells: SpellBookPayload | undefined;
        const offs = [
          this.on(ZoneInfo, (z) => (zone = z)),
          this.on(SpellBook, (s) => (spells = s)),
          this.on(EnterWorld, (enter) => {
            if (!zone || !spells) {
              fail(
                new WyvernError(
                  ClientErrorCode.Protocol,
                  'EnterWorld came before ZoneInfo and SpellBook',
                  false,
                  EnterWorldRequest.opcode,
                ),
              );
            } else {
              resolve({ zone, spells, enter });
            }
          }),
        ];
        this.sendFrame(EnterWorldRequest.name, frame);
        return () => offs.forEach((off) => off());
      },
    );
  }

  /**
   * LogoutRequest -> LogoutStarted -> LogoutComplete: back at the character screen.
   * Rejects with ERR_LOGOUT_CANCELLED if the server cancels it (the character moved or fought).
   */
  logout(options: { onStarted?: (delayMs: number) => void } = {}): Promise<void> {
    const frame = LogoutRequest.encode({});
    return this.track<void>(
      [LogoutRequest.opcode],
      this.requestTimeoutMs,
      'LogoutComplete',
      (resolve, fail, rearm) => {
        const offs = [
          this.on(LogoutStarted, (s) => {
            rearm(s.delay + this.requestTimeoutMs);
            options.onStarted?.(s.delay);
          }),
          this.on(LogoutCancelled, () =>
            fail(
              new WyvernError(
                'ERR_LOGOUT_CANCELLED',
                'the server cancelled the logout (the character moved or fought)',
                false,
                LogoutRequest.opcode,
              ),
            ),
          ),
          this.on(LogoutComplete, () => resolve()),
        ];
        this.sendFrame(LogoutRequest.name, frame);
        return () => offs.forEach((off) => off());
      },
    );
  }

  // ---- in the world -----------------------------------------------------------------------

  /**
   * Sends the own character's movement state (already predicted there): where it is, its
   * heading (facing when standing), whether it walks and at what speed. Send it when the
   * state changes and as a heartbeat while walking (MoveSender decides); returns its seq.
   * It carries the newest move epoch the server told (`moveEpoch`).
   */
  sendMove(x: number, y: number, facing: number, moving = false, speed = 0): number {
    const seq = ++this.moveSeq;
    const clientTime = this.clock.now();
    this.send(MoveInput, { seq, x, y, facing, moving, speed, clientTime, epoch: this.moveEpoch });
    this.world.setSelfPosition(x, y, facing, this.serverNow());
    return seq;
  }

  /**
   * The newest move epoch the server told (EnterWorld, PositionCorrection): every jump it
   * makes the own character take starts one, and a MoveInput of an older one is dropped.
   */
  get moveEpoch(): number {
    return this.epoch;
  }

  /** Seq of the newest MoveInput sent. */
  get lastMoveSeq(): number {
    return this.moveSeq;
  }

  cast(spellId: number, targetId: number): boolean {
    return this.send(CastSpell, { spellId, targetId });
  }

  cancelCast(): boolean {
    return this.send(CancelCast, {});
  }

  say(text: string, channel: 'say' | 'zone' = 'say'): boolean {
    return this.send(ChatSend, { channel, text });
  }

  whisper(to: string, text: string): boolean {
    return this.send(Whisper, { to, text });
  }

  who(): Promise<WhoListPayload> {
    return this.request(Who, {}, WhoList);
  }

  // ---- clock sync -------------------------------------------------------------------------

  /** One Ping -> Pong round trip, added to the clock's samples. */
  async ping(): Promise<ClockSample> {
    const seq = (this.pingSeq = (this.pingSeq + 1) >>> 0);
    const clientTime = this.clock.now();
    const answer = this.waitFor(Pong, { predicate: (p) => p.seq === seq, refusedBy: [Ping.opcode] });
    this.send(Ping, { seq, clientTime });
    const pong = await answer;
    return this.clock.addSample(pong.clientTime, pong.serverTime);
  }

  /** Pings now and every `intervalMs` until stopClockSync() or close. */
  startClockSync(intervalMs = 5_000): void {
    this.stopClockSync();
    const tick = () => {
      this.ping().catch(() => {});
    };
    tick();
    this.clockTimer = setInterval(tick, intervalMs);
  }

  stopClockSync(): void {
    if (this.clockTimer !== undefined) clearInterval(this.clockTimer);
    this.clockTimer = undefined;
  }

  // ---- internals --------------------------------------------------------------------------

  private sendFrame(name: string, frame: Uint8Array): boolean {
    if (this.isClosed) return false;
    this.stats.countOut(name, frame.length);
    this.transport.send(frame);
    return true;
  }

  private authenticated(ok: { accountId: number; account: string; resumeToken: Uint8Array }): void {
    // A resumed character's EnterWorld may have come in the same chunk as Resumed, before this.
    if (this.state !== 'inWorld') this.state = 'authenticated';
    this.account = ok.account;
    this.accountId = ok.accountId;
    this.resumeToken = ok.resumeToken;
  }

  /**
   * Registers a pending operation: `run` subscribes (and usually sends) and returns its
   * cleanup. The operation ends once: resolved, refused, failed, timed out or closed.
   */
  private track<T>(
    refusedBy: readonly number[],
    timeoutMs: number,
    what: string,
    run: (
      resolve: (value: T) => void,
      fail: (err: Error) => void,
      rearm: (ms?: number) => void,
    ) => () => void,
  ): Promise<T> {
    if (this.isClosed) return Promise.reject(this.closedError());
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let cleanup: (() => void) | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        this.pending.delete(pending);
        cleanup?.();
        return true;
      };
      const pending: Pending = {
        refusedBy,
        fail: (err) => {
          if (settle()) reject(err);
        },
      };
      const rearm = (ms = timeoutMs): void => {
        if (settled) return;
        if (timer !== undefined) clearTimeout(timer);
        timer =
          ms > 0
            ? setTimeout(
                () =>
                  pending.fail(new WyvernError(ClientErrorCode.Timeout, `no ${what} after ${ms} ms`, false)),
                ms,
              )
            : undefined;
      };
      this.pending.add(pending);
      rearm();
      try {
        const off = run(
          (value) => {
            if (settle()) resolve(value);
          },
          pending.fail,
          rearm,
        );
        if (settled) off();
        else cleanup = off;
      } catch (err) {
        pending.fail(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  private receive(bytes: Uint8Array): void {
    if (this.isClosed) return;
    // A WorldUpdate stamps the updates after it in the same chunk; the server writes a tick's
    // batch at once, so a batch split across TCP chunks is rare and falls back to serverNow().
    this.batchTime = undefined;
    try {
      this.decoder.push(bytes);
      for (;;) {
        const frame = this.decoder.next();
        if (!frame) break;
        const frameBytes = frame.payload.length + HEADER_SIZE;
        const def = byOpcode(frame.opcode);
        if (!def || def.dir !== 's2c') {
          // A newer server may know packets this client does not: skip them.
          this.stats.countIn(UNKNOWN_PACKET, frameBytes);
          continue;
        }
        const payload: unknown = def.decode(frame.payload);
        // Its head and moveBy records are relative: everything after this sees absolute ones.
        if (def.opcode === WorldUpdate.opcode) this.motionRefs.resolve(payload as WorldUpdatePayload);
        this.stats.countIn(def.name, frameBytes);
        this.dispatch(def, payload, frameBytes);
        if (this.isClosed) return;
      }
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      // The stream cannot be trusted past a bad frame: give up on the connection.
      this.fatalError = new WyvernError(ClientErrorCode.Protocol, `${err.code}: ${err.message}`, true);
      this.close(`protocol error from the server: ${err.code}: ${err.message}`);
    } finally {
      this.batchTime = undefined;
    }
  }

  private dispatch(def: ServerPacket, payload: unknown, frameBytes: number): void {
    // World-view listeners run inside bookkeeping: a throwing one must not stop the stream.
    this.guard(() => this.bookkeep(def, payload));
    if (this.onPacket) this.guard(() => this.onPacket!(def.name, payload, frameBytes));
    const set = this.handlers.get(def.opcode);
    if (!set || set.size === 0) return;
    for (const handler of [...set]) {
      if (this.isClosed) return;
      this.guard(() => handler(payload, def));
    }
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onHandlerError(err);
    }
  }

  /** What the client itself keeps from each packet. */
  private bookkeep(def: ServerPacket, payload: unknown): void {
    const at = this.batchTime ?? this.clock.serverNow();
    switch (def.name) {
      case 'Welcome': {
        const w = payload as WelcomePayload;
        this.welcome = w;
        this.state = 'login';
        if (this.helloSentAt !== undefined) this.clock.addSample(this.helloSentAt, w.serverTime);
        this.helloSentAt = undefined;
        return;
      }
      case 'Error':
        this.serverError(payload as ErrorPayload);
        return;
      case 'Bye':
        this.bye = payload as ByePayload;
        return;
      case 'WorldUpdate': {
        const update = payload as PayloadOf<typeof WorldUpdate>;
        this.lastTick = { tick: update.tick, serverTime: update.time };
        this.batchTime = update.time;
        this.world.applyRecords(update.records, update.time);
        return;
      }
      case 'ZoneInfo':
        this.zone = payload as ZoneInfoPayload;
        this.world.zone = this.zone;
        return;
      case 'SpellBook':
        this.spellBook = payload as SpellBookPayload;
        return;
      case 'ZoneChanged': {
        // Handed to the next zone's host: keep the view and the prediction; heads and motion
        // references count from its tick and time (the next WorldUpdate spawns everything anew).
        const changed = payload as PayloadOf<typeof ZoneChanged>;
        this.motionRefs.enter(changed.tick, changed.serverTime);
        return;
      }
      case 'EnterWorld': {
        const enter = payload as EnterWorldPayload;
        this.motionRefs.enter(enter.tick, enter.serverTime);
        this.state = 'inWorld';
        this.moveSeq = 0;
        this.epoch = enter.moveEpoch;
        this.zoneDown = false;
        this.world.enter(enter, this.zone);
        return;
      }
      case 'PositionCorrection':
        // Before the page hears of it: nothing it sends from now on is from before the jump.
        this.epoch = (payload as PayloadOf<typeof PositionCorrection>).epoch;
        this.world.apply(def.name, payload, at);
        return;
      case 'LogoutComplete':
        this.state = 'authenticated';
        this.world.reset();
        return;
      default:
        this.world.apply(def.name, payload, at);
    }
  }

  private serverError(e: ErrorPayload): void {
    const err = new WyvernError(e.code, e.reason, e.fatal, e.opcode);
    if (e.code === ErrorCode.ZoneDown) this.zoneDown = true;
    if (e.fatal) {
      // The server closes after a fatal error: everything waiting fails with the real cause.
      this.fatalError = err;
      for (const p of [...this.pending]) p.fail(err);
    } else {
      for (const p of this.pending) {
        if (p.refusedBy.includes(e.opcode)) {
          p.fail(err);
          return;
        }
      }
    }
    if (this.onError) this.guard(() => this.onError!(err));
  }

  private closedError(): WyvernError {
    if (this.fatalError) return this.fatalError;
    const reason = this.bye
      ? `the server said goodbye (${this.bye.reason}${this.bye.message ? `: ${this.bye.message}` : ''})`
      : (this.closeReason ?? 'closed');
    return new WyvernError(ClientErrorCode.Closed, reason, true);
  }

  private handleClose(reason: string): void {
    if (this.isClosed) return;
    this.state = 'closed';
    this.closeReason = reason;
    this.stopClockSync();
    const err = this.closedError();
    for (const p of [...this.pending]) p.fail(err);
    this.resolveClosed(reason);
    if (this.onClose) this.guard(() => this.onClose!(reason));
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
