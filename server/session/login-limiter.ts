/**
 * Failed-login throttle, within a sliding `windowMs` (a minute):
 *
 *   per (account, address)  at most `perAccountAddress` failures (5): that address may not
 *                           try that account again until the oldest ages out. The account's
 *                           owner, elsewhere, is not affected: guessing from one address
 *                           cannot lock anyone out.
 *   per address             at most `perAddress` failures over all accounts (20): an address
 *                           that guesses many names is stopped for every name.
 *   per account             failures from at least `lockAddresses` different addresses (10):
 *                           a guess spread over many addresses locks the account for every
 *                           address that brings no remembered-device token, until they age out.
 *   per device              a login that brings a valid remembered-device token (issued to
 *                           a device at a successful login, see AccountService) is not held
 *                           by the account's lock, and its failures do not count towards it;
 *                           they count against that token instead, `perAccountAddress` (5)
 *                           at most, so a stolen token is worth a few guesses a minute.
 *
 * That is OWASP's "device cookie" scheme: distributed guessing locks out only clients the
 * account never logged in from, so its owner logs in on a known device while the guessing
 * goes on; a new device waits for the lock to lift (ERR_LOGIN_THROTTLED says when).
 *
 * A refusal says when to retry (`retryAfterMs`, when the blocking failure ages out). Names
 * are keyed whether or not an account has them, so a throttled address learns nothing about
 * which accounts exist. A success clears its own (account, address) failures only: one known
 * account cannot launder an address that guesses others, and the owner's login does not lift
 * a lock other addresses caused.
 *
 * An "address" is what the dispatch core keys per-address limits by (Session.addressKey): an
 * IPv4 address, or an IPv6 prefix (/64 by default), since one host may use any address of its
 * /64.
 *
 * Time is an argument (ms); memory stays bounded: each key keeps at most its limit of
 * timestamps, and keys whose failures all aged out are swept.
 */

export interface LoginLimiterOptions {
  /** Failures for one account from one address. Default 5. */
  readonly perAccountAddress?: number;
  /** Failures from one address over all accounts. Default 20. */
  readonly perAddress?: number;
  /** Different addresses failing on one account before it is locked for all. Default 10. */
  readonly lockAddresses?: number;
  /** Default 60 000. */
  readonly windowMs?: number;
}

export type LoginCheck = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

const ALLOWED: LoginCheck = Object.freeze({ ok: true });

/** Up to `limit` newest failure times per key; blocked at `limit` until the oldest ages out. */
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

  /** Ms until `key` may try again; 0 when it may now. */
  retryAfter(key: string, now: number): number {
    if (this.limit <= 0) return this.windowMs;
    const times = this.recent(key, now);
    if (times.length < this.limit) return 0;
    // Only the newest `limit` are kept: the oldest of them has to age out.
    return times[0]! + this.windowMs - now;
  }

  record(key: string, now: number): void {
    const times = this.recent(key, now);
    times.push(now);
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

/** Per account: the newest failure time of each address that failed on it. */
class AddressSpread {
  private readonly accounts = new Map<string, Map<string, number>>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  private recent(account: string, now: number): Map<string, number> | undefined {
    const byAddress = this.accounts.get(account);
    if (!byAddress) return undefined;
    for (const [address, at] of byAddress) if (now - at >= this.windowMs) byAddress.delete(address);
    if (byAddress.size === 0) {
      this.accounts.delete(account);
      return undefined;
    }
    return byAddress;
  }

  retryAfter(account: string, now: number): number {
    const byAddress = this.recent(account, now);
    if (!byAddress || byAddress.size < this.limit) return 0;
    // Locked until enough addresses' failures age out to leave fewer than `limit`.
    const times = [...byAddress.values()].sort((a, b) => a - b);
    return times[times.length - this.limit]! + this.windowMs - now;
  }

  record(account: string, address: string, now: number): void {
    let byAddress = this.recent(account, now);
    if (!byAddress) {
      byAddress = new Map();
      this.accounts.set(account, byAddress);
    }
    byAddress.delete(address);
    byAddress.set(address, now);
    // Insertion order is age order: only the newest `limit` addresses decide anything.
    while (byAddress.size > this.limit) byAddress.delete(byAddress.keys().next().value!);
    this.sweep(now);
  }

  get size(): number {
    return this.accounts.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const account of [...this.accounts.keys()]) this.recent(account, now);
  }
}

export class LoginLimiter {
  private readonly pairs: FailureWindow;
  private readonly addresses: FailureWindow;
  private readonly spread: AddressSpread;
  private readonly devices: FailureWindow;

  constructor(options: LoginLimiterOptions = {}) {
    const windowMs = options.windowMs ?? 60_000;
    this.pairs = new FailureWindow(options.perAccountAddress ?? 5, windowMs);
    this.addresses = new FailureWindow(options.perAddress ?? 20, windowMs);
    this.spread = new AddressSpread(options.lockAddresses ?? 10, windowMs);
    this.devices = new FailureWindow(options.perAccountAddress ?? 5, windowMs);
  }

  /**
   * Whether `address` may try to log in to `account` now, and if not, when. `device`: the
   * id of a valid remembered-device token for this account that the login brought.
   */
  check(account: string, address: string, now: number, device?: string): LoginCheck {
    const name = account.toLowerCase();
    const wait = Math.max(
      this.pairs.retryAfter(pairKey(name, address), now),
      this.addresses.retryAfter(address, now),
      device === undefined ? this.spread.retryAfter(name, now) : this.devices.retryAfter(device, now),
    );
    return wait > 0 ? { ok: false, retryAfterMs: Math.ceil(wait) } : ALLOWED;
  }

  recordFailure(account: string, address: string, now: number, device?: string): void {
    const name = account.toLowerCase();
    this.pairs.record(pairKey(name, address), now);
    this.addresses.record(address, now);
    if (device === undefined) this.spread.record(name, address, now);
    else this.devices.record(device, now);
  }

  recordSuccess(account: string, address: string, device?: string): void {
    this.pairs.clear(pairKey(account.toLowerCase(), address));
    if (device !== undefined) this.devices.clear(device);
  }

  /** Keys tracked (for tests and metrics). */
  get tracked(): { pairs: number; addresses: number; accounts: number; devices: number } {
    return {
      pairs: this.pairs.size,
      addresses: this.addresses.size,
      accounts: this.spread.size,
      devices: this.devices.size,
    };
  }
}

/** Account names never hold a newline; addresses neither. */
function pairKey(account: string, address: string): string {
  return `${account}\n${address}`;
}
