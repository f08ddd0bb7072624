import { describe, expect, it } from 'vitest';
import { LoginLimiter } from '../../server/session/login-limiter.js';

function failTimes(limiter: LoginLimiter, n: number, account: string, ip: string, now: number): void {
  for (let i = 0; i < n; i++) limiter.recordFailure(account, ip, now);
}

describe('LoginLimiter', () => {
  it('throttles an account after 5 failures within a minute, from any address', () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 5; i++) {
      expect(limiter.allows('alice', `10.0.0.${i}`, 1000 + i)).toBe(true);
      limiter.recordFailure('alice', `10.0.0.${i}`, 1000 + i);
    }
    expect(limiter.allows('alice', '10.9.9.9', 1010)).toBe(false);
    expect(limiter.allows('ALICE', '10.9.9.9', 1010)).toBe(false);
    expect(limiter.allows('bob', '10.9.9.9', 1010)).toBe(true);
  });

  it('lets the account try again once its failures are a minute old', () => {
    const limiter = new LoginLimiter();
    failTimes(limiter, 5, 'alice', '1.1.1.1', 0);
    expect(limiter.allows('alice', '2.2.2.2', 59_999)).toBe(false);
    expect(limiter.allows('alice', '2.2.2.2', 60_000)).toBe(true);
  });

  it('throttles an address after 20 failures across accounts', () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 20; i++) limiter.recordFailure(`user${i}`, '6.6.6.6', i);
    expect(limiter.allows('fresh', '6.6.6.6', 100)).toBe(false);
    expect(limiter.allows('fresh', '7.7.7.7', 100)).toBe(true);
  });

  it("clears an account's failures on success but not its address's", () => {
    const limiter = new LoginLimiter({ perAccount: 3, perIp: 4 });
    failTimes(limiter, 3, 'alice', '1.1.1.1', 0);
    limiter.recordSuccess('Alice');
    expect(limiter.allows('alice', '2.2.2.2', 1)).toBe(true);
    limiter.recordFailure('bob', '1.1.1.1', 2);
    expect(limiter.allows('carol', '1.1.1.1', 3)).toBe(false);
  });

  it('follows configured limits and window', () => {
    const limiter = new LoginLimiter({ perAccount: 2, perIp: 100, windowMs: 1000 });
    failTimes(limiter, 2, 'alice', '1.1.1.1', 0);
    expect(limiter.allows('alice', '1.1.1.1', 999)).toBe(false);
    expect(limiter.allows('alice', '1.1.1.1', 1000)).toBe(true);
  });

  it('forgets keys whose failures aged out', () => {
    const limiter = new LoginLimiter({ windowMs: 1000 });
    for (let i = 0; i < 500; i++) limiter.recordFailure(`user${i}`, `10.0.${i >> 8}.${i & 255}`, 0);
    expect(limiter.tracked.accounts).toBe(500);
    limiter.recordFailure('late', '9.9.9.9', 5000);
    expect(limiter.tracked).toEqual({ accounts: 1, ips: 1 });
  });
});
