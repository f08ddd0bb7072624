/**
 * What every role of a process needs alike: its bus, the address it is reached on, and a
 * shutdown step that may fail with NATS gone.
 */
import { hostname } from 'node:os';
import { InProcessBus, NatsBus, type Bus, type ClusterRegistry } from '../cluster/index.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';

export interface RoleOptions {
  log?: Logger;
  /** Shared with the other role of the same process; otherwise opened (and closed) here. */
  bus?: Bus;
  store?: Store;
  registry?: ClusterRegistry;
}

/** The address other machines reach this one on, for its registry entry. */
export function advertisedHost(config: Config): string {
  return config.host === '0.0.0.0' || config.host === '::' ? hostname() : config.host;
}

/** The bus of a process: NATS when NATS_URL is set, otherwise in process. */
export async function openBus(config: Config, log: Logger, name: string): Promise<Bus> {
  if (config.natsUrl === undefined) return new InProcessBus({ logger: log });
  const servers = config.natsUrl.split(',').map((u) => u.trim());
  return NatsBus.connect({ servers, name, logger: log });
}

/** A shutdown step that may fail with NATS gone: logged, and the shutdown goes on to the store. */
export async function quietly(
  log: Logger,
  what: string,
  fn: () => Promise<unknown> | undefined,
): Promise<void> {
  try {
    await fn();
  } catch (err) {
    log.warn({ err, what }, 'not closed cleanly (NATS unreachable?); shutting down anyway');
  }
}
