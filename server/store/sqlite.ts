/**
 * SQLite store (better-sqlite3). The driver is synchronous; the Store interface stays async so
 * callers are written once for both databases. WAL mode with synchronous=NORMAL: a committed
 * transaction survives a process crash (not necessarily a power cut), and readers never block
 * the writer.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { pendingMigrations, SCHEMA_VERSION_TABLE } from './migrations.js';
import {
  accountFromRow,
  characterFromRow,
  characterSelectList,
  latestPerId,
  stateColumnNames,
  stateParams,
} from './rows.js';
import {
  checkState,
  nameKey,
  StoreError,
  type Account,
  type CharacterRecord,
  type CharacterSave,
  type CreateCharacterOptions,
  type NewAccount,
  type NewCharacter,
  type SaveResult,
  type Store,
} from './types.js';

export interface SqliteStoreOptions {
  /** Milliseconds a statement waits for another connection's lock. Default 5000. */
  readonly busyTimeoutMs?: number;
  /** Clock for created_at/updated_at. Default Date.now. */
  readonly now?: () => number;
}

type Row = Record<string, unknown>;

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly db: Database.Database;
  private readonly now: () => number;
  private readonly insertAccount: Database.Statement;
  private readonly selectAccount: Database.Statement;
  private readonly selectCharacters: Database.Statement;
  private readonly selectCharacter: Database.Statement;
  private readonly countCharacters: Database.Statement;
  private readonly insertCharacter: Database.Statement;
  private readonly removeCharacter: Database.Statement;
  private readonly updateCharacter: Database.Statement;

  /** `path` is a file (its directory is created) or ':memory:'. */
  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.migrate();

    this.insertAccount = this.db.prepare(
      'INSERT INTO accounts (name, name_key, salt, verifier, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *',
    );
    this.selectAccount = this.db.prepare('SELECT * FROM accounts WHERE name_key = ?');
    this.selectCharacters = this.db.prepare(
      `SELECT ${characterSelectList} FROM characters WHERE account_id = ? ORDER BY id`,
    );
    this.selectCharacter = this.db.prepare(`SELECT ${characterSelectList} FROM characters WHERE id = ?`);
    this.countCharacters = this.db.prepare('SELECT COUNT(*) AS n FROM characters WHERE account_id = ?');
    const insertColumns = ['account_id', 'name', 'name_key', 'appearance', 'created_at', 'updated_at'];
    insertColumns.push(...stateColumnNames);
    this.insertCharacter = this.db.prepare(
      `INSERT INTO characters (${insertColumns.join(', ')}) VALUES (${insertColumns.map(() => '?').join(', ')})
       RETURNING ${characterSelectList}`,
    );
    this.removeCharacter = this.db.prepare('DELETE FROM characters WHERE id = ? AND account_id = ?');
    this.updateCharacter = this.db.prepare(
      `UPDATE characters SET ${stateColumnNames.map((c) => `${c} = ?`).join(', ')}, updated_at = ? WHERE id = ?`,
    );
  }

  private migrate(): void {
    this.db.exec(SCHEMA_VERSION_TABLE.sqlite);
    // IMMEDIATE takes the write lock first, so two processes opening a new file at once
    // cannot both apply the same migration.
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as Row;
        const current = Number(row.v ?? 0);
        for (const m of pendingMigrations(current)) {
          this.db.exec(m.sqlite);
          this.db
            .prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)')
            .run(m.version, m.name, this.now());
        }
      })
      .immediate();
  }

  /** The applied schema version, for diagnostics and tests. */
  schemaVersion(): number {
    const row = this.db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as Row;
    return Number(row.v ?? 0);
  }

  async createAccount(account: NewAccount): Promise<Account> {
    try {
      const row = this.insertAccount.get(
        account.name,
        nameKey(account.name),
        account.salt,
        account.verifier,
        this.now(),
      ) as Row;
      return accountFromRow(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError('taken', `account ${account.name} exists`);
      throw err;
    }
  }

  async findAccount(name: string): Promise<Account | undefined> {
    const row = this.selectAccount.get(nameKey(name)) as Row | undefined;
    return row && accountFromRow(row);
  }

  async listCharacters(accountId: number): Promise<CharacterRecord[]> {
    return (this.selectCharacters.all(accountId) as Row[]).map(characterFromRow);
  }

  async createCharacter(
    character: NewCharacter,
    options: CreateCharacterOptions = {},
  ): Promise<CharacterRecord> {
    checkState(character);
    const now = this.now();
    const create = this.db.transaction((): Row => {
      if (options.maxPerAccount !== undefined) {
        const { n } = this.countCharacters.get(character.accountId) as { n: number };
        if (n >= options.maxPerAccount) {
          throw new StoreError('limit', `account ${character.accountId} has ${n} characters`);
        }
      }
      return this.insertCharacter.get(
        character.accountId,
        character.name,
        nameKey(character.name),
        character.appearance,
        now,
        now,
        ...stateParams(character),
      ) as Row;
    });
    try {
      return characterFromRow(create.immediate());
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError('taken', `character ${character.name} exists`);
      throw err;
    }
  }

  async deleteCharacter(accountId: number, characterId: number): Promise<boolean> {
    return this.removeCharacter.run(characterId, accountId).changes > 0;
  }

  async getCharacter(id: number): Promise<CharacterRecord | undefined> {
    const row = this.selectCharacter.get(id) as Row | undefined;
    return row && characterFromRow(row);
  }

  async saveCharacters(batch: readonly CharacterSave[]): Promise<SaveResult> {
    return this.saveCharactersSync(batch);
  }

  /** The synchronous write, for callers that schedule it themselves. */
  saveCharactersSync(batch: readonly CharacterSave[]): SaveResult {
    for (const state of batch) checkState(state);
    const states = latestPerId(batch);
    const now = this.now();
    const missing: number[] = [];
    this.db.transaction(() => {
      for (const state of states) {
        const { changes } = this.updateCharacter.run(...stateParams(state), now, state.id);
        if (changes === 0) missing.push(state.id);
      }
    })();
    return { saved: states.length - missing.length, missing };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
