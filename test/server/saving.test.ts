/**
 * The realm's saving room on its own: a leave's save is written at the end of its tick, and
 * the character cannot enter again until that write is done; everyone in the zones this host
 * runs is saved in one batch, and nobody in a zone stopped for its claim.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../server/log.js';
import type { CharacterSave, SaveReport } from '../../server/store/index.js';
import { mulberry32, savedCharacter, type World, type WorldEvent } from '../../server/world/index.js';
import { Saving, type SavedSeat } from '../../server/zone/saving.js';
import { ZoneRunner } from '../../server/zone/zone-runner.js';
import { join, player, world } from '../world/builders.js';

const REPORT: SaveReport = { count: 1, saved: 1, missing: [], invalid: [], ms: 1 };

/** A saver whose flushes stay pending until the test settles them, in the order asked. */
class HeldSaver {
  readonly dirty: CharacterSave[] = [];
  readonly flushes: { resolve: (r: SaveReport) => void; reject: (err: Error) => void }[] = [];
  stopped = false;

  markDirty(state: CharacterSave): void {
    this.dirty.push(state);
  }

  flush(): Promise<SaveReport> {
    return new Promise((resolve, reject) => this.flushes.push({ resolve, reject }));
  }

  stop(): Promise<SaveReport> {
    this.stopped = true;
    return Promise.resolve(REPORT);
  }
}

const noHooks = { joined() {}, save() {}, leftWorld() {}, handedOff() {} };

function zoneOf(w: World): ZoneRunner {
  return new ZoneRunner(w, mulberry32(1), noHooks);
}

function saveEvent(w: World, playerId: number): Extract<WorldEvent, { type: 'save' }> {
  const p = w.players.get(playerId)!;
  return { type: 'save', sessionId: p.sessionId, playerId, character: savedCharacter(w, p) };
}

/** Whether the promise has settled by the time every queued callback has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

function saving(seats: SavedSeat[] = [], fenced: string[] = []) {
  const saver = new HeldSaver();
  const room = new Saving(
    { saver, log: silentLogger, autosaveMs: 60_000 },
    { runAll: () => {}, isFenced: (zone) => fenced.includes(zone) },
    {
      values: () => seats,
      seatOf: (worldSession, playerId) =>
        seats.find(
          (s) => s.playerId === playerId && s.host.world.players.get(playerId)?.sessionId === worldSession,
        ),
    },
  );
  return { saver, room };
}

describe('the saving room', () => {
  it('writes a leave at the end of its tick, and holds a re-entry until that write is done', async () => {
    const w = world();
    const p = join(w, player({ name: 'Leaver' }));
    const seat = { host: zoneOf(w), playerId: p.id, spells: [7, 9] };
    const { saver, room } = saving([seat]);

    room.onSave(seat.host, saveEvent(w, p.id));
    expect(saver.dirty.map((s) => [s.id, s.spells])).toEqual([[p.characterId, [7, 9]]]);
    expect(saver.flushes).toHaveLength(0);
    room.flushRequested();
    expect(saver.flushes).toHaveLength(1);

    const entry = room.waitUntilSaved(p.characterId);
    expect(await settled(entry)).toBe(false);
    saver.flushes[0]!.resolve(REPORT);
    expect(await settled(entry)).toBe(true);
    // Written: the next entry waits for nothing.
    expect(await settled(room.waitUntilSaved(p.characterId))).toBe(true);
  });

  it('holds a re-entry for the newer write when the character left again before the first was done', async () => {
    const w = world();
    const p = join(w, player());
    const host = zoneOf(w);
    const { saver, room } = saving();

    room.onSave(host, saveEvent(w, p.id));
    room.flushRequested();
    const entry = room.waitUntilSaved(p.characterId);
    room.onSave(host, saveEvent(w, p.id));
    room.flushRequested();
    saver.flushes[0]!.resolve(REPORT);
    expect(await settled(entry)).toBe(false);
    saver.flushes[1]!.resolve(REPORT);
    expect(await settled(entry)).toBe(true);
  });

  it('lets a re-entry in when the write failed (the saver keeps the state to retry)', async () => {
    const w = world();
    const p = join(w, player());
    const { saver, room } = saving();

    room.onSave(zoneOf(w), saveEvent(w, p.id));
    room.flushRequested();
    const entry = room.waitUntilSaved(p.characterId);
    saver.flushes[0]!.reject(new Error('the store is down'));
    expect(await settled(entry)).toBe(true);
  });

  it('writes nothing at the end of a tick nobody left in', () => {
    const { saver, room } = saving();
    room.flushRequested();
    expect(saver.flushes).toHaveLength(0);
  });

  it('saves everyone in one batch, the stored spells with each, and nobody in a zone stopped for its claim', async () => {
    const run = world({ zone: { name: 'Runvale' } });
    const stopped = world({ zone: { name: 'Stopvale' } });
    const a = join(run, player({ name: 'Ada' }));
    const b = join(stopped, player({ name: 'Bo' }));
    const seats = [
      { host: zoneOf(run), playerId: a.id, spells: [1] },
      { host: zoneOf(stopped), playerId: b.id, spells: [2] },
      // On its way in: no entity yet, nothing to save.
      { host: zoneOf(run), spells: [3] },
    ];
    const { saver, room } = saving(seats, ['Stopvale']);

    const written = room.saveEveryone();
    expect(saver.dirty.map((s) => [s.id, s.zone, s.spells])).toEqual([[a.characterId, 'Runvale', [1]]]);
    expect(saver.flushes).toHaveLength(1);
    saver.flushes[0]!.resolve(REPORT);
    expect(await written).toBe(REPORT);
  });

  it('writes everyone still in the world when it stops', async () => {
    const w = world();
    const a = join(w, player());
    const { saver, room } = saving([{ host: zoneOf(w), playerId: a.id, spells: [] }]);
    await room.stop();
    expect(saver.dirty.map((s) => s.id)).toEqual([a.characterId]);
    expect(saver.stopped).toBe(true);
  });
});
