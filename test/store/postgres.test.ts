/**
 * The shared store suite against PostgreSQL, when TEST_DATABASE_URL is set (.ci/postgres.sh
 * starts a throwaway cluster and sets it). Every store opened here lives in its own fresh
 * schema, dropped afterwards, so reruns and parallel runs never collide.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';
import { PostgresStore } from '../../server/store/index.js';
import { migrations, SCHEMA_VERSION_TABLE } from '../../server/store/migrations.js';
import { storeSuite } from './store-suite.js';

const url = process.env.TEST_DATABASE_URL;

if (!url) {
  console.log(
    'PostgreSQL store tests skipped: TEST_DATABASE_URL is not set (source .ci/postgres.sh to run them).',
  );
  describe('PostgreSQL store', () => {
    it.skip('runs only when TEST_DATABASE_URL is set (source .ci/postgres.sh)', () => {});
  });
} else {
  const databaseUrl = url;
  const location = (schema: string) => ({
    open: () => PostgresStore.open(databaseUrl, { schema, maxConnections: 4 }),
    async dispose() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  });
  const freshSchema = () => `wyvern_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  storeSuite('PostgreSQL', {
    async fresh() {
      return location(freshSchema());
    },
    async legacy(version, statements) {
      const schema = freshSchema();
      const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA "${schema}"`);
        await client.query(SCHEMA_VERSION_TABLE.postgres);
        for (const m of migrations.filter((m) => m.version <= version)) {
          await client.query(m.postgres);
          await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            1,
          ]);
        }
        for (const sql of statements) await client.query(sql);
      } finally {
        await client.end();
      }
      return location(schema);
    },
  });
}
