/**
 * What a tab keeps to come back after a reload or a dropped connection: the account, the
 * newest resume token (single use: every Resumed brings the next one), and for the page the
 * character's colour and the selected target. sessionStorage: one tab's, gone with the tab,
 * never shared with another tab (each tab is its own session; a second tab logs in).
 */

export interface SavedSession {
  account: string;
  /** Hex of the 32-byte token. */
  token: string;
  appearance?: number;
  targetId?: number;
}

const KEY = 'wyvern.session';

/** The tab's storage, or undefined where there is none (a sandboxed frame, storage off). */
function storage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

export function loadSession(store: Storage | undefined = storage()): SavedSession | undefined {
  const raw = store?.getItem(KEY);
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<SavedSession>;
    if (typeof v.account !== 'string' || typeof v.token !== 'string' || !/^[0-9a-f]{64}$/.test(v.token))
      return undefined;
    return {
      account: v.account,
      token: v.token,
      appearance: typeof v.appearance === 'number' ? v.appearance : undefined,
      targetId: typeof v.targetId === 'number' ? v.targetId : undefined,
    };
  } catch {
    return undefined;
  }
}

/** Merges `change` into what is saved (a new token starts a new record). */
export function saveSession(
  change: Partial<SavedSession> & { account?: string },
  store: Storage | undefined = storage(),
): void {
  if (!store) return;
  const current = loadSession(store);
  const next = { ...current, ...change };
  if (typeof next.account !== 'string' || typeof next.token !== 'string') return;
  try {
    store.setItem(KEY, JSON.stringify(next));
  } catch {
    // Full or refused: the tab just will not resume.
  }
}

export function clearSession(store: Storage | undefined = storage()): void {
  store?.removeItem(KEY);
}

export function tokenToHex(token: Uint8Array): string {
  let s = '';
  for (const b of token) s += b.toString(16).padStart(2, '0');
  return s;
}

export function hexToToken(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
