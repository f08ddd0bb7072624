/**
 * The bus and registry metrics of this process (server/cluster: wyvern_bus_*,
 * wyvern_registry_*), registered once and summed over every bus and registry open in it: one
 * in a process running one role or both, several when tests start servers side by side.
 */
import { busMetrics, type Bus, type BusStats } from '../cluster/bus.js';
import { registryMetrics, type ClusterRegistry, type RegistryStats } from '../cluster/registry.js';
import { registry } from './index.js';

const buses = new Set<Bus>();
const registries = new Set<ClusterRegistry>();
let registered = false;

function busStats(): BusStats {
  const sum: BusStats = {
    messagesIn: 0,
    messagesOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    handlerErrors: 0,
    reconnects: 0,
    connected: true,
  };
  for (const bus of buses) {
    const s = bus.stats();
    sum.messagesIn += s.messagesIn;
    sum.messagesOut += s.messagesOut;
    sum.bytesIn += s.bytesIn;
    sum.bytesOut += s.bytesOut;
    sum.handlerErrors += s.handlerErrors;
    sum.reconnects += s.reconnects;
    sum.connected &&= s.connected;
  }
  return sum;
}

function registryStats(): RegistryStats {
  const sum: RegistryStats = {
    lookups: { node: 0, zone: 0, session: 0, character: 0, resume: 0 },
    leasesHeld: 0,
    leasesLost: 0,
    refreshFailures: 0,
  };
  for (const r of registries) {
    const s = r.stats();
    for (const kind of Object.keys(sum.lookups) as (keyof RegistryStats['lookups'])[]) {
      sum.lookups[kind] += s.lookups[kind];
    }
    sum.leasesHeld += s.leasesHeld;
    sum.leasesLost += s.leasesLost;
    sum.refreshFailures += s.refreshFailures;
  }
  return sum;
}

/** Counts `bus` and `cluster` in /metrics until the returned function is called. */
export function trackCluster(bus: Bus, cluster: ClusterRegistry): () => void {
  if (!registered) {
    registered = true;
    busMetrics(registry, { stats: busStats });
    registryMetrics(registry, { stats: registryStats });
  }
  buses.add(bus);
  registries.add(cluster);
  return () => {
    buses.delete(bus);
    registries.delete(cluster);
  };
}
