import { describe, expect, it } from 'vitest';
import {
  CharacterSaver,
  StoreError,
  type CharacterSave,
  type SaveResult,
  type SaverTimer,
  type Store,
} from '../../server/store/index.js';
import { state } from './builders.js';

/** A store that records saveCharacters batches; `fail` makes the next call throw. */
function recordingStore(existing: number[] = [1, 2, 3]) {
  const batches: CharacterSave[][] = [];
  const control: { fail: boolean; duringFailedWrite?: () => void } = { fail: false };
  const store = {
    async saveCharacters(batch: readonly CharacterSave[]): Promise<SaveResult> {
      if (control.fail) {
        control.fail = false;
        control.duringFailedWrite?.();
        throw new Error('disk full');
      }
      batches.push(batch.map((s) => ({ ...s })));
      const missing = batch.filter((s) => !existing.includes(s.id)).map((s) => s.id);
      return { saved: batch.length - missing.length, missing };
    },
  } as unknown as Store;
  return { store, batches, control };
}

function manualTimer() {
  const timer = {
    callbacks: [] as (() => void)[],
    intervals: [] as number[],
    setInterval(fn: () => void, ms: number) {
      timer.callbacks.push(fn);
      timer.intervals.push(ms);
      return timer.callbacks.length - 1;
    },
    clearInterval(handle: unknown) {
      timer.callbacks[handle as number] = () => undefined;
    },
    fire() {
      for (const fn of timer.callbacks) fn();
    },
  };
  return timer satisfies SaverTimer;
}

const saving = (id: number, overrides = {}): CharacterSave => ({ id, ...state(overrides) });

describe('CharacterSaver', () => {
  it('writes all dirty characters in one batch, the latest state of each', async () => {
    const { store, batches } = recordingStore();
    const saver = new CharacterSaver(store);
    saver.markDirty(saving(1, { x: 1 }));
    saver.markDirty(saving(2, { x: 2 }));
    saver.markDirty(saving(1, { x: 3 }));

    const report = await saver.flush();

    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((s) => [s.id, s.x])).toEqual([
      [1, 3],
      [2, 2],
    ]);
    expect(report).toMatchObject({ count: 2, saved: 2, missing: [], invalid: [] });
    expect(report.ms).toBeGreaterThanOrEqual(0);
  });

  it('keeps a copy, so later changes to the world object do not leak into the save', async () => {
    const { store, batches } = recordingStore();
    const saver = new CharacterSaver(store);
    const live = saving(1, { x: 10, spells: [1] });
    saver.markDirty(live);
    live.x = 99;
    live.spells.push(2);
    await saver.flush();
    expect(batches[0]?.[0]).toMatchObject({ x: 10, spells: [1] });
  });

  it('never writes on the caller’s call stack', async () => {
    const { store, batches } = recordingStore();
    const saver = new CharacterSaver(store);
    saver.markDirty(saving(1));
    const done = saver.flush();
    expect(batches).toHaveLength(0);
    await done;
    expect(batches).toHaveLength(1);
  });

  it('reports characters deleted meanwhile without failing', async () => {
    const { store } = recordingStore([1]);
    const saver = new CharacterSaver(store);
    saver.markDirty(saving(1));
    saver.markDirty(saving(42));
    expect(await saver.flush()).toMatchObject({ saved: 1, missing: [42] });
  });

  it('retries a failed batch at the next flush unless a newer state arrived', async () => {
    const { store, batches, control } = recordingStore();
    const saver = new CharacterSaver(store);
    saver.markDirty(saving(1, { level: 1 }));
    saver.markDirty(saving(2, { level: 1 }));
    control.fail = true;
    control.duringFailedWrite = () => saver.markDirty(saving(2, { level: 5 }));
    await expect(saver.flush()).rejects.toThrow('disk full');

    await saver.flush();

    expect(batches[0]?.map((s) => [s.id, s.level]).sort()).toEqual([
      [1, 1],
      [2, 5],
    ]);
  });

  it('drops a state the store cannot hold, reports it, and saves the others', async () => {
    const { store, batches } = recordingStore();
    const errors: [unknown, readonly number[]][] = [];
    const saver = new CharacterSaver(store, { onError: (err, ids) => errors.push([err, ids]) });
    saver.markDirty(saving(1, { x: Number.NaN }));
    saver.markDirty(saving(2));

    const report = await saver.flush();

    expect(report).toMatchObject({ saved: 1, invalid: [1] });
    expect(batches[0]?.map((s) => s.id)).toEqual([2]);
    expect(errors[0]?.[0]).toBeInstanceOf(StoreError);
    expect(errors[0]?.[1]).toEqual([1]);
  });

  it('autosaves on its timer, every 30 s by default, and stops with a last flush', async () => {
    const { store, batches } = recordingStore();
    const timer = manualTimer();
    const saved: number[] = [];
    const saver = new CharacterSaver(store, { timer, onSaved: (r) => saved.push(r.count) });
    saver.start();
    expect(timer.intervals).toEqual([30_000]);

    saver.markDirty(saving(1));
    timer.fire();
    await saver.flush();
    saver.markDirty(saving(2));
    await saver.stop();
    timer.fire();
    await saver.flush();

    expect(batches.map((b) => b.map((s) => s.id))).toEqual([[1], [2]]);
    expect(saved).toEqual([1, 1]);
  });

  it('drops a pending state when told the character is gone', async () => {
    const { store, batches } = recordingStore();
    const saver = new CharacterSaver(store);
    saver.markDirty(saving(1));
    saver.forget(1);
    expect(saver.pending).toBe(0);
    await saver.flush();
    expect(batches).toHaveLength(0);
  });
});
