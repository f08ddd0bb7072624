/**
 * Batched character saves, kept off the game tick. The tick calls `markDirty(state)`, which
 * only copies plain data into a map (the latest state per character wins). `flush()` (and the
 * autosave timer) later writes everything dirty in one `saveCharacters` call, starting from a
 * fresh macrotask (setImmediate) so that even SQLite's synchronous write never runs on the
 * tick's call stack. Flushes run one at a time, in order.
 *
 * A failed write puts its states back (unless a newer state was marked meanwhile) so the next
 * flush retries them. A state that cannot be stored (NaN position, ...) is dropped with an
 * error report rather than blocking every other character's save. A character deleted
 * meanwhile is reported in `missing`, not treated as an error.
 */
import { checkState, type CharacterSave, type Store } from './types.js';

export interface SaverTimer {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface SaveReport {
  /** States handed to the store. */
  readonly count: number;
  readonly saved: number;
  /** Characters that no longer exist. */
  readonly missing: readonly number[];
  /** Characters whose state was refused before writing (see onError). */
  readonly invalid: readonly number[];
  /** Wall time of the store call, in ms. */
  readonly ms: number;
}

export interface CharacterSaverOptions {
  /** Default: the global setInterval/clearInterval (the interval is unref'd). */
  readonly timer?: SaverTimer;
  /** Monotonic clock in ms for measuring writes. Default performance.now. */
  readonly clock?: () => number;
  readonly onSaved?: (report: SaveReport) => void;
  /** A failed autosave or a refused state; `ids` are the characters concerned. */
  readonly onError?: (err: unknown, ids: readonly number[]) => void;
}

export const DEFAULT_AUTOSAVE_MS = 30_000;

const defaultTimer: SaverTimer = {
  setInterval(fn, ms) {
    const handle = setInterval(fn, ms);
    handle.unref();
    return handle;
  },
  clearInterval(handle) {
    clearInterval(handle as NodeJS.Timeout);
  },
};

/** A detached copy: the world may keep mutating its own objects after handing them over. */
function copyState(state: CharacterSave): CharacterSave {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) copy[key] = Array.isArray(value) ? [...value] : value;
  return copy as unknown as CharacterSave;
}

const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class CharacterSaver {
  private dirty = new Map<number, CharacterSave>();
  private tail: Promise<unknown> = Promise.resolve();
  private handle: unknown;
  private readonly timer: SaverTimer;
  private readonly clock: () => number;

  constructor(
    private readonly store: Store,
    private readonly options: CharacterSaverOptions = {},
  ) {
    this.timer = options.timer ?? defaultTimer;
    this.clock = options.clock ?? (() => performance.now());
  }

  /** Characters waiting for the next flush. */
  get pending(): number {
    return this.dirty.size;
  }

  markDirty(state: CharacterSave): void {
    this.dirty.set(state.id, copyState(state));
  }

  /** Drops a pending state, e.g. for a character being deleted. */
  forget(characterId: number): void {
    this.dirty.delete(characterId);
  }

  /** Writes everything dirty now; resolves when written (after any flush already running). */
  flush(): Promise<SaveReport> {
    const run = this.tail.then(() => this.writeDirty());
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Autosaves every `intervalMs`; failures go to onError and are retried next time. */
  start(intervalMs: number = DEFAULT_AUTOSAVE_MS): void {
    this.stopTimer();
    this.handle = this.timer.setInterval(() => {
      this.flush().catch((err: unknown) => this.options.onError?.(err, [...this.dirty.keys()]));
    }, intervalMs);
  }

  /** Stops autosaving and writes what is still dirty. */
  async stop(): Promise<SaveReport> {
    this.stopTimer();
    return this.flush();
  }

  private stopTimer(): void {
    if (this.handle !== undefined) this.timer.clearInterval(this.handle);
    this.handle = undefined;
  }

  private async writeDirty(): Promise<SaveReport> {
    if (this.dirty.size === 0) return { count: 0, saved: 0, missing: [], invalid: [], ms: 0 };
    const taken = [...this.dirty.values()];
    this.dirty = new Map();
    const batch: CharacterSave[] = [];
    const invalid: number[] = [];
    for (const state of taken) {
      try {
        checkState(state);
        batch.push(state);
      } catch (err) {
        invalid.push(state.id);
        this.options.onError?.(err, [state.id]);
      }
    }
    await nextMacrotask();
    const started = this.clock();
    try {
      const result = await this.store.saveCharacters(batch);
      const report: SaveReport = {
        count: batch.length,
        saved: result.saved,
        missing: result.missing,
        invalid,
        ms: this.clock() - started,
      };
      this.options.onSaved?.(report);
      return report;
    } catch (err) {
      for (const state of batch) if (!this.dirty.has(state.id)) this.dirty.set(state.id, state);
      throw err;
    }
  }
}
