import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, parseStoreUrl, SqliteStore, LATEST_SCHEMA_VERSION } from '../../server/store/index.js';
import { migrations, SCHEMA_VERSION_TABLE } from '../../server/store/migrations.js';
import { account, character, state } from './builders.js';
import { storeSuite } from './store-suite.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-store-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

storeSuite('SQLite', {
  async fresh() {
    const dir = tempDir();
    const path = join(dir, 'nested', 'wyvern.db');
    return {
      open: () => openStore(`sqlite:${path}`),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  async legacy(version, statements) {
    const dir = tempDir();
    const path = join(dir, 'old.db');
    const db = new Database(path);
    try {
      db.exec(SCHEMA_VERSION_TABLE.sqlite);
      for (const m of migrations.filter((m) => m.version <= version)) {
        db.exec(m.sqlite);
        db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
          m.version,
          m.name,
          1,
        );
      }
      for (const sql of statements) db.exec(sql);
    } finally {
      db.close();
    }
    return {
      open: () => openStore(`sqlite:${path}`),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});

describe('SQLite store files', () => {
  it('opens in WAL mode with synchronous=NORMAL and records the schema version', async () => {
    const store = new SqliteStore(join(tempDir(), 'a.db'));
    try {
      expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.db.pragma('synchronous', { simple: true })).toBe(1);
      expect(store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    } finally {
      await store.close();
    }
  });

  it('sees data saved by a connection that was never closed', async () => {
    const path = join(tempDir(), 'open.db');
    const writer = new SqliteStore(path);
    const a = await writer.createAccount(account());
    const hero = await writer.createCharacter(character(a.id));
    await writer.saveCharacters([{ id: hero.id, ...state({ level: 12 }) }]);

    const reader = new SqliteStore(path);
    try {
      expect((await reader.getCharacter(hero.id))?.level).toBe(12);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('keeps saved data intact after the writing process is killed', async () => {
    const path = join(tempDir(), 'crash.db');
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const script = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));
    const child = spawnSync(process.execPath, ['--import', tsx, script, path], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(child.signal).toBe('SIGKILL');
    const heroId = Number(child.stdout.trim());
    expect(heroId).toBeGreaterThan(0);

    const raw = new Database(path);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();
    const store = new SqliteStore(path);
    try {
      expect(await store.getCharacter(heroId)).toMatchObject({ level: 33, zone: 'crypt', spells: [7, 8] });
    } finally {
      await store.close();
    }
  });
});

describe('parseStoreUrl', () => {
  it('chooses PostgreSQL for postgres:// and postgresql:// URLs', () => {
    expect(parseStoreUrl('postgres://u@h/db')).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(parseStoreUrl('postgresql://u@h/db').kind).toBe('postgres');
  });

  it('chooses SQLite for sqlite: URLs, plain paths and nothing', () => {
    expect(parseStoreUrl('sqlite:data/w.db')).toEqual({ kind: 'sqlite', path: 'data/w.db' });
    expect(parseStoreUrl('sqlite:///abs/w.db')).toEqual({ kind: 'sqlite', path: '/abs/w.db' });
    expect(parseStoreUrl('/tmp/x.db')).toEqual({ kind: 'sqlite', path: '/tmp/x.db' });
    expect(parseStoreUrl(undefined)).toEqual({ kind: 'sqlite', path: 'var/wyvern.db' });
    expect(parseStoreUrl('')).toEqual({ kind: 'sqlite', path: 'var/wyvern.db' });
  });

  it('refuses other URL schemes without echoing the password', () => {
    expect(() => parseStoreUrl('mysql://root:hunter2@h/db')).toThrow(
      /unsupported database URL mysql:\/\/\*\*\*@h/,
    );
  });
});
