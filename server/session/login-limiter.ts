/**
 * Failed-login throttle: at most `perAccount` failures per account name and `perIp` failures
 * per address within a sliding `windowMs`; past either, logins are refused
 * (ERR_LOGIN_THROTTLED) until old failures age out. A success clears the account's failures
 * but not the address's, so one known account cannot launder an address that guesses others.
 *
 * Time is an argument (ms); memory stays bounded: each key keeps at most its limit of
 * timestamps, and keys whose failures all aged out are swept.
 */

export interface LoginLimiterOptions {
  /** Default 5. */
  readonly perAccount?: number;
  /** Default 20. */
  readonly perIp?: number;
  /** Default 60 000. */
  readonly windowMs?: number;
}

class FailureWindow {
  private readonly failures = new Map<string, number[]>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  private recent(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const fresh = times.filter((t) => now - t < this.windowMs);
    if (fresh.length === 0) this.failures.delete(key);
    else if (fresh.length !== times.length) this.failures.set(key, fresh);
    return fresh;
  }

  blocked(key: string, now: number): boolean {
    return this.limit <= 0 || this.recent(key, now).length >= this.limit;
  }

  record(key: string, now: number): void {
    const times = this.recent(key, now);
    times.push(now);
    // Only the newest `limit` failures decide anything.
    if (times.length > this.limit) times.splice(0, times.length - this.limit);
    this.failures.set(key, times);
    this.sweep(now);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  get size(): number {
    return this.failures.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const key of [...this.failures.keys()]) this.recent(key, now);
  }
}

export class LoginLimiter {
  private readonly accounts: FailureWindow;
  private readonly ips: FailureWindow;

  constructor(options: LoginLimiterOptions = {}) {
    const windowMs = options.windowMs ?? 60_000;
    this.accounts = new FailureWindow(options.perAccount ?? 5, windowMs);
    this.ips = new FailureWindow(options.perIp ?? 20, windowMs);
  }

  /** False when this account or this address has failed too often lately. */
  allows(account: string, ip: string, now: number): boolean {
    return !this.accounts.blocked(account.toLowerCase(), now) && !this.ips.blocked(ip, now);
  }

  recordFailure(account: string, ip: string, now: number): void {
    this.accounts.record(account.toLowerCase(), now);
    this.ips.record(ip, now);
  }

  recordSuccess(account: string): void {
    this.accounts.clear(account.toLowerCase());
  }

  /** Keys tracked (for tests and metrics). */
  get tracked(): { accounts: number; ips: number } {
    return { accounts: this.accounts.size, ips: this.ips.size };
  }
}
