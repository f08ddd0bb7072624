/**
 * A zone host's claims (server/cluster/zone-claims.ts) over an in-memory registry: each zone
 * claimed on its own and run the moment it is held, a zone another host holds refused, a
 * standby taking each zone as its host lets it go, and a stop ending every wait.
 */
import { afterEach, expect, it } from 'vitest';
import { MemoryKvStore } from '../../server/cluster/memory-kv.js';
import { KvRegistry } from '../../server/cluster/registry.js';
import { ZoneClaims } from '../../server/cluster/zone-claims.js';
import { silentLogger } from '../../server/log.js';
import { until } from './until.js';

const TTL_MS = 300;
const open: KvRegistry[] = [];
const stops: ZoneClaims[] = [];

afterEach(async () => {
  for (const c of stops.splice(0)) c.stop();
  for (const r of open.splice(0)) await r.close();
});

function host(store: MemoryKvStore, id: string) {
  const registry = new KvRegistry(store.open());
  open.push(registry);
  const claimed: string[] = [];
  const lost: string[] = [];
  const claims = new ZoneClaims(registry, { id, instance: `${id}-1` }, silentLogger, {
    claimed: (zone) => claimed.push(zone),
    lost: (zone) => lost.push(zone),
  });
  stops.push(claims);
  return { claims, claimed, lost };
}

it('claims every zone and runs each once held', async () => {
  const a = host(new MemoryKvStore({ ttlMs: TTL_MS }), 'zh-0');
  await a.claims.claimAll(['Westmark', 'Eastmark']);
  expect(a.claimed.sort()).toEqual(['Eastmark', 'Westmark']);
  expect(a.claims.holds('Westmark') && a.claims.holds('Eastmark')).toBe(true);
  expect(a.claims.held()).toHaveLength(2);
  // Claimed at start, not waited for: no take-over to tell.
  expect(a.claims.takenOver('Westmark')).toBe(false);
});

it('refuses a zone another host holds, and still holds the others', async () => {
  const store = new MemoryKvStore({ ttlMs: TTL_MS });
  const a = host(store, 'zh-0');
  const b = host(store, 'zh-1');
  await a.claims.claimAll(['Westmark']);
  await expect(b.claims.claimAll(['Westmark', 'Eastmark'])).rejects.toThrow(/run by zone host zh-0/);
  expect(b.claims.holds('Westmark')).toBe(false);
  expect(b.claims.holds('Eastmark')).toBe(true);
  expect(b.claimed).toEqual(['Eastmark']);
});

it('a standby takes each zone apart as its host lets it go, and says so once', async () => {
  const store = new MemoryKvStore({ ttlMs: TTL_MS });
  const a = host(store, 'zh-0');
  const b = host(store, 'zh-1');
  const standby = host(store, 'zh-s0');
  await a.claims.claimAll(['Westmark']);
  await b.claims.claimAll(['Eastmark']);
  standby.claims.standByAll(['Westmark', 'Eastmark']);
  await new Promise((r) => setTimeout(r, 100));
  expect(standby.claimed).toEqual([]);
  // Westmark's host stops (its claim released): the standby runs Westmark, Eastmark still waits.
  a.claims.stop();
  for (const lease of a.claims.held()) await lease.release();
  await until(() => standby.claimed.includes('Westmark'), 5_000);
  expect(standby.claimed).toEqual(['Westmark']);
  expect(standby.claims.holds('Eastmark')).toBe(false);
  expect(standby.claims.takenOver('Westmark')).toBe(true);
  expect(standby.claims.takenOver('Westmark')).toBe(false);
  // Eastmark's host dies (its claim lapses): the standby runs that one too.
  b.claims.stop();
  await open.splice(1, 1)[0]!.close({ release: false });
  await until(() => standby.claimed.includes('Eastmark'), 5_000);
  expect(standby.claims.holds('Eastmark')).toBe(true);
});

it('stops waiting when stopped: a zone let go later is not taken', async () => {
  const store = new MemoryKvStore({ ttlMs: TTL_MS });
  const a = host(store, 'zh-0');
  const standby = host(store, 'zh-s0');
  await a.claims.claimAll(['Westmark']);
  standby.claims.standByAll(['Westmark']);
  standby.claims.stop();
  for (const lease of a.claims.held()) await lease.release();
  await new Promise((r) => setTimeout(r, 1_200));
  expect(standby.claimed).toEqual([]);
  expect(standby.claims.held()).toEqual([]);
});
