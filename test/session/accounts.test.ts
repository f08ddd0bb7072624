import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifierAndSalt, SRPClientSession, SRPParameters, SRPRoutines } from 'tssrp6a';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AccountService,
  MemoryResumeTokens,
  type AccountServiceOptions,
} from '../../server/session/accounts.js';
import { LoginLimiter } from '../../server/session/login-limiter.js';
import { bigIntToBytes, bytesToBigInt, SrpPool, srpIdentity } from '../../server/session/srp.js';
import { openStore, type Store } from '../../server/store/index.js';
import { state } from '../store/builders.js';

const routines = new SRPRoutines(new SRPParameters());
const IP = '203.0.113.7';

async function credentials(
  account: string,
  password: string,
): Promise<{ salt: Uint8Array; verifier: Uint8Array }> {
  const { s, v } = await createVerifierAndSalt(routines, srpIdentity(account), password, 64);
  return { salt: bigIntToBytes(s), verifier: bigIntToBytes(v) };
}

describe('AccountService with SQLite', () => {
  let pool: SrpPool;
  let dir: string;
  let store: Store;
  let clock: number;
  let accounts: AccountService;

  function service(overrides: Partial<AccountServiceOptions> = {}): AccountService {
    return new AccountService({
      store,
      srp: pool,
      secret: new Uint8Array(32).fill(9),
      now: () => clock,
      ...overrides,
    });
  }

  /** A whole client login: LoginStart, LoginProof, and the client's check of M2. */
  async function login(name: string, password: string, ip = IP) {
    const start = await accounts.beginLogin(name, ip);
    if (!start.ok) return start;
    const client = await new SRPClientSession(routines).step1(srpIdentity(name), password);
    const proof = await client.step2(bytesToBigInt(start.salt), bytesToBigInt(start.B));
    const done = await accounts.finishLogin(
      start.pending,
      bigIntToBytes(proof.A),
      bigIntToBytes(proof.M1),
      ip,
    );
    if (done.ok) await proof.step3(bytesToBigInt(done.M2));
    return done;
  }

  async function registerAccount(name: string, password: string): Promise<number> {
    const { salt, verifier } = await credentials(name, password);
    const result = await accounts.register(name, salt, verifier);
    if (!result.ok) throw new Error(result.code);
    return result.accountId;
  }

  beforeAll(async () => {
    pool = new SrpPool({ size: 2 });
    await pool.ready();
  });
  afterAll(() => pool.close());

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-accounts-'));
    store = await openStore(join(dir, 'wyvern.db'));
    clock = 1_000_000;
    accounts = service();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('register and log in', () => {
    it('logs in a registered account whatever the case typed, and the client accepts M2', async () => {
      const id = await registerAccount('Gandalf_Grey', 'you shall not pass');
      expect(await login('gandalf_grey', 'you shall not pass')).toMatchObject({
        ok: true,
        accountId: id,
        name: 'Gandalf_Grey',
      });
    });

    it('refuses a wrong password with ERR_BAD_LOGIN', async () => {
      await registerAccount('Saruman', 'white');
      expect(await login('Saruman', 'many colours')).toEqual({ ok: false, code: 'ERR_BAD_LOGIN' });
    });

    it('refuses a taken account name ignoring case', async () => {
      await registerAccount('Radagast', 'brown');
      const again = await credentials('RADAGAST', 'other');
      expect(await accounts.register('RADAGAST', again.salt, again.verifier)).toEqual({
        ok: false,
        code: 'ERR_ACCOUNT_TAKEN',
      });
    });

    it('refuses a bad account name and an unusable verifier', async () => {
      const c = await credentials('ok_name', 'pw');
      expect(await accounts.register('no', c.salt, c.verifier)).toEqual({
        ok: false,
        code: 'ERR_BAD_ACCOUNT_NAME',
      });
      expect(await accounts.register('ok_name', c.salt, new Uint8Array([0]))).toEqual({
        ok: false,
        code: 'ERR_BAD_VERIFIER',
      });
      expect(await accounts.register('ok_name', new Uint8Array(0), c.verifier)).toEqual({
        ok: false,
        code: 'ERR_BAD_VERIFIER',
      });
      expect(await accounts.beginLogin('x!', IP)).toEqual({ ok: false, code: 'ERR_BAD_ACCOUNT_NAME' });
    });

    it('gives an unknown account a stable, real-looking challenge that never logs in', async () => {
      await registerAccount('RealOne', 'pw');
      const real = await accounts.beginLogin('RealOne', IP);
      const first = await accounts.beginLogin('Ghost', IP);
      const second = await accounts.beginLogin('ghost', IP);
      if (!real.ok || !first.ok || !second.ok) throw new Error('expected challenges');

      expect(first.salt).toEqual(second.salt);
      expect(first.salt.length).toBeGreaterThanOrEqual(real.salt.length - 1);
      expect(first.salt.length).toBeLessThanOrEqual(64);
      expect(first.B).not.toEqual(second.B);
      expect(await login('Ghost', 'anything')).toEqual({ ok: false, code: 'ERR_BAD_LOGIN' });
    });

    it('gives another server secret other fake salts', async () => {
      const one = await accounts.beginLogin('Ghost', IP);
      const other = await service({ secret: new Uint8Array(32).fill(1) }).beginLogin('Ghost', IP);
      if (!one.ok || !other.ok) throw new Error('expected challenges');
      expect(one.salt).not.toEqual(other.salt);
    });

    it('refuses a challenge used twice or answered too late', async () => {
      await registerAccount('Elrond', 'rivendell');
      const start = await accounts.beginLogin('Elrond', IP);
      if (!start.ok) throw new Error(start.code);
      const client = await new SRPClientSession(routines).step1('elrond', 'rivendell');
      const proof = await client.step2(bytesToBigInt(start.salt), bytesToBigInt(start.B));
      const A = bigIntToBytes(proof.A);
      const M1 = bigIntToBytes(proof.M1);
      expect((await accounts.finishLogin(start.pending, A, M1, IP)).ok).toBe(true);
      expect(await accounts.finishLogin(start.pending, A, M1, IP)).toEqual({
        ok: false,
        code: 'ERR_BAD_LOGIN',
      });

      const late = await accounts.beginLogin('Elrond', IP);
      if (!late.ok) throw new Error(late.code);
      clock += 61_000;
      expect(await accounts.finishLogin(late.pending, A, M1, IP)).toEqual({
        ok: false,
        code: 'ERR_BAD_LOGIN',
      });
    });

    it('passes login queue positions through to the caller', async () => {
      await registerAccount('Queued', 'pw');
      const positions: number[] = [];
      const starts = Array.from({ length: 4 }, () =>
        accounts.beginLogin('Queued', IP, { onPosition: (position) => positions.push(position) }),
      );
      const results = await Promise.all(starts);
      expect(results.every((r) => r.ok)).toBe(true);
      expect(positions).toContain(1);
    });
  });

  describe('throttling', () => {
    it('throttles an account from one address after repeated failures, even with the right password, until a minute passes', async () => {
      accounts = service({ limiter: new LoginLimiter({ perAccountAddress: 3, perAddress: 100 }) });
      await registerAccount('Boromir', 'gondor');
      for (let i = 0; i < 3; i++) expect((await login('Boromir', 'wrong')).ok).toBe(false);

      expect(await accounts.beginLogin('boromir', IP)).toMatchObject({
        ok: false,
        code: 'ERR_LOGIN_THROTTLED',
        retryAfterMs: 60_000,
      });
      // The owner, from another address, is not locked out.
      expect((await accounts.beginLogin('boromir', '198.51.100.1')).ok).toBe(true);
      clock += 60_000;
      expect((await login('Boromir', 'gondor')).ok).toBe(true);
    });

    it('counts failures on unknown accounts against the address', async () => {
      accounts = service({ limiter: new LoginLimiter({ perAccountAddress: 100, perAddress: 2 }) });
      await login('nobody_a', 'x');
      await login('nobody_b', 'x');
      expect(await accounts.beginLogin('nobody_c', IP)).toMatchObject({
        ok: false,
        code: 'ERR_LOGIN_THROTTLED',
      });
      expect((await accounts.beginLogin('nobody_c', '192.0.2.1')).ok).toBe(true);
    });
  });

  describe('remembered-device tokens', () => {
    /** Locks `name` with one wrong password from each of `n` addresses. */
    async function spreadGuess(name: string, n: number) {
      for (let i = 0; i < n; i++) expect((await login(name, `guess ${i}`, `10.9.0.${i}`)).ok).toBe(false);
    }

    it("let the account's known devices through its lock, and nobody else", async () => {
      const id = await registerAccount('Faramir', 'ithilien');
      const token = accounts.issueDeviceToken(id, 'Faramir');
      await spreadGuess('faramir', 10);
      expect(await accounts.beginLogin('faramir', '198.51.100.1')).toMatchObject({
        code: 'ERR_LOGIN_THROTTLED',
      });
      expect((await accounts.beginLogin('FARAMIR', '198.51.100.1', { deviceToken: token })).ok).toBe(true);
      // Not another account's token, a garbled one, or one for a namesake registered later.
      const other = accounts.issueDeviceToken(await registerAccount('Eowyn', 'rohan'), 'Eowyn');
      expect((await accounts.beginLogin('faramir', '198.51.100.1', { deviceToken: other })).ok).toBe(false);
      const garbled = token.slice();
      garbled[3]! ^= 1;
      expect((await accounts.beginLogin('faramir', '198.51.100.1', { deviceToken: garbled })).ok).toBe(false);
      const namesake = accounts.issueDeviceToken(id + 1000, 'Faramir');
      expect((await accounts.beginLogin('faramir', '198.51.100.1', { deviceToken: namesake })).ok).toBe(
        false,
      );
    });

    it('expire after their lifetime', async () => {
      accounts = service({ deviceTokenTtlMs: 3_600_000 });
      const id = await registerAccount('Denethor', 'minas');
      const token = accounts.issueDeviceToken(id, 'Denethor');
      await spreadGuess('denethor', 10);
      expect((await accounts.beginLogin('denethor', '198.51.100.1', { deviceToken: token })).ok).toBe(true);
      clock += 3_601_000;
      // The guesses aged out with the token: guess again, and the token is refused.
      await spreadGuess('denethor', 10);
      expect((await accounts.beginLogin('denethor', '198.51.100.1', { deviceToken: token })).ok).toBe(false);
    });
  });

  describe('resume tokens', () => {
    it('redeems a token once, for its own account only', async () => {
      const token = await accounts.issueResumeToken(7, 'Aragorn');
      expect(token).toHaveLength(32);
      expect(await accounts.redeemResumeToken('aragorn', token)).toEqual({
        ok: true,
        accountId: 7,
        name: 'Aragorn',
      });
      expect(await accounts.redeemResumeToken('aragorn', token)).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });

      const other = await accounts.issueResumeToken(7, 'Aragorn');
      expect(await accounts.redeemResumeToken('Legolas', other)).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });
      expect(await accounts.redeemResumeToken('Aragorn', other)).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });
    });

    it('refuses an expired token, a replaced token and a malformed one', async () => {
      const expiring = await accounts.issueResumeToken(1, 'Sam');
      clock += 5 * 60_000;
      expect(await accounts.redeemResumeToken('Sam', expiring)).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });

      const replaced = await accounts.issueResumeToken(1, 'Sam');
      const current = await accounts.issueResumeToken(1, 'Sam');
      expect(await accounts.redeemResumeToken('Sam', replaced)).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });
      expect((await accounts.redeemResumeToken('Sam', current)).ok).toBe(true);
      expect(await accounts.redeemResumeToken('Sam', new Uint8Array(3))).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });
    });

    it('keeps a token good for its lifetime from when its connection closed, not from when it was issued', async () => {
      const held = await accounts.issueResumeToken(3, 'Pippin');
      // Played for an hour, then the connection dropped.
      clock += 60 * 60_000;
      await accounts.renewResumeToken(3);
      clock += 4 * 60_000;
      expect((await accounts.redeemResumeToken('Pippin', held)).ok).toBe(true);

      const next = await accounts.issueResumeToken(3, 'Pippin');
      clock += 60_000;
      await accounts.renewResumeToken(3);
      clock += 5 * 60_000;
      expect(await accounts.redeemResumeToken('Pippin', next)).toEqual({ ok: false, code: 'ERR_BAD_RESUME' });
      // Renewing an account without a token does nothing.
      await accounts.renewResumeToken(99);
    });
    it('accepts a token on another service sharing the secret and the store, once, and refuses a forged one', async () => {
      const shared = new MemoryResumeTokens();
      const issuer = service({ resumeTokens: shared });
      const elsewhere = service({ resumeTokens: shared });
      const token = await issuer.issueResumeToken(11, 'Frodo');
      const forged = token.slice();
      forged[5]! ^= 1; // another account, same MAC
      expect(await elsewhere.redeemResumeToken('Frodo', forged)).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });
      const strangers = service({ resumeTokens: shared, secret: new Uint8Array(32).fill(1) });
      expect(await strangers.redeemResumeToken('Frodo', token)).toEqual({
        ok: false,
        code: 'ERR_BAD_RESUME',
      });
      expect(await elsewhere.redeemResumeToken('Frodo', token)).toEqual({
        ok: true,
        accountId: 11,
        name: 'Frodo',
      });
      expect(await issuer.redeemResumeToken('Frodo', token)).toEqual({ ok: false, code: 'ERR_BAD_RESUME' });
    });
  });

  describe('characters', () => {
    it('creates a capitalised character and lists it', async () => {
      const id = await registerAccount('Player_1', 'pw');
      const created = await accounts.createCharacter(id, 'pIPPIN', 2, state());
      expect(created).toMatchObject({
        ok: true,
        character: { name: 'Pippin', appearance: 2, accountId: id },
      });
      expect((await accounts.listCharacters(id)).map((c) => c.name)).toEqual(['Pippin']);
    });

    it('refuses bad and taken names and a full account', async () => {
      accounts = service({ maxCharacters: 2 });
      const a = await registerAccount('Player_A', 'pw');
      const b = await registerAccount('Player_B', 'pw');
      expect(await accounts.createCharacter(a, 'M3rry', 1, state())).toEqual({
        ok: false,
        code: 'ERR_BAD_NAME',
      });
      await accounts.createCharacter(a, 'Merry', 1, state());
      expect(await accounts.createCharacter(b, 'MERRY', 1, state())).toEqual({
        ok: false,
        code: 'ERR_NAME_TAKEN',
      });
      await accounts.createCharacter(a, 'Rosie', 1, state());
      expect(await accounts.createCharacter(a, 'Lobelia', 1, state())).toEqual({
        ok: false,
        code: 'ERR_TOO_MANY_CHARACTERS',
      });
    });

    it("deletes only the account's own characters", async () => {
      const owner = await registerAccount('Owner', 'pw');
      const thief = await registerAccount('Thief', 'pw');
      const made = await accounts.createCharacter(owner, 'Bilbo', 1, state());
      if (!made.ok) throw new Error(made.code);
      expect(await accounts.ownedCharacter(thief, made.character.id)).toBeUndefined();
      expect(await accounts.deleteCharacter(thief, made.character.id)).toEqual({
        ok: false,
        code: 'ERR_NO_SUCH_CHARACTER',
      });
      expect((await accounts.ownedCharacter(owner, made.character.id))?.name).toBe('Bilbo');
      expect(await accounts.deleteCharacter(owner, made.character.id)).toEqual({ ok: true });
    });
  });
});
