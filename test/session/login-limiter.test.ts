import { describe, expect, it } from 'vitest';
import { LoginLimiter } from '../../server/session/login-limiter.js';

function failTimes(limiter: LoginLimiter, n: number, account: string, ip: string, now: number): void {
  for (let i = 0; i < n; i++) limiter.recordFailure(account, ip, now);
}

describe('LoginLimiter', () => {
  it('throttles one address on one account after 5 failures, and only that address', () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 5; i++) {
      expect(limiter.check('alice', '6.6.6.6', 1000 + i).ok).toBe(true);
      limiter.recordFailure('alice', '6.6.6.6', 1000 + i);
    }
    expect(limiter.check('alice', '6.6.6.6', 1010)).toEqual({ ok: false, retryAfterMs: 59_990 });
    expect(limiter.check('ALICE', '6.6.6.6', 1010).ok).toBe(false);
    // The owner elsewhere, and the attacker on another account, are not affected.
    expect(limiter.check('alice', '10.9.9.9', 1010).ok).toBe(true);
    expect(limiter.check('bob', '6.6.6.6', 1010).ok).toBe(true);
  });

  it('says to retry when the oldest blocking failure ages out', () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 5; i++) limiter.recordFailure('alice', '1.1.1.1', i * 1000);
    expect(limiter.check('alice', '1.1.1.1', 10_000)).toEqual({ ok: false, retryAfterMs: 50_000 });
    expect(limiter.check('alice', '1.1.1.1', 59_999)).toEqual({ ok: false, retryAfterMs: 1 });
    expect(limiter.check('alice', '1.1.1.1', 60_000).ok).toBe(true);
  });

  it('throttles an address after 20 failures across accounts', () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 20; i++) limiter.recordFailure(`user${i}`, '6.6.6.6', i);
    expect(limiter.check('fresh', '6.6.6.6', 100)).toEqual({ ok: false, retryAfterMs: 59_900 });
    expect(limiter.check('fresh', '7.7.7.7', 100).ok).toBe(true);
  });

  it('locks an account for every address only once failures come from 10 addresses', () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 9; i++) failTimes(limiter, 5, 'alice', `10.0.0.${i}`, 1000 + i);
    expect(limiter.check('alice', '192.0.2.1', 1100).ok).toBe(true);
    limiter.recordFailure('alice', '10.0.0.9', 2000);
    const locked = limiter.check('alice', '192.0.2.1', 2100);
    // Until the first of those 10 addresses' failures ages out.
    expect(locked).toEqual({ ok: false, retryAfterMs: 58_900 });
    expect(limiter.check('alice', '192.0.2.1', 61_000).ok).toBe(true);
  });

  it("lets a remembered device through an account's lock, while the guessers stay locked", () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 12; i++) limiter.recordFailure('alice', `10.0.0.${i}`, 1000 + i);
    // Locked for an address it never saw, and for a guesser...
    expect(limiter.check('alice', '192.0.2.1', 2000).ok).toBe(false);
    expect(limiter.check('alice', '10.0.0.50', 2000).ok).toBe(false);
    // ...not for the owner's device, from anywhere but a guessing address.
    expect(limiter.check('alice', '192.0.2.1', 2000, 'device-1')).toEqual({ ok: true });
    expect(limiter.check('alice', '10.0.0.0', 2000, 'device-1').ok).toBe(true);
  });

  it("counts a device's failures against its token, not the account's lock", () => {
    const limiter = new LoginLimiter();
    // Five typos, each from another address: the token is held, the account is not locked.
    for (let i = 0; i < 5; i++) limiter.recordFailure('alice', `10.1.0.${i}`, 1000 + i, 'device-1');
    expect(limiter.check('alice', '10.1.0.99', 2000, 'device-1')).toEqual({
      ok: false,
      retryAfterMs: 59_000,
    });
    expect(limiter.check('alice', '10.1.0.99', 2000, 'device-2').ok).toBe(true);
    expect(limiter.check('alice', '10.1.0.99', 2000).ok).toBe(true);
    // A success on the device clears its count.
    limiter.recordSuccess('alice', '10.1.0.99', 'device-1');
    expect(limiter.check('alice', '10.1.0.99', 2001, 'device-1').ok).toBe(true);
  });

  it("clears its own (account, address) failures on success, not the address's or others'", () => {
    const limiter = new LoginLimiter({ perAccountAddress: 3, perAddress: 4 });
    failTimes(limiter, 3, 'alice', '1.1.1.1', 0);
    failTimes(limiter, 3, 'alice', '2.2.2.2', 0);
    limiter.recordSuccess('Alice', '1.1.1.1');
    expect(limiter.check('alice', '1.1.1.1', 1).ok).toBe(true);
    expect(limiter.check('alice', '2.2.2.2', 1).ok).toBe(false);
    limiter.recordFailure('bob', '1.1.1.1', 2);
    expect(limiter.check('carol', '1.1.1.1', 3).ok).toBe(false);
  });

  it('follows configured limits and window', () => {
    const limiter = new LoginLimiter({
      perAccountAddress: 2,
      perAddress: 100,
      lockAddresses: 3,
      windowMs: 1000,
    });
    failTimes(limiter, 2, 'alice', '1.1.1.1', 0);
    expect(limiter.check('alice', '1.1.1.1', 999).ok).toBe(false);
    expect(limiter.check('alice', '1.1.1.1', 1000).ok).toBe(true);
    for (const ip of ['5.5.5.1', '5.5.5.2', '5.5.5.3']) limiter.recordFailure('bob', ip, 2000);
    expect(limiter.check('bob', '9.9.9.9', 2500)).toEqual({ ok: false, retryAfterMs: 500 });
  });

  it('forgets keys whose failures aged out', () => {
    const limiter = new LoginLimiter({ windowMs: 1000 });
    for (let i = 0; i < 500; i++) limiter.recordFailure(`user${i}`, `10.0.${i >> 8}.${i & 255}`, 0);
    expect(limiter.tracked).toEqual({ pairs: 500, addresses: 500, accounts: 500, devices: 0 });
    limiter.recordFailure('late', '9.9.9.9', 5000);
    expect(limiter.tracked).toEqual({ pairs: 1, addresses: 1, accounts: 1, devices: 0 });
  });
});
