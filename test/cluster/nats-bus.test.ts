/**
 * The shared bus suite over a throwaway nats-server (test/helpers/nats.ts), two connections
 * standing for two processes. Skipped with a message when nats-server is not installed.
 */
import { DEFAULT_MAX_PAYLOAD } from '../../server/cluster/bus.js';
import { NatsBus } from '../../server/cluster/nats-bus.js';
import { describeWithNats } from './with-nats.js';
import { busSuite } from './bus-suite.js';

describeWithNats('NATS bus', (server) => {
  busSuite('NATS', {
    async pair() {
      const a = await NatsBus.connect({ servers: server().url, name: 'test-a' });
      const b = await NatsBus.connect({ servers: server().url, name: 'test-b' });
      return { a, b };
    },
    maxPayload: DEFAULT_MAX_PAYLOAD,
  });
});
