/**
 * PostgreSQL store (`pg` Pool), for deployments where several processes share one database.
 * A batch save is one UPDATE ... FROM unnest(...) statement: one round trip and one
 * transaction however many characters it holds.
 */
import pg from 'pg';
import { pendingMigrations, SCHEMA_VERSION_TABLE } from './migrations.js';
import {
  accountFromRow,
  characterFromRow,
  characterSelectList,
  latestPerId,
  stateColumnNames,
  stateParam,
} from './rows.js';
import {
  characterStateColumns,
  checkState,
  nameKey,
  stateKeys,
  StoreError,
  type Account,
  type CharacterRecord,
  type CharacterSave,
  type ColumnKind,
  type CreateCharacterOptions,
  type NewAccount,
  type NewCharacter,
  type SaveResult,
  type Store,
} from './types.js';

export interface PostgresStoreOptions {
  /** Schema for all tables (created if missing); default the server's search_path (public). */
  readonly schema?: string;
  /** Pool size. Default 10. */
  readonly maxConnections?: number;
  readonly now?: () => number;
  /** Errors of idle pooled connections (the next query reconnects). Default: ignored. */
  readonly onError?: (err: Error) => void;
}

type Row = Record<string, unknown>;

/** Arbitrary constant: serializes migrations between processes opening the same database. */
const MIGRATION_LOCK = 0x77797672;

const arrayType: Record<ColumnKind, string> = {
  text: 'text[]',
  int: 'integer[]',
  real: 'double precision[]',
  intList: 'text[]',
};

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`bad schema name: ${name}`);
  return `"${name}"`;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  private readonly now: () => number;
  private readonly saveSql: string;
  private closed = false;

  private constructor(pool: pg.Pool, now: () => number) {
    this.pool = pool;
    this.now = now;
    const sets = stateColumnNames.map((c) => `${c} = v.${c}`).join(', ');
    const unnestArgs = stateKeys.map((key, i) => `$${i + 2}::${arrayType[characterStateColumns[key].kind]}`);
    this.saveSql = `UPDATE characters AS c SET ${sets}, updated_at = $${stateKeys.length + 2}
      FROM unnest($1::bigint[], ${unnestArgs.join(', ')}) AS v(id, ${stateColumnNames.join(', ')})
      WHERE c.id = v.id RETURNING c.id`;
  }

  /** Connects, creates the schema if asked, and runs pending migrations. */
  static async open(connectionString: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const schema = options.schema === undefined ? undefined : quoteIdent(options.schema);
    const pool = new pg.Pool({
      connectionString,
      max: options.maxConnections ?? 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    pool.on('error', (err) => options.onError?.(err));
    const store = new PostgresStore(pool, options.now ?? Date.now);
    try {
      if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await store.migrate();
    } catch (err) {
      await pool.end();
      throw err;
    }
    return store;
  }

  private async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private async migrate(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(SCHEMA_VERSION_TABLE.postgres);
      const { rows } = await client.query('SELECT MAX(version) AS v FROM schema_version');
      const current = Number(rows[0]?.v ?? 0);
      for (const m of pendingMigrations(current)) {
        await client.query(m.postgres);
        await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          this.now(),
        ]);
      }
    });
  }

  async schemaVersion(): Promise<number> {
    const { rows } = await this.pool.query('SELECT MAX(version) AS v FROM schema_version');
    return Number(rows[0]?.v ?? 0);
  }

  async createAccount(account: NewAccount): Promise<Account> {
    try {
      const { rows } = await this.pool.query(
        `INSERT INTO accounts (name, name_key, salt, verifier, created_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING *`,
        [
          account.name,
          nameKey(account.name),
          Buffer.from(account.salt),
          Buffer.from(account.verifier),
          this.now(),
        ],
      );
      return accountFromRow(rows[0] as Row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError('taken', `account ${account.name} exists`);
      throw err;
    }
  }

  async findAccount(name: string): Promise<Account | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM accounts WHERE name_key = $1', [nameKey(name)]);
    const row = rows[0] as Row | undefined;
    return row && accountFromRow(row);
  }

  async listCharacters(accountId: number): Promise<CharacterRecord[]> {
    const { rows } = await this.pool.query(
      `SELECT ${characterSelectList} FROM characters WHERE account_id = $1 ORDER BY id`,
      [accountId],
    );
    return rows.map(characterFromRow);
  }

  async createCharacter(
    character: NewCharacter,
    options: CreateCharacterOptions = {},
  ): Promise<CharacterRecord> {
    checkState(character);
    const now = this.now();
    const columns = [
      'account_id',
      'name',
      'name_key',
      'appearance',
      'created_at',
      'updated_at',
      ...stateColumnNames,
    ];
    const values = [
      character.accountId,
      character.name,
      nameKey(character.name),
      character.appearance,
      now,
      now,
      ...stateKeys.map((key) => stateParam(character, key)),
    ];
    try {
      return await this.transaction(async (client) => {
        if (options.maxPerAccount !== undefined) {
          // Lock the account row so two concurrent creates cannot both take the last slot.
          await client.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [character.accountId]);
          const { rows } = await client.query(
            'SELECT COUNT(*)::int AS n FROM characters WHERE account_id = $1',
            [character.accountId],
          );
          const n = Number(rows[0]?.n ?? 0);
          if (n >= options.maxPerAccount) {
            throw new StoreError('limit', `account ${character.accountId} has ${n} characters`);
          }
        }
        const { rows } = await client.query(
          `INSERT INTO characters (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})
           RETURNING ${characterSelectList}`,
          values,
        );
        return characterFromRow(rows[0] as Row);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError('taken', `character ${character.name} exists`);
      throw err;
    }
  }

  async deleteCharacter(accountId: number, characterId: number): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM characters WHERE id = $1 AND account_id = $2', [
      characterId,
      accountId,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async getCharacter(id: number): Promise<CharacterRecord | undefined> {
    const { rows } = await this.pool.query(`SELECT ${characterSelectList} FROM characters WHERE id = $1`, [
      id,
    ]);
    const row = rows[0] as Row | undefined;
    return row && characterFromRow(row);
  }

  async saveCharacters(batch: readonly CharacterSave[]): Promise<SaveResult> {
    for (const state of batch) checkState(state);
    const states = latestPerId(batch);
    if (states.length === 0) return { saved: 0, missing: [] };
    const params: unknown[] = [states.map((s) => s.id)];
    for (const key of stateKeys) params.push(states.map((s) => stateParam(s, key)));
    params.push(this.now());
    const { rows } = await this.pool.query(this.saveSql, params);
    const written = new Set(rows.map((r: Row) => Number(r.id)));
    const missing = states.map((s) => s.id).filter((id) => !written.has(id));
    return { saved: written.size, missing };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
