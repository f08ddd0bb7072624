/**
 * One world on three processes over a real nats-server: a zone host (`--role zone-host`) and
 * two gateways (`--role gateway`, ids a and b), each `tsx server/main.ts` with its own
 * settings, sharing one database (PostgreSQL in CI). A player on gateway a (TCP) and a player on gateway
 * b (WebSocket) enter the same zone, see each other, see each other move, and hear each
 * other say, shout and whisper; the registry says which process runs what and holds whom.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChatMessage, MoveAck } from '../../shared/protocol/index.js';
import { jetStreamRegistry, NatsBus, zoneId } from '../../server/cluster/index.js';
import { startGameClient, walkTo, type GameClient } from '../helpers/game-client.js';
import { clusterEnv, GATEWAY_UP, startRole, TEST_DATA, zoneHostUp, type RoleProcess } from './roles.js';
import { clusterDatabase, type ClusterDatabase } from './database.js';
import { describeWithNats } from './with-nats.js';

const near = (a: number, b: number): boolean => Math.abs(a - b) < 0.5;

describeWithNats('one world on a zone host and two gateways over NATS', (nats) => {
  let dir: string;
  let database: ClusterDatabase | undefined;
  const roles: RoleProcess[] = [];
  let gateways: { tcpPort: number; httpPort: number }[];
  let a: GameClient;
  let b: GameClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-cluster-'));
    database = await clusterDatabase(dir);
    const common = clusterEnv({
      databaseUrl: database.url,
      dataDir: TEST_DATA,
      natsUrl: nats().url,
      logLevel: 'warn',
    });
    // The zone host first: it makes the database the gateways then open.
    roles.push(await startRole({ ...common, ROLE: 'zone-host', NODE_ID: 'zh' }, zoneHostUp('zh')));
    const started = await Promise.all(
      ['a', 'b'].map((id) => startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: id }, GATEWAY_UP)),
    );
    roles.push(...started);
    gateways = started.map((r) => ({ httpPort: Number(r.ready[1]), tcpPort: Number(r.ready[2]) }));
    a = await startGameClient(gateways[0]!, { transport: 'tcp', name: 'Nodeana' });
    b = await startGameClient(gateways[1]!, { transport: 'ws', name: 'Nodebob' });
  }, 120_000);

  afterAll(async () => {
    a?.close();
    b?.close();
    await Promise.all(roles.map((r) => r.stop()));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('puts players from both gateways in one zone, each seeing the other', async () => {
    expect(a.entered.enter.zone).toBe(b.entered.enter.zone);
    const bSeenByA = await a.log.expectRecord('spawn', { predicate: (s) => s.id === b.entityId });
    const aSeenByB = await b.log.expectRecord('spawn', { predicate: (s) => s.id === a.entityId });
    expect(bSeenByA).toMatchObject({ entity: 'player', name: 'Nodebob' });
    expect(aSeenByB).toMatchObject({ entity: 'player', name: 'Nodeana' });
  });

  it('shows a walk on gateway a to the player on gateway b, where it stopped', async () => {
    const since = b.log.mark();
    const from = a.entered.enter;
    const to = { x: from.x + 30, y: from.y };
    await walkTo(a, to);
    const end = await b.log.expectRecord('move', {
      since,
      predicate: (m) => m.id === a.entityId && !m.moving && near(m.x, to.x) && near(m.y, to.y),
    });
    expect(end.id).toBe(a.entityId);
    expect(a.log.all(MoveAck).length).toBeGreaterThanOrEqual(1);
    // And the other way.
    const aSince = a.log.mark();
    const bTo = { x: b.entered.enter.x, y: b.entered.enter.y + 20 };
    await walkTo(b, bTo);
    await a.log.expectRecord('move', {
      since: aSince,
      predicate: (m) => m.id === b.entityId && !m.moving && near(m.y, bTo.y),
    });
  });

  it('carries say and zone chat both ways, and a whisper across gateways', async () => {
    a.client.say('hello from a');
    await b.log.expect(ChatMessage, { predicate: (m) => m.channel === 'say' && m.text === 'hello from a' });
    b.client.say('news from b', 'zone');
    await a.log.expect(ChatMessage, { predicate: (m) => m.channel === 'zone' && m.text === 'news from b' });
    a.client.whisper('nodebob', 'psst');
    const got = await b.log.expect(ChatMessage, { predicate: (m) => m.channel === 'whisper' });
    expect(got).toMatchObject({ from: 'Nodeana', to: 'Nodebob', text: 'psst' });
    await a.log.expect(ChatMessage, { predicate: (m) => m.channel === 'whisper' && m.text === 'psst' });
  });

  it('lists both gateways and the zone host, the zone under its host, and each player under its gateway', async () => {
    const bus = await NatsBus.connect({ servers: nats().url });
    const registry = await jetStreamRegistry(bus.connection);
    try {
      const nodes = await registry.nodes();
      expect(nodes.map((n) => [n.id, n.role]).sort()).toEqual([
        ['a', 'gateway'],
        ['b', 'gateway'],
        ['zh', 'zoneHost'],
      ]);
      const gwA = nodes.find((n) => n.id === 'a')!;
      expect(gwA).toMatchObject({ tcpPort: gateways[0]!.tcpPort, httpPort: gateways[0]!.httpPort });
      expect((await registry.zoneClaim(zoneId(a.entered.enter.zone)))?.host.id).toBe('zh');
      expect((await registry.characterGateway('Nodeana'))?.gateway.id).toBe('a');
      expect((await registry.characterGateway('nodebob'))?.gateway.id).toBe('b');
      expect((await registry.sessionGateway(b.client.accountId!))?.gateway.id).toBe('b');
    } finally {
      await registry.close({ release: false });
      await bus.close();
    }
  });

  it("counts a gateway's bus traffic and registry leases in its /metrics", async () => {
    const text = await (await fetch(`http://127.0.0.1:${gateways[0]!.httpPort}/metrics`)).text();
    const count = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    expect(count(/^wyvern_bus_messages_total\{direction="in"\} (\d+)/m)).toBeGreaterThan(0);
    expect(count(/^wyvern_bus_bytes_total\{direction="out"\} (\d+)/m)).toBeGreaterThan(0);
    expect(count(/^wyvern_registry_leases (\d+)/m)).toBeGreaterThanOrEqual(1);
  });

  it("names a gateway's role in /healthz and lists the cluster's gateways and zone hosts with their zones", async () => {
    const health = async () =>
      (await (await fetch(`http://127.0.0.1:${gateways[1]!.httpPort}/healthz`)).json()) as {
        role: string;
        id: string;
        cluster: {
          gateways: { id: string; tcpPort: number }[];
          zoneHosts: { id: string; zones: string[] }[];
        };
      };
    // The view follows the registry's watch: wait for it to have seen everyone.
    let h = await health();
    for (
      let i = 0;
      i < 50 && (h.cluster.gateways.length < 2 || h.cluster.zoneHosts[0]?.zones.length !== 1);
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      h = await health();
    }
    expect(h).toMatchObject({ role: 'gateway', id: 'b' });
    expect(h.cluster.gateways.map((g) => [g.id, g.tcpPort])).toEqual([
      ['a', gateways[0]!.tcpPort],
      ['b', gateways[1]!.tcpPort],
    ]);
    expect(h.cluster.zoneHosts).toEqual([
      expect.objectContaining({ id: 'zh', zones: [zoneId(a.entered.enter.zone)] }),
    ]);
  });
});
