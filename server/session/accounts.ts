/**
 * AccountService: what the session handlers call for Register, LoginStart/LoginProof, Resume
 * and the character screen. It owns the rules (names, throttling, SRP, resume tokens) and
 * answers with stable error codes; it knows nothing about connections. Keeping one session per
 * account is the session layer's job.
 *
 * Expected refusals come back as `{ ok: false, code }`. Exceptions are internal failures
 * (database down, SRP workers gone: SrpError 'unavailable'/'worker-crashed'/'closed', or
 * 'aborted' when the caller's signal fired); the session answers those with ERR_INTERNAL or,
 * for 'aborted', with nothing.
 *
 * An unknown account name still gets a challenge, from a salt and verifier derived from the
 * name with the server secret (HKDF, i.e. HMAC-SHA-512): the same salt every time, like a
 * real account, and a proof that can never verify. Login thus never tells which names exist
 * (registration does, necessarily, by refusing a taken name).
 *
 * A resume token is good on any gateway of the cluster: it carries its account and is signed
 * with a key derived from the cluster's shared secret, so any gateway checks it without a
 * lookup, and the registry (ResumeTokenStore) holds the account's newest token's id, which a
 * redeem takes by compare-and-set: once, and not after a newer login or resume.
 *
 *   token (32 bytes)  accountId u48 BE · nonce 10 bytes · HMAC-SHA-256(key, first 16 bytes)[0..16)
 *
 * A remembered-device token is issued with every LoginOk; the client keeps it for that account
 * and sends it in LoginStart. While a guess spread over many addresses locks an account (see
 * LoginLimiter), a login bringing a valid one is let through to its password check, and its
 * failures count against the token. It authenticates nothing by itself (the password is still
 * checked), so it is stateless: checked by its MAC and age on any gateway, nothing stored.
 *
 *   device token (32 bytes)  accountId u48 BE · issued u32 BE (s, Unix) · nonce 6 bytes ·
 *                            HMAC-SHA-256(deviceKey, first 16 bytes · lower-cased name)[0..16)
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ResumeRecord } from '../cluster/registry.js';
import { MAX_CHARACTERS } from '../../shared/protocol/character.js';
import { ErrorCode } from '../../shared/protocol/errors.js';
import { StoreError, type CharacterRecord, type CharacterState, type Store } from '../store/types.js';
import { LoginLimiter } from './login-limiter.js';
import { checkAccountName, checkCharacterName } from './names.js';
import {
  bigIntToBytes,
  bytesToBigInt,
  MAX_SALT_BYTES,
  SRP_PRIME,
  SrpError,
  srpIdentity,
  type SrpJobOptions,
  type SrpPool,
  type SrpServerState,
} from './srp.js';

export interface Refusal {
  readonly ok: false;
  readonly code: ErrorCode;
  /** ERR_LOGIN_THROTTLED: ms until this address may try this account again. */
  readonly retryAfterMs?: number;
}

export interface AccountServiceOptions {
  readonly store: Store;
  readonly srp: SrpPool;
  /** At least 16 bytes, stable across restarts (else an unknown name's salt changes on restart). */
  readonly secret: Uint8Array;
  readonly limiter?: LoginLimiter;
  /** Wall clock in ms. Default Date.now. */
  readonly now?: () => number;
  /** Default 5 minutes. */
  readonly resumeTokenTtlMs?: number;
  /** Between LoginChallenge and LoginProof. Default 60 s. */
  readonly loginTimeoutMs?: number;
  /** Length of an unknown account's salt: the client SDK's salt length. Default 64. */
  readonly fakeSaltBytes?: number;
  /** Default MAX_CHARACTERS. */
  readonly maxCharacters?: number;
  /** Where the newest token of each account is kept: the cluster registry. Default: in this process. */
  readonly resumeTokens?: ResumeTokenStore;
  /** How long a remembered-device token lasts after its login. Default 30 days. */
  readonly deviceTokenTtlMs?: number;
}

/** The registry's side of resume tokens (ClusterRegistry has these). */
export interface ResumeTokenStore {
  putResumeToken(accountId: number, record: ResumeRecord): Promise<void>;
  takeResumeToken(accountId: number, id: string): Promise<ResumeRecord | undefined>;
  renewResumeToken(accountId: number, id: string, expiresAt: number): Promise<boolean>;
}

/** One process's resume tokens (tests, and services built without a registry). */
export class MemoryResumeTokens implements ResumeTokenStore {
  private readonly records = new Map<number, ResumeRecord>();

  putResumeToken(accountId: number, record: ResumeRecord): Promise<void> {
    this.records.set(accountId, { ...record });
    return Promise.resolve();
  }

  takeResumeToken(accountId: number, id: string): Promise<ResumeRecord | undefined> {
    const record = this.records.get(accountId);
    if (record?.id !== id) return Promise.resolve(undefined);
    this.records.delete(accountId);
    return Promise.resolve(record);
  }

  renewResumeToken(accountId: number, id: string, expiresAt: number): Promise<boolean> {
    const record = this.records.get(accountId);
    if (record?.id !== id) return Promise.resolve(false);
    record.expiresAt = expiresAt;
    return Promise.resolve(true);
  }
}

/** A login between LoginChallenge and LoginProof. Opaque to the session: hand it back as is. */
export interface PendingLogin {
  /** Name as typed in LoginStart (display form when the account exists). */
  readonly name: string;
  readonly identity: string;
  /** null for an unknown account: the proof will fail. */
  readonly accountId: number | null;
  readonly serverState: SrpServerState;
  readonly startedAt: number;
  /** The id of the remembered-device token the login brought, when valid for the account. */
  readonly device: string | undefined;
  used: boolean;
}

export const RESUME_TOKEN_BYTES = 32;
const TOKEN_ACCOUNT_BYTES = 6;
const TOKEN_NONCE_BYTES = 10;
const TOKEN_BODY_BYTES = TOKEN_ACCOUNT_BYTES + TOKEN_NONCE_BYTES;
/** HMAC-SHA-256 cut to 128 bits (RFC 2104 allows any cut of at least half the hash). */
const TOKEN_MAC_BYTES = RESUME_TOKEN_BYTES - TOKEN_BODY_BYTES;

export const DEVICE_TOKEN_BYTES = 32;
const DEVICE_ISSUED_AT = TOKEN_ACCOUNT_BYTES;
const DEVICE_NONCE_AT = DEVICE_ISSUED_AT + 4;
const DEVICE_BODY_BYTES = 16;
const utf8 = new TextEncoder();

const refuse = (code: ErrorCode): Refusal => ({ ok: false, code });

/** What the registry knows a token by: its nonce (a token cannot be made from it without the key). */
function tokenId(token: Uint8Array): string {
  return Buffer.from(token.buffer, token.byteOffset + TOKEN_ACCOUNT_BYTES, TOKEN_NONCE_BYTES).toString('hex');
}

export class AccountService {
  private readonly store: Store;
  private readonly srp: SrpPool;
  private readonly secret: Uint8Array;
  private readonly limiter: LoginLimiter;
  private readonly now: () => number;
  private readonly resumeTtlMs: number;
  private readonly loginTimeoutMs: number;
  private readonly fakeSaltBytes: number;
  private readonly maxCharacters: number;
  private readonly resumeTokens: ResumeTokenStore;
  /** Keys the tokens' MACs: derived from the secret, so it serves no other purpose. */
  private readonly tokenKey: Buffer;
  /** The id of the token this process last issued per account (renewed when its connection drops). */
  private readonly tokenByAccount = new Map<number, string>();
  private readonly deviceKey: Buffer;
  private readonly deviceTtlMs: number;

  constructor(options: AccountServiceOptions) {
    if (options.secret.length < 16) throw new Error('AccountService: the secret needs at least 16 bytes');
    this.store = options.store;
    this.srp = options.srp;
    this.secret = options.secret;
    this.limiter = options.limiter ?? new LoginLimiter();
    this.now = options.now ?? Date.now;
    this.resumeTtlMs = options.resumeTokenTtlMs ?? 5 * 60_000;
    this.loginTimeoutMs = options.loginTimeoutMs ?? 60_000;
    this.fakeSaltBytes = Math.min(MAX_SALT_BYTES, options.fakeSaltBytes ?? MAX_SALT_BYTES);
    this.maxCharacters = options.maxCharacters ?? MAX_CHARACTERS;
    this.resumeTokens = options.resumeTokens ?? new MemoryResumeTokens();
    this.tokenKey = Buffer.from(hkdfSync('sha256', this.secret, '', 'wyvern resume token', 32));
    this.deviceKey = Buffer.from(hkdfSync('sha256', this.secret, '', 'wyvern device token', 32));
    this.deviceTtlMs = options.deviceTokenTtlMs ?? 30 * 24 * 3_600_000;
  }

  /** Register: ERR_BAD_ACCOUNT_NAME, ERR_ACCOUNT_TAKEN, or ERR_BAD_VERIFIER for an unusable salt/verifier. */
  async register(
    name: string,
    salt: Uint8Array,
    verifier: Uint8Array,
  ): Promise<{ ok: true; accountId: number; name: string } | Refusal> {
    const checked = checkAccountName(name);
    if (!checked.ok) return refuse(checked.code);
    const v = bytesToBigInt(verifier);
    if (salt.length === 0 || salt.length > MAX_SALT_BYTES || v <= 1n || v >= SRP_PRIME) {
      return refuse(ErrorCode.BadVerifier);
    }
    try {
      const account = await this.store.createAccount({ name: checked.name, salt, verifier });
      return { ok: true, accountId: account.id, name: account.name };
    } catch (err) {
      if (err instanceof StoreError && err.code === 'taken') return refuse(ErrorCode.AccountTaken);
      throw err;
    }
  }

  /**
   * LoginStart -> LoginChallenge. `options.onPosition` hears the login queue position while
   * the SRP workers are busy (send LoginQueue); `options.signal` gives up when the connection
   * closes.
   */
  async beginLogin(
    name: string,
    ip: string,
    options: SrpJobOptions & { deviceToken?: Uint8Array } = {},
  ): Promise<{ ok: true; salt: Uint8Array; B: Uint8Array; pending: PendingLogin } | Refusal> {
    const checked = checkAccountName(name);
    if (!checked.ok) return refuse(checked.code);
    // Only a token that passes its MAC costs a lookup before the throttle: the name's
    // account must be the one it was issued to (not a namesake registered since).
    const claimed = options.deviceToken && this.readDeviceToken(name, options.deviceToken);
    let account = claimed ? await this.store.findAccount(name) : undefined;
    const device = claimed && account?.id === claimed.accountId ? claimed.id : undefined;
    const allowed = this.limiter.check(name, ip, this.now(), device);
    if (!allowed.ok) return { ok: false, code: ErrorCode.LoginThrottled, retryAfterMs: allowed.retryAfterMs };
    const identity = srpIdentity(name);
    if (!claimed) account = await this.store.findAccount(name);
    const { salt, verifier } = account ?? this.fakeCredentials(identity);
    const { B, serverState } = await this.srp.step1(identity, salt, verifier, options);
    const pending: PendingLogin = {
      name: account?.name ?? name,
      identity,
      accountId: account?.id ?? null,
      serverState,
      startedAt: this.now(),
      device,
      used: false,
    };
    return { ok: true, salt, B, pending };
  }

  /** LoginProof -> LoginOk: ERR_BAD_LOGIN (wrong password, unknown account, stale or reused challenge) or ERR_LOGIN_THROTTLED. */
  async finishLogin(
    pending: PendingLogin,
    A: Uint8Array,
    M1: Uint8Array,
    ip: string,
    options: Pick<SrpJobOptions, 'signal'> = {},
  ): Promise<{ ok: true; accountId: number; name: string; M2: Uint8Array } | Refusal> {
    const now = this.now();
    const allowed = this.limiter.check(pending.name, ip, now, pending.device);
    if (!allowed.ok) return { ok: false, code: ErrorCode.LoginThrottled, retryAfterMs: allowed.retryAfterMs };
    if (pending.used || now - pending.startedAt > this.loginTimeoutMs) {
      pending.used = true;
      return refuse(ErrorCode.BadLogin);
    }
    pending.used = true;
    let M2: Uint8Array;
    try {
      M2 = await this.srp.step2(pending.serverState, A, M1, options);
    } catch (err) {
      if (!(err instanceof SrpError) || err.code !== 'bad-proof') throw err;
      this.limiter.recordFailure(pending.name, ip, this.now(), pending.device);
      return refuse(ErrorCode.BadLogin);
    }
    if (pending.accountId === null) {
      // Unreachable without breaking SHA-512 or the discrete log; refuse all the same.
      this.limiter.recordFailure(pending.name, ip, this.now(), pending.device);
      return refuse(ErrorCode.BadLogin);
    }
    this.limiter.recordSuccess(pending.name, ip, pending.device);
    return { ok: true, accountId: pending.accountId, name: pending.name, M2 };
  }

  /**
   * A fresh single-use token for Resume, valid for `resumeTokenTtlMs` on any gateway of the
   * cluster. Issuing one revokes the account's previous token, wherever it was issued.
   */
  async issueResumeToken(accountId: number, name: string): Promise<Uint8Array> {
    if (!Number.isSafeInteger(accountId) || accountId < 0 || accountId >= 2 ** (8 * TOKEN_ACCOUNT_BYTES)) {
      throw new RangeError(`account id ${accountId} does not fit a resume token`);
    }
    const token = new Uint8Array(RESUME_TOKEN_BYTES);
    Buffer.from(token.buffer).writeUIntBE(accountId, 0, TOKEN_ACCOUNT_BYTES);
    token.set(randomBytes(TOKEN_NONCE_BYTES), TOKEN_ACCOUNT_BYTES);
    token.set(this.mac(token), TOKEN_BODY_BYTES);
    const id = tokenId(token);
    this.tokenByAccount.set(accountId, id);
    await this.resumeTokens.putResumeToken(accountId, { id, name, expiresAt: this.now() + this.resumeTtlMs });
    return token;
  }

  /** Resume: the token's account, or ERR_BAD_RESUME. A token works once, even when refused. */
  async redeemResumeToken(
    name: string,
    token: Uint8Array,
  ): Promise<{ ok: true; accountId: number; name: string } | Refusal> {
    if (token.length !== RESUME_TOKEN_BYTES) return refuse(ErrorCode.BadResume);
    // A forged or garbled token is refused here, without asking the registry.
    const mac = token.subarray(TOKEN_BODY_BYTES);
    if (!timingSafeEqual(mac, this.mac(token))) return refuse(ErrorCode.BadResume);
    const accountId = Buffer.from(token.buffer, token.byteOffset, token.length).readUIntBE(
      0,
      TOKEN_ACCOUNT_BYTES,
    );
    const id = tokenId(token);
    const record = await this.resumeTokens.takeResumeToken(accountId, id);
    if (!record) return refuse(ErrorCode.BadResume);
    if (this.tokenByAccount.get(accountId) === id) this.tokenByAccount.delete(accountId);
    if (record.expiresAt <= this.now() || record.name.toLowerCase() !== name.toLowerCase()) {
      return refuse(ErrorCode.BadResume);
    }
    return { ok: true, accountId, name: record.name };
  }

  /**
   * The token this process last issued the account, if still its newest, is valid for
   * `resumeTokenTtlMs` from now: called when the connection that holds it closes, so a token
   * stays usable however long it was held.
   */
  async renewResumeToken(accountId: number): Promise<void> {
    const id = this.tokenByAccount.get(accountId);
    if (id === undefined) return;
    const renewed = await this.resumeTokens.renewResumeToken(accountId, id, this.now() + this.resumeTtlMs);
    // Taken, or replaced by a newer login elsewhere: nothing here to renew any more.
    if (!renewed && this.tokenByAccount.get(accountId) === id) this.tokenByAccount.delete(accountId);
  }

  listCharacters(accountId: number): Promise<CharacterRecord[]> {
    return this.store.listCharacters(accountId);
  }

  /** CreateCharacter: ERR_BAD_NAME, ERR_NAME_TAKEN or ERR_TOO_MANY_CHARACTERS. */
  async createCharacter(
    accountId: number,
    name: string,
    appearance: number,
    start: CharacterState,
  ): Promise<{ ok: true; character: CharacterRecord } | Refusal> {
    const checked = checkCharacterName(name);
    if (!checked.ok) return refuse(checked.code);
    try {
      const character = await this.store.createCharacter(
        { ...start, accountId, name: checked.name, appearance },
        { maxPerAccount: this.maxCharacters },
      );
      return { ok: true, character };
    } catch (err) {
      if (err instanceof StoreError && err.code === 'taken') return refuse(ErrorCode.NameTaken);
      if (err instanceof StoreError && err.code === 'limit') return refuse(ErrorCode.TooManyCharacters);
      throw err;
    }
  }

  /** DeleteCharacter: ERR_NO_SUCH_CHARACTER unless this account owns it. */
  async deleteCharacter(accountId: number, characterId: number): Promise<{ ok: true } | Refusal> {
    const deleted = await this.store.deleteCharacter(accountId, characterId);
    return deleted ? { ok: true } : refuse(ErrorCode.NoSuchCharacter);
  }

  /** The character if this account owns it (for EnterWorldRequest). */
  async ownedCharacter(accountId: number, characterId: number): Promise<CharacterRecord | undefined> {
    const character = await this.store.getCharacter(characterId);
    return character?.accountId === accountId ? character : undefined;
  }

  /** A remembered-device token for the account `name` (see the header), good for `deviceTokenTtlMs`. */
  issueDeviceToken(accountId: number, name: string): Uint8Array {
    if (!Number.isSafeInteger(accountId) || accountId < 0 || accountId >= 2 ** (8 * TOKEN_ACCOUNT_BYTES)) {
      throw new RangeError(`account id ${accountId} does not fit a device token`);
    }
    const token = new Uint8Array(DEVICE_TOKEN_BYTES);
    const view = Buffer.from(token.buffer);
    view.writeUIntBE(accountId, 0, TOKEN_ACCOUNT_BYTES);
    view.writeUInt32BE(Math.floor(this.now() / 1000) >>> 0, DEVICE_ISSUED_AT);
    token.set(randomBytes(DEVICE_BODY_BYTES - DEVICE_NONCE_AT), DEVICE_NONCE_AT);
    token.set(this.deviceMac(token, name), DEVICE_BODY_BYTES);
    return token;
  }

  /** The account and id of a device token issued for `name` and not yet expired; undefined otherwise. */
  private readDeviceToken(name: string, token: Uint8Array): { accountId: number; id: string } | undefined {
    if (token.length !== DEVICE_TOKEN_BYTES) return undefined;
    if (!timingSafeEqual(token.subarray(DEVICE_BODY_BYTES), this.deviceMac(token, name))) return undefined;
    const view = Buffer.from(token.buffer, token.byteOffset, token.length);
    const issuedMs = view.readUInt32BE(DEVICE_ISSUED_AT) * 1000;
    const age = this.now() - issuedMs;
    if (age < -60_000 || age > this.deviceTtlMs) return undefined;
    return {
      accountId: view.readUIntBE(0, TOKEN_ACCOUNT_BYTES),
      id: view.toString('hex', 0, DEVICE_BODY_BYTES),
    };
  }

  /** The MAC of a device token's first 16 bytes and the lower-cased account name, cut to 16 bytes. */
  private deviceMac(token: Uint8Array, name: string): Uint8Array {
    const full = createHmac('sha256', this.deviceKey)
      .update(token.subarray(0, DEVICE_BODY_BYTES))
      .update(utf8.encode(name.toLowerCase()))
      .digest();
    return full.subarray(0, DEVICE_TOKEN_BYTES - DEVICE_BODY_BYTES);
  }

  /** The MAC of a token's first 16 bytes, cut to 16 bytes. */
  private mac(token: Uint8Array): Uint8Array {
    const full = createHmac('sha256', this.tokenKey).update(token.subarray(0, TOKEN_BODY_BYTES)).digest();
    return full.subarray(0, TOKEN_MAC_BYTES);
  }

  private fakeCredentials(identity: string): { salt: Uint8Array; verifier: Uint8Array } {
    const derive = (label: string, length: number): Uint8Array =>
      new Uint8Array(hkdfSync('sha512', this.secret, identity, label, length));
    // Round-trip through a bigint: real salts are minimal big-endian, never starting with 0x00.
    const salt = bigIntToBytes(bytesToBigInt(derive('wyvern fake srp salt', this.fakeSaltBytes)));
    const verifier = bigIntToBytes(bytesToBigInt(derive('wyvern fake srp verifier', 256)) % SRP_PRIME);
    return { salt, verifier };
  }
}
