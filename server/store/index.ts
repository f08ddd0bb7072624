/**
 * `openStore(url)`: the one place that chooses a database.
 *   postgres://... or postgresql://...  -> PostgreSQL
 *   sqlite:PATH, sqlite://PATH, PATH     -> SQLite file (directory created); ':memory:' allowed
 *   empty or undefined                   -> SQLite at var/wyvern.db
 */
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export * from './types.js';
export { SqliteStore } from './sqlite.js';
export { PostgresStore } from './postgres.js';
export * from './saver.js';
export { LATEST_SCHEMA_VERSION } from './migrations.js';

export const DEFAULT_SQLITE_PATH = 'var/wyvern.db';

export interface OpenStoreOptions {
  readonly now?: () => number;
  /** PostgreSQL only: put the tables in this schema (created if missing). */
  readonly schema?: string;
  /** PostgreSQL only: errors of idle pooled connections. */
  readonly onError?: (err: Error) => void;
}

export type StoreLocation = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

export function parseStoreUrl(url: string | undefined): StoreLocation {
  const value = url?.trim() ?? '';
  if (value === '') return { kind: 'sqlite', path: DEFAULT_SQLITE_PATH };
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  if (/^sqlite:/i.test(value)) {
    const path = value.slice('sqlite:'.length).replace(/^\/\//, '');
    return { kind: 'sqlite', path: path === '' ? DEFAULT_SQLITE_PATH : path };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new Error(
      `unsupported database URL ${value.replace(/\/\/[^@/]*@/, '//***@')}: use postgres:// or sqlite:`,
    );
  }
  return { kind: 'sqlite', path: value };
}

export async function openStore(url: string | undefined, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url);
  if (location.kind === 'postgres') return PostgresStore.open(location.url, options);
  return new SqliteStore(location.path, options.now ? { now: options.now } : {});
}
