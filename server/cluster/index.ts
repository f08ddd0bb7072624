/** The cluster's building blocks: the bus between roles and the registry, each in process or over NATS. */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../log.js';
import { JetStreamKv } from './jetstream-kv.js';
import { MemoryKvStore } from './memory-kv.js';
import { DEFAULT_LEASE_TTL_MS, KvRegistry, type ClusterRegistry } from './registry.js';

export * from './bus.js';
export * from './in-process-bus.js';
export * from './nats-bus.js';
export * from './registry.js';
export * from './subjects.js';
export { JetStreamKv } from './jetstream-kv.js';
export { MemoryKvStore } from './memory-kv.js';

export interface RegistryOptions {
  ttlMs?: number;
  logger?: Logger;
}

/** The registry of a single process (the embedded default). */
export function memoryRegistry(options: RegistryOptions = {}): ClusterRegistry {
  const store = new MemoryKvStore({ ttlMs: options.ttlMs ?? DEFAULT_LEASE_TTL_MS });
  return new KvRegistry(store.open(), { logger: options.logger });
}

/** The registry of a cluster, in JetStream KV on the bus's connection (NatsBus.connection). */
export async function jetStreamRegistry(
  connection: NatsConnection,
  options: RegistryOptions & { prefix?: string } = {},
): Promise<ClusterRegistry> {
  const kv = await JetStreamKv.open(connection, {
    prefix: options.prefix,
    ttlMs: options.ttlMs ?? DEFAULT_LEASE_TTL_MS,
  });
  return new KvRegistry(kv, { logger: options.logger });
}
