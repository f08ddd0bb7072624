/**
 * What the page remembers across visits, in localStorage: whether sound is muted and whether
 * the player has seen the controls (the first-time hint stops once they have). A store that
 * refuses (storage disabled, quota) is no reason to fail: the choice then lasts the visit.
 */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const MUTED = 'wyvern.muted';
const SEEN_CONTROLS = 'wyvern.seenControls';

export class Prefs {
  private values = new Map<string, string>();

  constructor(private readonly store: KeyValueStore | undefined) {}

  get muted(): boolean {
    return this.read(MUTED) === '1';
  }

  set muted(on: boolean) {
    this.write(MUTED, on ? '1' : '0');
  }

  get seenControls(): boolean {
    return this.read(SEEN_CONTROLS) === '1';
  }

  set seenControls(seen: boolean) {
    this.write(SEEN_CONTROLS, seen ? '1' : '0');
  }

  private read(key: string): string | null {
    try {
      const v = this.store?.getItem(key);
      if (v !== undefined && v !== null) return v;
    } catch {
      // Storage refused: what was set this visit stands.
    }
    return this.values.get(key) ?? null;
  }

  private write(key: string, value: string): void {
    this.values.set(key, value);
    try {
      this.store?.setItem(key, value);
    } catch {
      // Kept for this visit only.
    }
  }
}

/** The page's localStorage, or none where reading it throws (some privacy modes do). */
export function browserStore(): KeyValueStore | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}
