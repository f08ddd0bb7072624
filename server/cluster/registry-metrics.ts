/** The registry's Prometheus metrics: lookups, leases held and lost, refreshes that failed. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RegistryStats } from './registry-entries.js';

/** The registry's counts as Prometheus metrics in `registry`, read when scraped. */
export function registryMetrics(registry: Registry, cluster: { stats(): RegistryStats }): void {
  new Counter({
    name: 'wyvern_registry_lookups_total',
    help: 'Cluster registry lookups, by what was looked up (node, zone, session, character, resume token).',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(cluster.stats().lookups)) this.inc({ kind }, n);
    },
  });
  new Gauge({
    name: 'wyvern_registry_leases',
    help: 'Leases (node entry, zone claims) this process holds.',
    registers: [registry],
    collect() {
      this.set(cluster.stats().leasesHeld);
    },
  });
  new Counter({
    name: 'wyvern_registry_leases_lost_total',
    help: 'Leases found taken by another process.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(cluster.stats().leasesLost);
    },
  });
  new Counter({
    name: 'wyvern_registry_refresh_failures_total',
    help: 'Lease refreshes that failed for want of the store (retried).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(cluster.stats().refreshFailures);
    },
  });
}
