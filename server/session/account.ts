/**
 * Register, LoginStart/LoginProof and Resume: the session side of AccountService.
 *
 *   Register {account, salt, verifier}  -> Registered
 *                                          | Error ERR_BAD_ACCOUNT_NAME, ERR_ACCOUNT_TAKEN, ERR_BAD_VERIFIER
 *   LoginStart {account, deviceToken}   -> LoginQueue* then LoginChallenge {salt, B}
 *                                          | Error ERR_BAD_ACCOUNT_NAME, ERR_LOGIN_THROTTLED
 *   LoginProof {A, M1}                  -> LoginOk {M2, accountId, account, resumeToken, deviceToken}
 *                                          | Error ERR_BAD_LOGIN, ERR_LOGIN_THROTTLED, ERR_WRONG_STATE
 *   Resume {account, token}             -> Resumed {accountId, account, resumeToken, characterId}
 *                                          | Error ERR_BAD_RESUME
 *
 * A Resume while the account's character lingers in the world (its connection dropped a
 * moment ago) attaches this connection to it: Resumed names the character, and the world's
 * ZoneInfo, SpellBook, EnterWorld... follow at its next tick, as after EnterWorldRequest.
 *
 * Every refusal is a non-fatal Error carrying the request's opcode. A wrong password and an
 * unknown account get the same ERR_BAD_LOGIN. One session per account: a login or resume
 * that succeeds says Bye ('takenOver') to any other open session of the account and closes it.
 */
import {
  LoginChallenge,
  LoginOk,
  LoginProof,
  LoginQueue,
  LoginStart,
  Register,
  Registered,
  Resume,
  Resumed,
} from '../../shared/protocol/account.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import { errorMessage, type ErrorCode } from '../../shared/protocol/errors.js';
import { loginResults } from '../metrics/index.js';
import type { AccountService, PendingLogin, Refusal } from './accounts.js';
import type { Session } from './session.js';
import type { HandlerContext, SessionHandlers } from './handlers.js';
import { SrpError } from './srp.js';

/** Where a resumed session finds the character its account left in the world. */
export interface ResumeWorld {
  /** Attaches the session to its account's lingering character; that character's id, if any. */
  reattach(session: Session): number | undefined | Promise<number | undefined>;
}

export interface AccountHandlerDeps {
  readonly accounts: AccountService;
  /** Without it a Resume only authenticates (the client picks a character again). */
  readonly world?: ResumeWorld;
  /**
   * Least time between two LoginQueue packets to one client, unless its position at least
   * halved meanwhile. Default 250 ms: a queue of hundreds moves many times a second and each
   * move is heard by every waiting login.
   */
  readonly queueUpdateMs?: number;
  /** Monotonic ms, for the LoginQueue throttle. Default performance.now. */
  readonly clock?: () => number;
}

/** The `result` label of wyvern_login_results_total. */
export const LoginResult = {
  Ok: 'ok',
  Resumed: 'resumed',
  BadLogin: 'bad_login',
  BadResume: 'bad_resume',
  BadAccountName: 'bad_account_name',
  Throttled: 'throttled',
  Abandoned: 'abandoned',
  Shutdown: 'shutdown',
  Internal: 'internal',
} as const;
export type LoginResult = (typeof LoginResult)[keyof typeof LoginResult];

const TAKEN_OVER_MESSAGE = 'This account logged in from somewhere else.';

/** A non-fatal refusal of the request with `opcode`; the SDK matches it to the request by opcode. */
export function refuse(session: Session, opcode: number, code: ErrorCode, reason = errorMessage(code)): void {
  session.error(code, reason, { fatal: false, opcode });
}

/**
 * The reason of ERR_LOGIN_THROTTLED: words, then `retry-after=N` (whole seconds, at least 1)
 * last, for clients to parse. The same for every account name, existing or not.
 */
export function throttledReason(retryAfterMs: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return `Too many failed logins. Try again in ${seconds} s. retry-after=${seconds}`;
}

/** Refuses a login request, saying when to retry when it is throttled. */
function refuseLogin(session: Session, opcode: number, refusal: Refusal): void {
  if (refusal.code === 'ERR_LOGIN_THROTTLED' && refusal.retryAfterMs !== undefined) {
    refuse(session, opcode, refusal.code, throttledReason(refusal.retryAfterMs));
  } else {
    refuse(session, opcode, refusal.code);
  }
}

/**
 * Internal failures (database down, SRP workers gone) are logged and refused with
 * ERR_INTERNAL, non-fatal: the client may try again. A job abandoned because the connection
 * closed needs no answer; one abandoned because the server is shutting down (or caught by
 * the SRP pool closing) is answered ERR_SHUTDOWN and is no failure. Returns the login
 * result to count.
 */
function failInternally(ctx: HandlerContext, opcode: number, err: unknown): LoginResult {
  const session = ctx.session;
  if (err instanceof SrpError && (err.code === 'aborted' || err.code === 'closed') && session.shuttingDown) {
    refuse(session, opcode, 'ERR_SHUTDOWN', 'the server is shutting down; try again once it is back');
    return LoginResult.Shutdown;
  }
  if (err instanceof SrpError && err.code === 'aborted') return LoginResult.Abandoned;
  ctx.log.error({ err, opcode }, 'account request failed');
  refuse(ctx.session, opcode, 'ERR_INTERNAL', 'the server could not complete the request');
  return LoginResult.Internal;
}

/** Says Bye to every other open session of `accountId` and closes it. */
export function takeOverAccount(ctx: HandlerContext, accountId: number): void {
  for (const other of ctx.sessions.values()) {
    if (other === ctx.session || other.accountId !== accountId || other.closing) continue;
    other.log.info({ by: ctx.session.id, accountId }, 'session taken over by a new login');
    sayTakenOver(other);
  }
}

/** Bye ('takenOver') and close: the account logged in or resumed elsewhere. */
export function sayTakenOver(session: Session): void {
  session.sayBye('takenOver', TAKEN_OVER_MESSAGE);
  session.close('takenOver');
}

async function authenticate(
  ctx: HandlerContext,
  accounts: AccountService,
  accountId: number,
  name: string,
): Promise<Uint8Array> {
  // First, and written to the registry before the client has it, so any gateway accepts it at
  // once; should the registry be out of reach the request fails with nothing changed.
  const token = await accounts.issueResumeToken(accountId, name);
  const session = ctx.session;
  if (session.closing) return token;
  takeOverAccount(ctx, accountId);
  session.accountId = accountId;
  session.account = name;
  session.state = 'authenticated';
  session.conn.admit();
  // The SRP work that took the session's signal has finished (a connection's handlers run
  // one at a time): nothing holds it any more.
  session.releaseSignal();
  session.log.info({ accountId, account: name }, 'authenticated');
  return token;
}

/**
 * LoginQueue throttle for one login: the first position always, then a changed position when
 * `minIntervalMs` has passed since the last one sent or the position at least halved.
 */
export function queueReporter(
  send: (position: number, length: number) => void,
  minIntervalMs: number,
  clock: () => number,
): (position: number, length: number) => void {
  let lastPosition: number | undefined;
  let lastAt = 0;
  return (position, length) => {
    const now = clock();
    if (lastPosition !== undefined) {
      if (position === lastPosition) return;
      if (now - lastAt < minIntervalMs && position > lastPosition / 2) return;
    }
    lastPosition = position;
    lastAt = now;
    send(position, length);
  };
}

/** What the account handlers share: the service, the world, and each login's challenge. */
interface AccountDesk {
  readonly accounts: AccountService;
  readonly world: ResumeWorld | undefined;
  readonly queueUpdateMs: number;
  readonly clock: () => number;
  /** The login between LoginChallenge and LoginProof, per session. */
  readonly pendingLogins: WeakMap<Session, PendingLogin>;
}

export function accountHandlers(deps: AccountHandlerDeps): SessionHandlers {
  const desk: AccountDesk = {
    accounts: deps.accounts,
    world: deps.world,
    queueUpdateMs: deps.queueUpdateMs ?? 250,
    clock: deps.clock ?? (() => performance.now()),
    pendingLogins: new WeakMap(),
  };
  return {
    Register: (ctx, payload) => register(desk, ctx, payload),
    LoginStart: (ctx, payload) => loginStart(desk, ctx, payload),
    LoginProof: (ctx, payload) => loginProof(desk, ctx, payload),
    Resume: (ctx, payload) => resume(desk, ctx, payload),
  };
}

async function register(
  desk: AccountDesk,
  ctx: HandlerContext,
  { account, salt, verifier }: PayloadOf<typeof Register>,
): Promise<void> {
  const { session } = ctx;
  try {
    const result = await desk.accounts.register(account, salt, verifier);
    if (session.closing) return;
    if (!result.ok) return refuse(session, Register.opcode, result.code);
    session.log.info({ accountId: result.accountId, account: result.name }, 'account registered');
    session.send(Registered, { account: result.name });
  } catch (err) {
    failInternally(ctx, Register.opcode, err);
  }
}

async function loginStart(
  desk: AccountDesk,
  ctx: HandlerContext,
  { account, deviceToken }: PayloadOf<typeof LoginStart>,
): Promise<void> {
  const { session } = ctx;
  // A new LoginStart replaces an unanswered challenge.
  desk.pendingLogins.delete(session);
  const onPosition = queueReporter(
    (position, queueLength) => session.send(LoginQueue, { position, queueLength }),
    desk.queueUpdateMs,
    desk.clock,
  );
  let result: LoginResult | undefined;
  try {
    const started = await desk.accounts.beginLogin(account, session.addressKey, {
      onPosition,
      signal: session.signal,
      deviceToken,
    });
    if (session.closing) {
      result = LoginResult.Abandoned;
      return;
    }
    if (!started.ok) {
      result = started.code === 'ERR_LOGIN_THROTTLED' ? LoginResult.Throttled : LoginResult.BadAccountName;
      return refuseLogin(session, LoginStart.opcode, started);
    }
    desk.pendingLogins.set(session, started.pending);
    session.send(LoginChallenge, { salt: started.salt, B: started.B });
  } catch (err) {
    result = failInternally(ctx, LoginStart.opcode, err);
  } finally {
    if (result !== undefined) loginResults.inc({ result });
  }
}

async function loginProof(
  desk: AccountDesk,
  ctx: HandlerContext,
  { A, M1 }: PayloadOf<typeof LoginProof>,
): Promise<void> {
  const { session } = ctx;
  const pending = desk.pendingLogins.get(session);
  if (!pending) {
    return refuse(session, LoginProof.opcode, 'ERR_WRONG_STATE', 'LoginProof needs a LoginChallenge first');
  }
  desk.pendingLogins.delete(session);
  let result: LoginResult;
  try {
    const done = await desk.accounts.finishLogin(pending, A, M1, session.addressKey, {
      signal: session.signal,
    });
    if (session.closing) {
      result = LoginResult.Abandoned;
    } else if (!done.ok) {
      result = done.code === 'ERR_LOGIN_THROTTLED' ? LoginResult.Throttled : LoginResult.BadLogin;
      refuseLogin(session, LoginProof.opcode, done);
    } else {
      result = LoginResult.Ok;
      await loggedIn(desk, ctx, done);
    }
  } catch (err) {
    result = failInternally(ctx, LoginProof.opcode, err);
  }
  loginResults.inc({ result });
}

/** A proof that was good: the session is the account's, and its client hears LoginOk. */
async function loggedIn(
  desk: AccountDesk,
  ctx: HandlerContext,
  done: { M2: Uint8Array; accountId: number; name: string },
): Promise<void> {
  const { session } = ctx;
  const resumeToken = await authenticate(ctx, desk.accounts, done.accountId, done.name);
  if (session.closing) return;
  session.send(LoginOk, {
    M2: done.M2,
    accountId: done.accountId,
    account: done.name,
    resumeToken,
    deviceToken: desk.accounts.issueDeviceToken(done.accountId, done.name),
  });
}

async function resume(
  desk: AccountDesk,
  ctx: HandlerContext,
  { account, token }: PayloadOf<typeof Resume>,
): Promise<void> {
  const { session } = ctx;
  let result: LoginResult = LoginResult.Resumed;
  try {
    const redeemed = await desk.accounts.redeemResumeToken(account, token);
    if (session.closing) {
      result = LoginResult.Abandoned;
      return;
    }
    if (!redeemed.ok) {
      result = LoginResult.BadResume;
      return refuse(session, Resume.opcode, redeemed.code);
    }
    desk.pendingLogins.delete(session);
    const resumeToken = await authenticate(ctx, desk.accounts, redeemed.accountId, redeemed.name);
    // The character may linger on another gateway: finding it takes the registry.
    const characterId = (await desk.world?.reattach(session)) ?? 0;
    if (session.closing) return;
    session.send(Resumed, {
      accountId: redeemed.accountId,
      account: redeemed.name,
      resumeToken,
      characterId,
    });
  } catch (err) {
    result = failInternally(ctx, Resume.opcode, err);
  } finally {
    loginResults.inc({ result });
  }
}
