/**
 * World requests and resumes routed by the registry, over a real nats-server: two zone hosts
 * (zh-a runs Testvale, zh-b runs Testwold, a copy of it under another name) and two gateways
 * (a and b), each its own `tsx server/main.ts`, sharing one database (PostgreSQL in CI). Ana plays on
 * gateway a (TCP) in Testvale, Bob on gateway b (WebSocket) in Testwold, and Cara on gateway
 * b in Testvale watches Ana. Whispers cross both gateways and both hosts, zone chat stays in
 * its zone (through its own host) on both gateways, who lists everyone
 * from either gateway, Ana's TCP socket dies and she resumes on gateway b over WebSocket
 * where she stood, and a zone host answers /metrics and /healthz.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChatMessage, ErrorPacket, Resume } from '../../shared/protocol/index.js';
import { Bye } from '../../shared/protocol/session.js';
import { jetStreamRegistry, NatsBus, type ClusterRegistry } from '../../server/cluster/index.js';
import { openStore } from '../../server/store/index.js';
import {
  resumeGameClient,
  startGameClient,
  walkTo,
  type GameClient,
  type ResumedGame,
} from '../helpers/game-client.js';
import { clusterEnv, startRole, type RoleProcess } from './roles.js';
import { until } from './until.js';
import { clusterDatabase, type ClusterDatabase } from './database.js';
import { describeWithNats } from './with-nats.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GATEWAY_UP =
  /open https?:\/\/localhost:(\d+)\/ in a browser; native clients connect to TCP port (\d+)\./;
/** Where Testwold lies below Testvale (800 high) in the world plane. */
const WOLD_DY = 1000;
const hostUp = (id: string) => new RegExp(`zone host ${id} is running .*HTTP port (\\d+)\\.`);

interface Ports {
  tcpPort: number;
  httpPort: number;
}

const near = (a: number, b: number): boolean => Math.abs(a - b) < 0.5;

describeWithNats(
  'whisper, who and resume routed by the registry over two zone hosts and two gateways',
  (nats) => {
    let dir: string;
    let database: ClusterDatabase | undefined;
    const roles: RoleProcess[] = [];
    const open: { close(): void }[] = [];
    let gw: Ports[];
    let hostHttp: Record<string, number>;
    let bus: NatsBus;
    let registry: ClusterRegistry;
    let ana: GameClient;
    let bob: GameClient;
    let cara: GameClient;

    /** Until the registry says each named character is held by the given gateway. */
    async function heldBy(where: Record<string, string>): Promise<void> {
      for (const [name, gateway] of Object.entries(where)) {
        await until(
          async () => (await registry.characterGateway(name))?.gateway.id === gateway,
          10_000,
          `${name} listed on gateway ${gateway}`,
        );
      }
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'wyvern-routing-'));
      database = await clusterDatabase(dir);
      // The test world with a second zone: Testvale again, under another name, WOLD_DY further
      // down the world plane, with a gap between them (no border: that is border.test.ts's).
      const data = join(dir, 'data');
      cpSync(join(ROOT, 'data/test'), data, { recursive: true });
      const vale = JSON.parse(readFileSync(join(data, 'zones/testvale.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const down = <T extends { y: number }>(p: T): T => ({ ...p, y: p.y + WOLD_DY });
      const wold = {
        ...vale,
        name: 'Testwold',
        number: 2,
        x: 0,
        y: WOLD_DY,
        playerSpawn: down(vale['playerSpawn'] as { x: number; y: number }),
        graveyard: down(vale['graveyard'] as { x: number; y: number }),
        obstacles: (vale['obstacles'] as { y: number }[]).map(down),
        spawns: (vale['spawns'] as { y: number }[]).map(down),
      };
      writeFileSync(join(data, 'zones/testwold.json'), JSON.stringify(wold));
      const common = clusterEnv(
        { databaseUrl: database.url, dataDir: data, natsUrl: nats().url, logLevel: 'warn' },
        { LINGER_MS: '30000' },
      );
      // One zone host first: it makes the database the others then open.
      const zhA = await startRole(
        { ...common, ROLE: 'zone-host', NODE_ID: 'zh-a', ZONES: 'Testvale' },
        hostUp('zh-a'),
      );
      roles.push(zhA);
      const started = await Promise.all([
        startRole({ ...common, ROLE: 'zone-host', NODE_ID: 'zh-b', ZONES: 'Testwold' }, hostUp('zh-b')),
        startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: 'a' }, GATEWAY_UP),
        startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: 'b' }, GATEWAY_UP),
      ]);
      roles.push(...started);
      const [zhB, gwA, gwB] = started;
      hostHttp = { 'zh-a': Number(zhA.ready[1]), 'zh-b': Number(zhB!.ready[1]) };
      gw = [gwA!, gwB!].map((r) => ({ httpPort: Number(r.ready[1]), tcpPort: Number(r.ready[2]) }));

      bus = await NatsBus.connect({ servers: nats().url });
      registry = await jetStreamRegistry(bus.connection);
      // Every new character starts in Testvale: Bob's row is moved to Testwold before he enters.
      const store = await openStore(database.url);
      try {
        ana = await startGameClient(gw[0]!, { transport: 'tcp', name: 'Nodeana' });
        open.push(ana);
        bob = await startGameClient(gw[1]!, {
          transport: 'ws',
          name: 'Nodebob',
          beforeEnter: async (id) => {
            const row = (await store.getCharacter(id))!;
            await store.saveCharacters([{ ...row, zone: 'Testwold', y: row.y + WOLD_DY }]);
          },
        });
        open.push(bob);
        cara = await startGameClient(gw[1]!, { transport: 'ws', name: 'Nodecara' });
        open.push(cara);
      } finally {
        await store.close();
      }
      await heldBy({ Nodeana: 'a', Nodebob: 'b', Nodecara: 'b' });
    }, 120_000);

    afterAll(async () => {
      for (const c of open) c.close();
      await registry?.close({ release: false });
      await bus?.close();
      // Gateways first, then the zone hosts (they save everyone).
      await Promise.all(roles.slice(2).map((r) => r.stop()));
      await Promise.all(roles.slice(0, 2).map((r) => r.stop()));
      await database?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('runs the two zones on two hosts, with the players in them', async () => {
      expect(ana.entered.enter.zone).toBe('Testvale');
      expect(bob.entered.enter.zone).toBe('Testwold');
      expect((await registry.zoneClaim('testvale'))?.host.id).toBe('zh-a');
      expect((await registry.zoneClaim('testwold'))?.host.id).toBe('zh-b');
    });

    it('whispers from gateway a in one zone to gateway b in the other, and back, each with its echo', async () => {
      ana.client.whisper('nodebob', 'over the hills');
      expect(
        await bob.log.expect(ChatMessage, {
          predicate: (m) => m.channel === 'whisper' && m.text === 'over the hills',
        }),
      ).toMatchObject({ from: 'Nodeana', fromId: ana.entityId, to: 'Nodebob' });
      await ana.log.expect(ChatMessage, {
        predicate: (m) => m.channel === 'whisper' && m.text === 'over the hills',
      });

      bob.client.whisper('NODEANA', 'and back');
      expect(
        await ana.log.expect(ChatMessage, {
          predicate: (m) => m.channel === 'whisper' && m.text === 'and back',
        }),
      ).toMatchObject({ from: 'Nodebob', fromId: bob.entityId, to: 'Nodeana' });
      await bob.log.expect(ChatMessage, {
        predicate: (m) => m.channel === 'whisper' && m.text === 'and back',
      });

      for (const nobody of ['nobody', 'no.body']) {
        const since = ana.log.mark();
        ana.client.whisper(nobody, 'hello?');
        await ana.log.expect(ErrorPacket, { since, predicate: (e) => e.code === 'ERR_NO_SUCH_PLAYER' });
      }
    });

    it("carries zone chat through the zone's own host to its players on both gateways, and to no other zone", async () => {
      cara.client.say('vale news', 'zone');
      await ana.log.expect(ChatMessage, { predicate: (m) => m.channel === 'zone' && m.text === 'vale news' });
      bob.client.say('wold news', 'zone');
      await bob.log.expect(ChatMessage, { predicate: (m) => m.channel === 'zone' && m.text === 'wold news' });
      expect(bob.log.all(ChatMessage, (m) => m.text === 'vale news')).toEqual([]);
      expect(ana.log.all(ChatMessage, (m) => m.text === 'wold news')).toEqual([]);
    });

    it('lists every character of both zone hosts in who, from either gateway, zone by zone', async () => {
      for (const asker of [ana, bob]) {
        const who = await asker.client.who();
        expect(who.total).toBe(3);
        expect(who.players.map((p) => [p.zone, p.name])).toEqual([
          ['Testvale', expect.any(String)],
          ['Testvale', expect.any(String)],
          ['Testwold', 'Nodebob'],
        ]);
        expect(
          who.players
            .slice(0, 2)
            .map((p) => p.name)
            .sort(),
        ).toEqual(['Nodeana', 'Nodecara']);
      }
    });

    it('resumes on gateway b over WebSocket a character whose TCP socket on gateway a died, where it stood, unseen by its watcher', async () => {
      await cara.log.expectRecord('spawn', { predicate: (s) => s.id === ana.entityId });
      const since = cara.log.mark();
      const stood = ana.client.world.self!;
      const token = ana.client.resumeToken!;
      ana.kill();
      const r: ResumedGame = await resumeGameClient(gw[1]!, 'ws', ana, { label: 'Nodeana on b' });
      open.push(r);
      expect(r.result.characterId).toBe(ana.characterId);
      console.log(`resume on the other gateway -> back in the world: ${r.ms.toFixed(0)} ms`);
      const enter = r.result.entered!.enter;
      expect(enter.entityId).toBe(ana.entityId);
      expect(near(enter.x, stood.x) && near(enter.y, stood.y)).toBe(true);
      await heldBy({ Nodeana: 'b' });

      // It walks on, seen by the watcher, who never saw it leave.
      const walker: GameClient = {
        ...ana,
        client: r.client,
        log: r.log,
        entered: r.result.entered!,
        kill: r.kill,
        close: r.close,
      };
      const to = { x: enter.x + 24, y: enter.y };
      await walkTo(walker, to);
      await cara.log.expectRecord('move', {
        since,
        predicate: (m) => m.id === ana.entityId && !m.moving && near(m.x, to.x),
      });
      expect(cara.log.records('despawn', (d) => d.id === ana.entityId, since)).toEqual([]);

      // A whisper finds it on its new gateway.
      bob.client.whisper('nodeana', 'welcome back');
      await r.log.expect(ChatMessage, {
        predicate: (m) => m.channel === 'whisper' && m.text === 'welcome back',
      });

      // The token it came back with is spent: on either gateway, again, it is refused.
      const again = resumeGameClient(gw[0]!, 'tcp', ana, { token });
      await expect(again).rejects.toMatchObject({ code: 'ERR_BAD_RESUME', opcode: Resume.opcode });
      expect(r.client.isClosed).toBe(false);
    });

    it('takes a character over in place on gateway b while its connection on gateway a is still open', async () => {
      const dora = await startGameClient(gw[0]!, { transport: 'tcp', name: 'Nodedora' });
      open.push(dora);
      await cara.log.expectRecord('spawn', { predicate: (s) => s.id === dora.entityId });
      await heldBy({ Nodedora: 'a' });
      const since = cara.log.mark();
      const r = await resumeGameClient(gw[1]!, 'ws', dora, { label: 'Nodedora on b' });
      open.push(r);
      expect(r.result.entered?.enter.entityId).toBe(dora.entityId);
      await heldBy({ Nodedora: 'b' });
      // Its connection on gateway a is told, as on one gateway, and closed.
      await dora.log.expect(Bye, { predicate: (b) => b.reason === 'takenOver' });
      expect(cara.log.records('despawn', (d) => d.id === dora.entityId, since)).toEqual([]);
    });

    it("answers a zone host's /metrics and /healthz, and a gateway's /healthz gives each zone host's HTTP port", async () => {
      const port = hostHttp['zh-a']!;
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const count = (re: RegExp) => Number(re.exec(metrics)?.[1] ?? NaN);
      expect(count(/^wyvern_tick_seconds_count (\d+)/m)).toBeGreaterThan(0);
      expect(count(/^wyvern_bus_messages_total\{direction="out"\} (\d+)/m)).toBeGreaterThan(0);
      expect(count(/^wyvern_registry_leases (\d+)/m)).toBeGreaterThanOrEqual(2);
      expect(metrics).toMatch(/^wyvern_move_input_delay_seconds_count \d+/m);

      const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as {
        role: string;
        id: string;
        zones: string[];
        cluster: { gateways: { id: string }[]; zoneHosts: { id: string; zones: string[] }[] };
      };
      expect(health).toMatchObject({ role: 'zone-host', id: 'zh-a', zones: ['testvale'] });
      expect(health.cluster.gateways.map((g) => g.id)).toEqual(['a', 'b']);
      expect(health.cluster.zoneHosts.map((h) => [h.id, h.zones])).toEqual([
        ['zh-a', ['testvale']],
        ['zh-b', ['testwold']],
      ]);

      const gateway = (await (await fetch(`http://127.0.0.1:${gw[0]!.httpPort}/healthz`)).json()) as {
        cluster: { zoneHosts: { id: string; httpPort: number }[] };
      };
      expect(gateway.cluster.zoneHosts.map((h) => [h.id, h.httpPort])).toEqual([
        ['zh-a', hostHttp['zh-a']],
        ['zh-b', hostHttp['zh-b']],
      ]);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);

      // The gateways counted their registry lookups: whispers (character), resumes (the token,
      // and the account's character held elsewhere).
      const lookups = async (httpPort: number, kind: string) => {
        const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
        const m = new RegExp(`^wyvern_registry_lookups_total\\{kind="${kind}"\\} (\\d+)`, 'm').exec(text);
        return Number(m?.[1] ?? NaN);
      };
      expect(await lookups(gw[0]!.httpPort, 'character')).toBeGreaterThanOrEqual(2);
      expect(await lookups(gw[1]!.httpPort, 'resume')).toBeGreaterThanOrEqual(2);
      expect(await lookups(gw[1]!.httpPort, 'session')).toBeGreaterThanOrEqual(2);
    });
  },
);
