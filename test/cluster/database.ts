/**
 * The cluster tests' database: a fresh PostgreSQL database when TEST_DATABASE_URL is set
 * (.ci/postgres.sh starts a throwaway cluster and sets it, as CI does), which every process of
 * the test's cluster shares as a real deployment would; otherwise one SQLite file in `dir`
 * (processes on one machine can share it), saying once that PostgreSQL was not used.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';

export interface ClusterDatabase {
  /** DATABASE_URL for every process. */
  readonly url: string;
  readonly kind: 'postgres' | 'sqlite';
  /** Drops the PostgreSQL database (the SQLite file goes with the test's dir). */
  drop(): Promise<void>;
}

let told = false;

export async function clusterDatabase(dir: string): Promise<ClusterDatabase> {
  const server = process.env['TEST_DATABASE_URL'];
  if (!server) {
    if (!told) {
      told = true;
      console.log(
        'Cluster tests over SQLite: TEST_DATABASE_URL is not set (source .ci/postgres.sh to run them over PostgreSQL).',
      );
    }
    return { url: `sqlite:${join(dir, 'w.db')}`, kind: 'sqlite', drop: () => Promise.resolve() };
  }
  const name = `wyvern_cluster_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(server, `CREATE DATABASE "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'postgres',
    // WITH (FORCE): a process killed mid-test may leave a connection behind.
    drop: () => admin(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function admin(server: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
