/**
 * The shared store suite against PostgreSQL, when TEST_DATABASE_URL is set (.ci/postgres.sh
 * starts a throwaway cluster and sets it). Every store opened here lives in its own fresh
 * schema, dropped afterwards, so reruns and parallel runs never collide.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';
import { PostgresStore } from '../../server/store/index.js';
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
  storeSuite('PostgreSQL', {
    async fresh() {
      const schema = `wyvern_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      return {
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
      };
    },
  });
}
