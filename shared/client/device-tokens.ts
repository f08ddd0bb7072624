/**
 * Remembered-device tokens: LoginOk gives one per account, and a client that sends it back in
 * LoginStart (same account, same device) is let through while guessing from many addresses
 * has the account locked. A client keeps one per account, as long as it keeps anything (the
 * browser in localStorage); a token is no password, but it is this device's standing with
 * the account, so it stays on the device.
 */

export interface DeviceTokenStore {
  /** The token kept for `account` (any case), if any. */
  get(account: string): Uint8Array | undefined;
  /** Keeps `token` for `account`, replacing the one before. */
  set(account: string, token: Uint8Array): void;
}

/** Tokens kept for the life of the process (tools, bots, tests). */
export class MemoryDeviceTokens implements DeviceTokenStore {
  private readonly tokens = new Map<string, Uint8Array>();

  get(account: string): Uint8Array | undefined {
    return this.tokens.get(account.toLowerCase());
  }

  set(account: string, token: Uint8Array): void {
    this.tokens.set(account.toLowerCase(), token.slice());
  }
}
