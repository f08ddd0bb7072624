/**
 * One behaviour suite for every Store implementation. Each implementation's test file calls
 * `storeSuite(name, harness)`; the harness gives a fresh, empty database location per test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CharacterSaver, StoreError, type Store } from '../../server/store/index.js';
import { account, character, state } from './builders.js';

export interface StoreLocation {
  /** Opens the location (several opens share the same data). */
  open(): Promise<Store>;
  dispose(): Promise<void>;
}

export interface StoreHarness {
  fresh(): Promise<StoreLocation>;
  /**
   * A fresh location whose database was made by an older server: the migrations up to
   * `version` applied, then `statements` run (plain SQL both databases take).
   */
  legacy(version: number, statements: readonly string[]): Promise<StoreLocation>;
}

async function storeErrorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof StoreError) return err.code;
    throw err;
  }
  throw new Error('expected a StoreError');
}

export function storeSuite(name: string, harness: StoreHarness): void {
  describe(`${name} store`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function open(): Promise<{ store: Store; location: StoreLocation }> {
      const location = await harness.fresh();
      cleanups.push(() => location.dispose());
      const store = await location.open();
      cleanups.push(() => store.close());
      return { store, location };
    }

    describe('accounts', () => {
      it('finds an account by name ignoring case and keeps the display name and SRP bytes', async () => {
        const { store } = await open();
        const input = account({ name: 'DragonSlayer_7' });
        const created = await store.createAccount(input);
        const found = await store.findAccount('dragonslayer_7');
        expect(found).toEqual(created);
        expect(found?.name).toBe('DragonSlayer_7');
        expect(found?.salt).toEqual(input.salt);
        expect(found?.verifier).toEqual(input.verifier);
        expect(found?.salt).toBeInstanceOf(Uint8Array);
      });

      it('refuses a second account whose name differs only in case', async () => {
        const { store } = await open();
        await store.createAccount(account({ name: 'Alice' }));
        expect(await storeErrorCode(store.createAccount(account({ name: 'aLICE' })))).toBe('taken');
      });

      it('returns undefined for an unknown account', async () => {
        const { store } = await open();
        expect(await store.findAccount('nobody')).toBeUndefined();
      });
    });

    describe('characters', () => {
      it('creates characters and lists them per account in creation order', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const b = await store.createAccount(account());
        const first = await store.createCharacter(character(a.id, { name: 'Arwen' }));
        const second = await store.createCharacter(character(a.id, { name: 'Boromir', maxHealth: 150 }));
        await store.createCharacter(character(b.id, { name: 'Celeborn' }));

        const list = await store.listCharacters(a.id);
        expect(list.map((c) => c.name)).toEqual(['Arwen', 'Boromir']);
        expect(list[0]).toEqual(first);
        expect(second).toMatchObject({ accountId: a.id, maxHealth: 150, maxMana: null, spells: [1] });
        expect(await store.getCharacter(first.id)).toEqual(first);
        expect(await store.getCharacter(999_999)).toBeUndefined();
      });

      it('keeps character names unique ignoring case, across accounts', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const b = await store.createAccount(account());
        await store.createCharacter(character(a.id, { name: 'Gandalf' }));
        expect(await storeErrorCode(store.createCharacter(character(b.id, { name: 'GANDALF' })))).toBe(
          'taken',
        );
        expect(await store.listCharacters(b.id)).toEqual([]);
      });

      it('refuses a character beyond the per-account limit', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        await store.createCharacter(character(a.id), { maxPerAccount: 2 });
        await store.createCharacter(character(a.id), { maxPerAccount: 2 });
        expect(await storeErrorCode(store.createCharacter(character(a.id), { maxPerAccount: 2 }))).toBe(
          'limit',
        );
        expect(await store.listCharacters(a.id)).toHaveLength(2);
      });

      it('deletes a character only for its owner and frees the name', async () => {
        const { store } = await open();
        const owner = await store.createAccount(account());
        const other = await store.createAccount(account());
        const hero = await store.createCharacter(character(owner.id, { name: 'Frodo' }));

        expect(await store.deleteCharacter(other.id, hero.id)).toBe(false);
        expect(await store.getCharacter(hero.id)).toBeDefined();
        expect(await store.deleteCharacter(owner.id, hero.id)).toBe(true);
        expect(await store.getCharacter(hero.id)).toBeUndefined();
        expect(await store.deleteCharacter(owner.id, hero.id)).toBe(false);
        await expect(store.createCharacter(character(other.id, { name: 'frodo' }))).resolves.toBeDefined();
      });

      it('never gives a deleted character id to a new character', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const old = await store.createCharacter(character(a.id));
        await store.deleteCharacter(a.id, old.id);
        const next = await store.createCharacter(character(a.id));
        expect(next.id).toBeGreaterThan(old.id);
      });

      it('refuses a character with a non-finite position', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        expect(await storeErrorCode(store.createCharacter(character(a.id, { x: Number.NaN })))).toBe(
          'invalid',
        );
      });
    });

    describe('saveCharacters', () => {
      it('writes every field of many characters in one call', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const one = await store.createCharacter(character(a.id));
        const two = await store.createCharacter(character(a.id));

        const result = await store.saveCharacters([
          {
            id: one.id,
            ...state({ zone: 'caves', x: 1.25, y: 2.5, facing: -3, level: 7, health: 1, mana: 0 }),
          },
          { id: two.id, ...state({ spells: [1, 2, 9], kills: 42, maxHealth: 300, maxMana: 120 }) },
        ]);

        expect(result).toEqual({ saved: 2, missing: [] });
        expect(await store.getCharacter(one.id)).toMatchObject({
          zone: 'caves',
          x: 1.25,
          y: 2.5,
          facing: -3,
          level: 7,
          health: 1,
          mana: 0,
          maxHealth: null,
        });
        expect(await store.getCharacter(two.id)).toMatchObject({
          spells: [1, 2, 9],
          kills: 42,
          maxHealth: 300,
          maxMana: 120,
        });
      });

      it('ignores a character deleted meanwhile and still saves the rest', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const kept = await store.createCharacter(character(a.id));
        const gone = await store.createCharacter(character(a.id));
        await store.deleteCharacter(a.id, gone.id);

        const result = await store.saveCharacters([
          { id: gone.id, ...state({ level: 9 }) },
          { id: kept.id, ...state({ level: 5 }) },
        ]);

        expect(result).toEqual({ saved: 1, missing: [gone.id] });
        expect((await store.getCharacter(kept.id))?.level).toBe(5);
      });

      it('writes nothing from a batch holding one bad state', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const good = await store.createCharacter(character(a.id, { level: 1 }));
        const bad = await store.createCharacter(character(a.id, { level: 1 }));

        const code = await storeErrorCode(
          store.saveCharacters([
            { id: good.id, ...state({ level: 30 }) },
            { id: bad.id, ...state({ y: Number.POSITIVE_INFINITY }) },
          ]),
        );

        expect(code).toBe('invalid');
        expect((await store.getCharacter(good.id))?.level).toBe(1);
      });

      it('keeps the last state when a batch names a character twice', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const hero = await store.createCharacter(character(a.id));
        const result = await store.saveCharacters([
          { id: hero.id, ...state({ kills: 1 }) },
          { id: hero.id, ...state({ kills: 2 }) },
        ]);
        expect(result.saved).toBe(1);
        expect((await store.getCharacter(hero.id))?.kills).toBe(2);
      });

      it('accepts an empty batch', async () => {
        const { store } = await open();
        expect(await store.saveCharacters([])).toEqual({ saved: 0, missing: [] });
      });
    });

    describe('migrations', () => {
      it('keeps the data and migrates nothing twice when the database is opened again', async () => {
        const { store, location } = await open();
        const a = await store.createAccount(account({ name: 'Persistent' }));
        await store.createCharacter(character(a.id, { name: 'Legolas' }));
        await store.close();

        const again = await location.open();
        cleanups.push(() => again.close());
        const found = await again.findAccount('persistent');
        expect(found?.id).toBe(a.id);
        expect((await again.listCharacters(a.id)).map((c) => c.name)).toEqual(['Legolas']);
      });
    });

    describe('migration 2 (experience)', () => {
      it('keeps characters made by schema 1 at their level, with no experience yet, and saves it from then on', async () => {
        const location = await harness.legacy(1, [
          `INSERT INTO accounts (name, name_key, salt, verifier, created_at) VALUES ('Oldtimer', 'oldtimer', '', '', 1)`,
          `INSERT INTO characters (account_id, name, name_key, appearance, zone, x, y, facing, level, health, mana,
             spells, kills, created_at, updated_at)
           VALUES ((SELECT id FROM accounts WHERE name_key = 'oldtimer'), 'Veteran', 'veteran', 2, 'Greenvale',
             410.5, 620.25, 1.5, 4, 180, 90, '[1,2]', 7, 1, 1)`,
          `INSERT INTO characters (account_id, name, name_key, appearance, zone, x, y, facing, level, health, mana,
             spells, kills, created_at, updated_at)
           VALUES ((SELECT id FROM accounts WHERE name_key = 'oldtimer'), 'Novice', 'novice', 1, 'Greenvale',
             100, 100, 0, 1, 200, 150, '[1]', 0, 2, 2)`,
        ]);
        cleanups.push(() => location.dispose());
        const store = await location.open();
        cleanups.push(() => store.close());

        const owner = await store.findAccount('oldtimer');
        const list = await store.listCharacters(owner!.id);
        expect(list.map((c) => [c.name, c.level, c.experience, c.kills, c.health, c.zone])).toEqual([
          ['Veteran', 4, 0, 7, 180, 'Greenvale'],
          ['Novice', 1, 0, 0, 200, 'Greenvale'],
        ]);
        expect(list[0]).toMatchObject({ x: 410.5, y: 620.25, spells: [1, 2] });

        const veteran = list[0]!;
        await store.saveCharacters([{ ...veteran, level: 5, experience: 123 }]);
        await store.close();
        const again = await location.open();
        cleanups.push(() => again.close());
        expect(await again.getCharacter(veteran.id)).toMatchObject({ level: 5, experience: 123, kills: 7 });
      });
    });

    describe('with the batched saver', () => {
      it('writes the latest marked state of each character on flush', async () => {
        const { store } = await open();
        const a = await store.createAccount(account());
        const hero = await store.createCharacter(character(a.id));
        const saver = new CharacterSaver(store);

        saver.markDirty({ id: hero.id, ...state({ x: 10 }) });
        saver.markDirty({ id: hero.id, ...state({ x: 12, spells: [4, 5] }) });
        const report = await saver.flush();

        expect(report).toMatchObject({ count: 1, saved: 1, missing: [] });
        expect(await store.getCharacter(hero.id)).toMatchObject({ x: 12, spells: [4, 5] });
        expect(saver.pending).toBe(0);
      });
    });
  });
}
