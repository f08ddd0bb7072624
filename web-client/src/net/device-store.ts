/**
 * The browser's remembered-device tokens (shared/client/device-tokens.ts), one per account,
 * in localStorage: kept across tabs and restarts, so this browser is a device the account
 * logged in from before, let through while guessing from elsewhere has the account locked.
 */
import type { DeviceTokenStore } from '../../../shared/client/device-tokens.js';
import { hexToToken, tokenToHex } from './resume-store.js';

const PREFIX = 'wyvern.device.';

/** localStorage, or undefined where there is none (a sandboxed frame, storage off). */
function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

export function browserDeviceTokens(store: Storage | undefined = storage()): DeviceTokenStore {
  return {
    get(account) {
      const hex = store?.getItem(PREFIX + account.toLowerCase());
      return hex && /^[0-9a-f]{64}$/.test(hex) ? hexToToken(hex) : undefined;
    },
    set(account, token) {
      try {
        store?.setItem(PREFIX + account.toLowerCase(), tokenToHex(token));
      } catch {
        // Full or refused: this browser logs in as a new device next time.
      }
    },
  };
}
