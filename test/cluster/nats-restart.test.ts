/**
 * A NATS restart under live clients: nats-server is stopped and started again on the same port
 * and store while a NatsBus publishes and subscribes. Publishing resumes, subscriptions come
 * back, the registry keeps its leases and its watch, nothing crashes and no promise is left
 * rejected unhandled.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jetStreamRegistry } from '../../server/cluster/index.js';
import { NatsBus } from '../../server/cluster/nats-bus.js';
import { Role, type RegistryEvent } from '../../server/cluster/registry.js';
import { Subjects } from '../../server/cluster/subjects.js';
import { NATS_SKIP_MESSAGE, natsServerAvailable, startNatsServer, type NatsServer } from '../helpers/nats.js';
import { until } from './until.js';

const fastReconnect = { reconnectMinMs: 50, reconnectMaxMs: 400, pingIntervalMs: 1_000 };

if (!natsServerAvailable()) {
  console.log(NATS_SKIP_MESSAGE);
  describe('NATS restart', () => {
    it.skip('runs only where nats-server is installed', () => {});
  });
} else {
  describe('NATS restart', () => {
    let server: NatsServer;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    const cleanups: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      process.on('unhandledRejection', onUnhandled);
      server = await startNatsServer();
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    afterAll(async () => {
      process.off('unhandledRejection', onUnhandled);
      await server?.stop();
    });

    it('the bus publishes, subscribes and answers requests again after nats-server restarts', async () => {
      const a = await NatsBus.connect({ servers: server.url, name: 'restart-a', ...fastReconnect });
      const b = await NatsBus.connect({ servers: server.url, name: 'restart-b', ...fastReconnect });
      cleanups.push(
        () => a.close(),
        () => b.close(),
      );
      const got: number[] = [];
      b.subscribe(Subjects.gatewayTick('gw0'), (m) => got.push(m.data[0]!));
      b.subscribe(Subjects.gatewayDirect('gw0'), (m) => void m.respond(Uint8Array.of(m.data[0]! + 1)));
      await b.flush();
      a.publish(Subjects.gatewayTick('gw0'), Uint8Array.of(1));
      await until(() => got.length === 1);

      await server.kill('SIGKILL');
      await until(() => !a.stats().connected && !b.stats().connected, 10_000, 'both ends to see the loss');
      // Published while the server is down: held by the client, not thrown.
      expect(() => a.publish(Subjects.gatewayTick('gw0'), Uint8Array.of(2))).not.toThrow();
      await server.start();

      await until(
        () => a.stats().reconnects >= 1 && b.stats().reconnects >= 1,
        15_000,
        'both ends to reconnect',
      );
      await a.flush();
      await b.flush();
      a.publish(Subjects.gatewayTick('gw0'), Uint8Array.of(3));
      await until(() => got.includes(3), 10_000, 'a message published after the restart');
      expect([...(await a.request(Subjects.gatewayDirect('gw0'), Uint8Array.of(41)))]).toEqual([42]);
      expect(a.stats().connected && b.stats().connected).toBe(true);
      expect(unhandled).toEqual([]);
    });

    it('the registry keeps its leases and its watch across a restart', async () => {
      const hostBus = await NatsBus.connect({ servers: server.url, name: 'restart-host', ...fastReconnect });
      const gatewayBus = await NatsBus.connect({
        servers: server.url,
        name: 'restart-gateway',
        ...fastReconnect,
      });
      cleanups.push(
        () => hostBus.close(),
        () => gatewayBus.close(),
      );
      const options = { prefix: `restart${process.pid}`, ttlMs: 2_000 };
      const host = await jetStreamRegistry(hostBus.connection, options);
      const gateway = await jetStreamRegistry(gatewayBus.connection, options);
      cleanups.push(
        () => host.close(),
        () => gateway.close(),
      );
      const zh0 = { id: 'zh0', instance: 'one', role: Role.ZoneHost, host: '127.0.0.1', startedAt: 0 };
      let lost = 0;
      const nodeLease = await host.announce(zh0, { onLost: () => lost++ });
      const zoneLease = await host.claimZone('greenvale', zh0, { onLost: () => lost++ });
      expect(zoneLease).toBeDefined();
      const events: RegistryEvent[] = [];
      await gateway.watch((e) => events.push(e));

      // Down for longer than the TTL: the entries may expire meanwhile, and are written again.
      await server.restart({ signal: 'SIGKILL', downMs: 2_500 });
      await until(
        () => hostBus.stats().reconnects >= 1 && gatewayBus.stats().reconnects >= 1,
        15_000,
        'reconnects',
      );

      await until(
        async () =>
          nodeLease.held() && zoneLease!.held() && (await gateway.zoneClaim('greenvale'))?.host.id === 'zh0',
        20_000,
        'the leases held again',
      );
      expect(lost).toBe(0);
      // The watch still hears changes made after the restart.
      await host.claimZone('ashmoor', zh0);
      await until(
        () => events.some((e) => e.type === 'zone' && e.zone === 'ashmoor' && e.claim?.host.id === 'zh0'),
        20_000,
        'the new claim seen by the watch',
      );
      expect(unhandled).toEqual([]);
    });

    it('a bus started while nats-server is down connects when it comes up', async () => {
      await server.kill();
      const connecting = NatsBus.connect({ servers: server.url, name: 'late', ...fastReconnect });
      let connected = false;
      void connecting.then(() => (connected = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(connected).toBe(false);
      await server.start();
      const bus = await connecting;
      cleanups.push(() => bus.close());
      const got: number[] = [];
      bus.subscribe(Subjects.gatewayTick('late'), (m) => got.push(m.data[0]!));
      await bus.flush();
      bus.publish(Subjects.gatewayTick('late'), Uint8Array.of(9));
      await until(() => got.length === 1);
      expect(unhandled).toEqual([]);
    });
  });
}
