/**
 * One behaviour suite for the registry on every backend. Each backend's test file calls
 * `registrySuite(name, harness)`; `fresh()` gives an empty cluster, and every `open()` on it is
 * one more process with its own handle (closing it, with or without releasing, leaves the
 * others running).
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  registryMetrics,
  Role,
  type ClusterRegistry,
  type Holder,
  type NodeInfo,
  type RegistryEvent,
} from '../../server/cluster/registry.js';
import { SubjectError } from '../../server/cluster/subjects.js';
import { until } from './until.js';

export interface RegistryCluster {
  open(): Promise<ClusterRegistry>;
  dispose(): Promise<void>;
}

export interface RegistryHarness {
  /** The lease TTL the harness's registries use. */
  ttlMs: number;
  fresh(): Promise<RegistryCluster>;
}

let instances = 0;
function node(id: string, role: Role = Role.ZoneHost, extra: Partial<NodeInfo> = {}): NodeInfo {
  return { id, instance: `i${++instances}`, role, host: '127.0.0.1', startedAt: 1_700_000_000_000, ...extra };
}
const gateway = (id: string, k = 0) => node(id, Role.Gateway, { tcpPort: 7777 + k, httpPort: 8080 + k });
const holder = (n: NodeInfo): Holder => ({ id: n.id, instance: n.instance });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function registrySuite(name: string, harness: RegistryHarness): void {
  const ttl = harness.ttlMs;
  /** Long enough for a dead holder's entries to expire and be noticed, on a busy machine. */
  const expiryWait = ttl * 10 + 5_000;

  describe(`${name} registry`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function cluster(): Promise<{ open(): Promise<ClusterRegistry> }> {
      const c = await harness.fresh();
      cleanups.push(() => c.dispose());
      return {
        async open() {
          const registry = await c.open();
          cleanups.push(() => registry.close());
          return registry;
        },
      };
    }

    describe('nodes', () => {
      it('lists the live gateways and zone hosts with their addresses and roles', async () => {
        const c = await cluster();
        const a = await c.open();
        const b = await c.open();
        const gw0 = gateway('gw0', 0);
        const gw1 = gateway('gw1', 1);
        const zh0 = node('zh0');
        await a.announce(gw0);
        await b.announce(gw1);
        await b.announce(zh0);
        const nodes = await a.nodes();
        expect(nodes.map((n) => n.id).sort()).toEqual(['gw0', 'gw1', 'zh0']);
        expect(await a.node('gw1')).toEqual(gw1);
        expect((await b.node('gw0'))?.tcpPort).toBe(7777);
        expect((await b.node('zh0'))?.role).toBe(Role.ZoneHost);
        expect(await a.node('gw9')).toBeUndefined();
      });

      it('keeps a live node listed across many TTLs', async () => {
        const c = await cluster();
        const a = await c.open();
        const lease = await a.announce(gateway('gw0'));
        await sleep(ttl * 3);
        expect(lease.held()).toBe(true);
        expect((await a.node('gw0'))?.id).toBe('gw0');
      });

      it('forgets a node whose process died (no release) within the TTL', async () => {
        const c = await cluster();
        const dead = await c.open();
        const other = await c.open();
        await dead.announce(gateway('gw0'));
        await other.announce(gateway('gw1'));
        await dead.close({ release: false });
        await until(async () => (await other.node('gw0')) === undefined, expiryWait, 'gw0 to expire');
        expect((await other.nodes()).map((n) => n.id)).toEqual(['gw1']);
      });

      it('a restarted node replaces the entry of its previous run', async () => {
        const c = await cluster();
        const before = await c.open();
        await before.announce(gateway('gw0'));
        await before.close({ release: false });
        const after = await c.open();
        const again = gateway('gw0');
        await after.announce(again);
        expect((await after.node('gw0'))?.instance).toBe(again.instance);
      });

      it('release removes the entry at once', async () => {
        const c = await cluster();
        const a = await c.open();
        const lease = await a.announce(gateway('gw0'));
        await lease.release();
        expect(await a.node('gw0')).toBeUndefined();
        expect(lease.held()).toBe(false);
      });
    });

    describe('zones', () => {
      it('of many hosts claiming one zone at once, exactly one gets it', async () => {
        const c = await cluster();
        const hosts = await Promise.all([c.open(), c.open(), c.open()]);
        const nodes = hosts.map((_, i) => node(`zh${i}`));
        const claims = await Promise.all(
          [0, 1, 2, 0, 1, 2, 0, 1, 2].map((i) => hosts[i]!.claimZone('greenvale', holder(nodes[i]!))),
        );
        const winners = claims.flatMap((lease, i) => (lease ? [i % 3] : []));
        expect(winners).toHaveLength(1);
        const claim = await hosts[0]!.zoneClaim('greenvale');
        expect(claim?.host).toEqual(holder(nodes[winners[0]!]!));
      });

      it('a held zone is refused to others until its host releases it', async () => {
        const c = await cluster();
        const a = await c.open();
        const b = await c.open();
        const [zhA, zhB] = [node('zh0'), node('zh1')];
        const lease = await a.claimZone('greenvale', holder(zhA));
        expect(lease).toBeDefined();
        await sleep(ttl * 2);
        expect(await b.claimZone('greenvale', holder(zhB))).toBeUndefined();
        expect(lease!.held()).toBe(true);
        await lease!.release();
        const taken = await b.claimZone('greenvale', holder(zhB));
        expect(taken).toBeDefined();
        expect((await a.zoneClaim('greenvale'))?.host).toEqual(holder(zhB));
      });

      it('a dead host’s zone goes free within the TTL and another host takes it', async () => {
        const c = await cluster();
        const dead = await c.open();
        const b = await c.open();
        expect(await dead.claimZone('greenvale', holder(node('zh0')))).toBeDefined();
        await dead.claimZone('ashmoor', holder(node('zh0')));
        await dead.close({ release: false });
        const zhB = node('zh1');
        await until(
          async () => (await b.claimZone('greenvale', holder(zhB))) !== undefined,
          expiryWait,
          'greenvale to go free',
        );
        expect((await b.zoneClaim('greenvale'))?.host).toEqual(holder(zhB));
        await until(async () => (await b.zoneClaims()).length === 1, expiryWait, 'ashmoor to expire');
      });

      it('lists every claim', async () => {
        const c = await cluster();
        const a = await c.open();
        const zh = node('zh0');
        await a.claimZone('greenvale', holder(zh));
        await a.claimZone('ashmoor', holder(zh));
        const claims = await a.zoneClaims();
        expect(claims.map((z) => z.zone).sort()).toEqual(['ashmoor', 'greenvale']);
        expect(claims.every((z) => z.host.instance === zh.instance)).toBe(true);
      });

      it('refuses an id that is not one subject token', async () => {
        const c = await cluster();
        const a = await c.open();
        await expect(a.claimZone('green vale', holder(node('zh0')))).rejects.toBeInstanceOf(SubjectError);
        await expect(a.announce(node('zh.0'))).rejects.toBeInstanceOf(SubjectError);
        await expect(a.characterGateway('Ar*wen')).rejects.toBeInstanceOf(SubjectError);
      });
    });

    describe('watch', () => {
      it('reports the present state, then a zone moving from one host to another', async () => {
        const c = await cluster();
        const a = await c.open();
        const b = await c.open();
        const gw = await c.open();
        const [zhA, zhB] = [node('zh0'), node('zh1')];
        await a.announce(zhA);
        const leaseA = await a.claimZone('greenvale', holder(zhA));
        const events: RegistryEvent[] = [];
        const watch = await gw.watch((e) => events.push(e));
        expect(events).toContainEqual({ type: 'node', id: 'zh0', node: zhA });
        expect(events).toContainEqual(
          expect.objectContaining({
            type: 'zone',
            zone: 'greenvale',
            claim: expect.objectContaining({ host: holder(zhA) }),
          }),
        );
        events.length = 0;

        await leaseA!.release();
        await b.announce(zhB);
        await b.claimZone('greenvale', holder(zhB));
        await until(
          () => events.some((e) => e.type === 'zone' && e.claim?.host.id === 'zh1'),
          10_000,
          'the claim by zh1',
        );
        const zoneEvents = events.filter((e) => e.type === 'zone');
        expect(zoneEvents.map((e) => (e.type === 'zone' ? (e.claim?.host.id ?? 'free') : ''))).toEqual([
          'free',
          'zh1',
        ]);
        expect(events).toContainEqual({ type: 'node', id: 'zh1', node: zhB });
        watch.stop();
      });

      it('reports a dead host’s node and zone as gone, and not its heartbeats', async () => {
        const c = await cluster();
        const dead = await c.open();
        const live = await c.open();
        const gw = await c.open();
        const zh = node('zh0');
        await dead.announce(zh);
        await dead.claimZone('greenvale', holder(zh));
        await live.announce(node('zh1'));
        const events: RegistryEvent[] = [];
        await gw.watch((e) => events.push(e));
        const initial = events.length;
        expect(initial).toBe(3);
        await sleep(ttl * 2);
        expect(events.length).toBe(initial);

        await dead.close({ release: false });
        await until(
          () =>
            events.some((e) => e.type === 'node' && e.id === 'zh0' && !e.node) &&
            events.some((e) => e.type === 'zone' && e.zone === 'greenvale' && !e.claim),
          expiryWait,
          'zh0 and its zone reported gone',
        );
        expect(events.some((e) => e.type === 'node' && e.id === 'zh1' && !e.node)).toBe(false);
      });

      it('tells a node that released its entry (a planned stop) from one whose entry lapsed (a crash)', async () => {
        const c = await cluster();
        const stopping = await c.open();
        const dying = await c.open();
        const zh = await c.open();
        await stopping.announce(gateway('gw0'));
        await dying.announce(gateway('gw1', 1));
        const events: RegistryEvent[] = [];
        await zh.watch((e) => events.push(e));
        await stopping.close();
        await dying.close({ release: false });
        const end = (id: string) => events.find((e) => e.type === 'node' && e.id === id && !e.node);
        await until(() => !!end('gw0') && !!end('gw1'), expiryWait, 'gw0 and gw1 reported gone');
        expect(end('gw0')).toMatchObject({ ended: 'released' });
        expect(end('gw1')).toMatchObject({ ended: 'lapsed' });
      });
    });

    describe('sessions', () => {
      it('finds the gateway holding an account and, by name in any case, a character', async () => {
        const c = await cluster();
        const r = await c.open();
        const gw0 = gateway('gw0');
        await r.announce(gw0);
        expect(await r.bindSession(42, holder(gw0))).toBeUndefined();
        await r.bindCharacter('Arwen', 42, holder(gw0));
        expect((await r.sessionGateway(42))?.gateway).toEqual(holder(gw0));
        expect(await r.characterGateway('aRWEN')).toEqual({
          name: 'Arwen',
          accountId: 42,
          gateway: holder(gw0),
        });
        expect(await r.sessionGateway(43)).toBeUndefined();
        expect(await r.characterGateway('Boromir')).toBeUndefined();

        const metrics = new Registry();
        registryMetrics(metrics, r);
        const lookups = (await metrics.getMetricsAsJSON()).find(
          (m) => m.name === 'wyvern_registry_lookups_total',
        )!;
        const count = (kind: string) => lookups.values.find((v) => v.labels['kind'] === kind)?.value;
        expect([count('session'), count('character'), count('zone')]).toEqual([2, 2, 0]);
        expect(r.stats().leasesHeld).toBe(1);
      });

      it('a session taken over on another gateway names the old one, which can no longer release it', async () => {
        const c = await cluster();
        const r0 = await c.open();
        const r1 = await c.open();
        const [gw0, gw1] = [gateway('gw0', 0), gateway('gw1', 1)];
        await r0.announce(gw0);
        await r1.announce(gw1);
        await r0.bindSession(7, holder(gw0));
        const previous = await r1.bindSession(7, holder(gw1));
        expect(previous?.gateway).toEqual(holder(gw0));
        expect(await r0.releaseSession(7, holder(gw0))).toBe(false);
        expect((await r0.sessionGateway(7))?.gateway).toEqual(holder(gw1));
        expect(await r1.releaseSession(7, holder(gw1))).toBe(true);
        expect(await r0.sessionGateway(7)).toBeUndefined();

        await r0.bindCharacter('Arwen', 7, holder(gw0));
        await r1.bindCharacter('Arwen', 7, holder(gw1));
        expect(await r0.releaseCharacter('arwen', holder(gw0))).toBe(false);
        expect(await r1.releaseCharacter('arwen', holder(gw1))).toBe(true);
        expect(await r0.characterGateway('Arwen')).toBeUndefined();
      });

      it('a dead gateway’s sessions stop counting when it expires, and a sweep deletes them', async () => {
        const c = await cluster();
        const dead = await c.open();
        const live = await c.open();
        const [gw0, gw1] = [gateway('gw0', 0), gateway('gw1', 1)];
        await dead.announce(gw0);
        await live.announce(gw1);
        await dead.bindSession(1, holder(gw0));
        await dead.bindCharacter('Arwen', 1, holder(gw0));
        await live.bindSession(2, holder(gw1));
        await dead.close({ release: false });
        await until(async () => (await live.sessionGateway(1)) === undefined, expiryWait, 'gw0 to expire');
        expect(await live.characterGateway('Arwen')).toBeUndefined();
        expect(await live.sweepSessions()).toBe(2);
        expect(await live.sweepSessions()).toBe(0);
        expect((await live.sessionGateway(2))?.gateway).toEqual(holder(gw1));
        // A new login after the crash is not reported as taking over from the dead gateway.
        expect(await live.bindSession(1, holder(gw1))).toBeUndefined();
      });

      it('hands a resume token to exactly one of two gateways taking it at once, and none after a newer one', async () => {
        const c = await cluster();
        const [r0, r1] = [await c.open(), await c.open()];
        await r0.putResumeToken(3, { id: 'first', name: 'Pippin', expiresAt: 1_000 });
        const taken = await Promise.all([r0.takeResumeToken(3, 'first'), r1.takeResumeToken(3, 'first')]);
        expect(taken.filter((t) => t !== undefined)).toEqual([
          { id: 'first', name: 'Pippin', expiresAt: 1_000 },
        ]);
        expect(await r1.takeResumeToken(3, 'first')).toBeUndefined();

        await r0.putResumeToken(3, { id: 'older', name: 'Pippin', expiresAt: 1_000 });
        await r1.putResumeToken(3, { id: 'newer', name: 'Pippin', expiresAt: 1_000 });
        expect(await r0.renewResumeToken(3, 'older', 5_000)).toBe(false);
        expect(await r0.takeResumeToken(3, 'older')).toBeUndefined();
        expect(await r0.renewResumeToken(3, 'newer', 5_000)).toBe(true);
        expect(await r1.takeResumeToken(3, 'newer')).toEqual({
          id: 'newer',
          name: 'Pippin',
          expiresAt: 5_000,
        });
        expect(r1.stats().lookups.resume).toBe(3);
      });

      it('keeps a resume token when its gateway is gone, and sweeps it once expired', async () => {
        const c = await cluster();
        const r = await c.open();
        await r.putResumeToken(4, { id: 'live', name: 'Sam', expiresAt: Date.now() + 60_000 });
        await r.putResumeToken(5, { id: 'old', name: 'Rosie', expiresAt: Date.now() - 1 });
        expect(await r.sweepSessions()).toBe(1);
        expect((await r.takeResumeToken(4, 'live'))?.name).toBe('Sam');
      });

      it('a restarted gateway (same id, new instance) does not inherit its previous run’s sessions', async () => {
        const c = await cluster();
        const before = await c.open();
        const gw0 = gateway('gw0');
        await before.announce(gw0);
        await before.bindSession(5, holder(gw0));
        await before.close({ release: false });
        const after = await c.open();
        await after.announce(gateway('gw0'));
        expect(await after.sessionGateway(5)).toBeUndefined();
      });
    });
  });
}
