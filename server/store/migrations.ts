/**
 * Numbered schema migrations, one entry per version, each with its SQL for both databases.
 * `schema_version` holds one row per applied migration; the highest is the schema's version.
 * A migration runs in the same transaction as its schema_version row, so it applies whole
 * or not at all. Never edit a released migration: add the next number.
 *
 * Ids come from AUTOINCREMENT / IDENTITY, which never reuse a deleted id: a late save for a
 * deleted character can then never land on a newer one.
 */
import { StoreError } from './types.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

export const SCHEMA_VERSION_TABLE = {
  sqlite: `CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`,
  postgres: `CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`,
} as const;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts and characters',
    sqlite: `
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        salt BLOB NOT NULL,
        verifier BLOB NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE characters (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        appearance INTEGER NOT NULL,
        zone TEXT NOT NULL,
        x REAL NOT NULL,
        y REAL NOT NULL,
        facing REAL NOT NULL,
        level INTEGER NOT NULL,
        health INTEGER NOT NULL,
        mana INTEGER NOT NULL,
        max_health INTEGER,
        max_mana INTEGER,
        spells TEXT NOT NULL DEFAULT '[]',
        kills INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX characters_account ON characters(account_id);
    `,
    postgres: `
      CREATE TABLE accounts (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        salt BYTEA NOT NULL,
        verifier BYTEA NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE characters (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        appearance INTEGER NOT NULL,
        zone TEXT NOT NULL,
        x DOUBLE PRECISION NOT NULL,
        y DOUBLE PRECISION NOT NULL,
        facing DOUBLE PRECISION NOT NULL,
        level INTEGER NOT NULL,
        health INTEGER NOT NULL,
        mana INTEGER NOT NULL,
        max_health INTEGER,
        max_mana INTEGER,
        spells TEXT NOT NULL DEFAULT '[]',
        kills INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX characters_account ON characters(account_id);
    `,
  },
  {
    // Characters made before it keep their level (every row has one) and start it at 0.
    version: 2,
    name: 'character experience',
    sqlite: `ALTER TABLE characters ADD COLUMN experience INTEGER NOT NULL DEFAULT 0;`,
    postgres: `ALTER TABLE characters ADD COLUMN experience INTEGER NOT NULL DEFAULT 0;`,
  },
];

export const LATEST_SCHEMA_VERSION = migrations.reduce((max, m) => Math.max(max, m.version), 0);

/**
 * The migrations a database at schema `current` still needs, in order. A database newer than
 * this server is refused rather than run against code that does not know its schema.
 */
export function pendingMigrations(current: number): readonly Migration[] {
  if (current > LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      'schema',
      `database schema version ${current} is newer than this server (${LATEST_SCHEMA_VERSION})`,
    );
  }
  return migrations.filter((m) => m.version > current);
}
