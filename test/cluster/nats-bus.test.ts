/**
 * The shared bus suite over a throwaway nats-server (test/helpers/nats.ts), two connections
 * standing for two processes. Skipped with a message when nats-server is not installed.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { DEFAULT_MAX_PAYLOAD } from '../../server/cluster/bus.js';
import { NatsBus } from '../../server/cluster/nats-bus.js';
import { NATS_SKIP_MESSAGE, natsServerAvailable, startNatsServer, type NatsServer } from '../helpers/nats.js';
import { busSuite } from './bus-suite.js';

if (!natsServerAvailable()) {
  console.log(NATS_SKIP_MESSAGE);
  describe('NATS bus', () => {
    it.skip('runs only where nats-server is installed', () => {});
  });
} else {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  busSuite('NATS', {
    async pair() {
      const a = await NatsBus.connect({ servers: server.url, name: 'test-a' });
      const b = await NatsBus.connect({ servers: server.url, name: 'test-b' });
      return { a, b };
    },
    maxPayload: DEFAULT_MAX_PAYLOAD,
  });
}
