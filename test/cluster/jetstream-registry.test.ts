/**
 * The shared registry suite on JetStream KV in a throwaway nats-server. Each test gets buckets
 * of its own (a fresh prefix), destroyed afterwards; each open() is a connection of its own,
 * as each process has. Skipped with a message when nats-server is not installed.
 */
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JetStreamKv } from '../../server/cluster/jetstream-kv.js';
import { KvRegistry } from '../../server/cluster/registry.js';
import { describeWithNats } from './with-nats.js';
import { registrySuite } from './registry-suite.js';

const TTL_MS = 1_000;

describeWithNats('JetStream registry', (server) => {
  let clusters = 0;
  registrySuite('JetStream KV', {
    ttlMs: TTL_MS,
    async fresh() {
      const prefix = `t${process.pid}_${clusters++}`;
      const connections: NatsConnection[] = [];
      return {
        async open() {
          const nc = await connect({ servers: server().url });
          connections.push(nc);
          return new KvRegistry(await JetStreamKv.open(nc, { prefix, ttlMs: TTL_MS }));
        },
        async dispose() {
          const kvm = new Kvm(connections[0]!);
          for (const bucket of ['leases', 'sessions'])
            await (await kvm.open(`${prefix}_${bucket}`)).destroy();
          for (const nc of connections) await nc.close();
        },
      };
    },
  });
});
