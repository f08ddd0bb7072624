/** The cluster tests' frame around a throwaway nats-server (test/helpers/nats.ts). */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { NATS_SKIP_MESSAGE, natsServerAvailable, startNatsServer, type NatsServer } from '../helpers/nats.js';

/**
 * `describe(name)` with a throwaway nats-server running for its tests (`server()` gives it);
 * where nats-server is missing, one skipped test and a line saying so.
 */
export function describeWithNats(name: string, body: (server: () => NatsServer) => void): void {
  if (!natsServerAvailable()) {
    console.log(NATS_SKIP_MESSAGE);
    describe(name, () => {
      it.skip('runs only where nats-server is installed', () => {});
    });
    return;
  }
  describe(name, () => {
    let server: NatsServer | undefined;
    beforeAll(async () => {
      server = await startNatsServer();
    });
    afterAll(async () => {
      await server?.stop();
    });
    body(() => server!);
  });
}
