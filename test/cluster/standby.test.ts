/**
 * The cluster as README lays it out with a standby (`npm run cluster -- --gateways 2
 * --zone-hosts 2 --standby 1`), over a real nats-server: two zones on two zone hosts
 * (`ZONES=Westmark`, `ZONES=Eastmark`), one standby for every zone (`ZONE_STANDBY=on`) and two
 * gateways, players of both zones on both gateways. The zone hosts are killed (SIGKILL) in
 * turn, in either order, once after a gateway was killed: each time the dead host's players are
 * back in the world on the standby within two lease TTLs, the other zone plays on untouched,
 * a walker crosses between the standby's zone and the other host's, and who, whisper and
 * logout work. The registry never names a host for a zone that host does not run.
 *
 * Recovery times are printed for the record; the only bound asserted is the two TTLs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { WyvernClient } from '../../shared/client/client.js';
import { ChatMessage, EnterWorld, ErrorPacket, ZoneChanged } from '../../shared/protocol/index.js';
import {
  resumeGameClient,
  startGameClient,
  walkTo,
  type GameClient,
  type PacketLog,
} from '../helpers/game-client.js';
import type { RoleProcess } from './roles.js';
import { startTwoZoneCluster, type TwoZoneCluster, type Zone } from './two-zones.js';
import { until } from './until.js';
import { describeWithNats } from './with-nats.js';

/** As in faults.test.ts: seconds per recovery, and a loaded machine does not look like a death. */
const LEASE_TTL_MS = 3000;
const AUTOSAVE_MS = 300;
const LINGER_MS = 3000;

const other = (zone: Zone): Zone => (zone === 'Westmark' ? 'Eastmark' : 'Westmark');
/** Just past the line (x = 600) into `zone`, far enough to be handed over. */
const across = (zone: Zone) => ({ x: zone === 'Eastmark' ? 660 : 540, y: 300 });

interface HostHealth {
  status: string;
  zones: string[];
  players: number;
}
interface GatewayHealth {
  cluster: { zoneHosts: { id: string; httpPort?: number; zones: string[] }[] };
}

async function health<T>(port: number): Promise<{ code: number; body: T }> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { code: res.status, body: (await res.json()) as T };
}

/** A player, on whichever connection it has now (a resume makes a new one). */
interface Player {
  readonly name: string;
  zone: Zone;
  client: WyvernClient;
  log: PacketLog;
  game: GameClient;
  close(): void;
}

function standbyCluster(title: string, order: { first: Zone; gatewayKilledFirst: boolean }): void {
  describeWithNats(title, (nats) => {
    let cluster: TwoZoneCluster | undefined;
    let hosts: Readonly<Record<Zone, RoleProcess>>;
    let standbyHttp: number;
    let gatewayA: RoleProcess;
    let gateways: readonly { tcpPort: number; httpPort: number }[];
    const players: Player[] = [];
    const figures: Record<string, number> = {};
    let probes = 0;

    const inZone = (zone: Zone) => players.filter((p) => p.zone === zone);

    beforeAll(async () => {
      cluster = await startTwoZoneCluster({
        name: 'standby',
        natsUrl: nats().url,
        logLevel: process.env['FAULTS_DEBUG'] ? 'info' : 'warn',
        gateways: ['a', 'b'],
        standby: true,
        env: {
          LEASE_TTL_MS: String(LEASE_TTL_MS),
          LINGER_MS: String(LINGER_MS),
          COMBAT_LINGER_MS: '0',
          AUTOSAVE_INTERVAL_MS: String(AUTOSAVE_MS),
        },
      });
      hosts = cluster.hosts;
      standbyHttp = cluster.standbyHttp!;
      gatewayA = cluster.gateways[0]!;
      gateways = cluster.ports;
      // A player of each zone on each gateway. Everyone starts in Westmark, near the line; the
      // Eastmark players walk over it (handed from zh-w to zh-e).
      const cast: [string, Zone, number][] = [
        ['Wanda', 'Westmark', 0],
        ['Ezra', 'Eastmark', 0],
        ['Wes', 'Westmark', 1],
        ['Eve', 'Eastmark', 1],
      ];
      for (const [name, zone, gw] of cast) {
        const game = await startGameClient(gateways[gw]!, { transport: gw === 0 ? 'tcp' : 'ws', name });
        players.push({ name, zone: 'Westmark', client: game.client, log: game.log, game, close: game.close });
        if (zone === 'Eastmark') await cross(players.at(-1)!, 'Eastmark');
      }
      // Everyone saved where they stand (a zone host killed puts them back from their saves).
      await new Promise((resolve) => setTimeout(resolve, AUTOSAVE_MS * 4));
    }, 120_000);

    afterAll(async () => {
      if (process.env['FAULTS_DEBUG']) for (const r of cluster?.roles ?? []) console.log(r.lines.join('\n'));
      for (const p of players) p.close();
      // Gateways first, then the zone hosts (which save everyone).
      await cluster?.stop();
      console.log(`standby (${title}): recovery times (ms) ${JSON.stringify(figures)}`);
    }, 60_000);

    /** Walks `p` over the line into `zone`: its client is told the zone changed. */
    async function cross(p: Player, zone: Zone): Promise<void> {
      const since = p.log.mark();
      await walkTo(p.game, across(zone));
      await p.log.expect(ZoneChanged, { since, predicate: (z) => z.zone === zone });
      p.zone = zone;
    }

    /** The live gateway's /healthz port. */
    const gatewayHttp = (): number => gateways[order.gatewayKilledFirst ? 1 : 0]!.httpPort;

    /**
     * Waits until the registry (as a gateway's /healthz shows it) names `host` for `zones`,
     * then checks that every host it names for a zone says itself that it runs that zone.
     */
    async function registryNames(host: string, zones: string[]): Promise<void> {
      let view: GatewayHealth | undefined;
      await until(
        async () => {
          view = (await health<GatewayHealth>(gatewayHttp())).body;
          const named = view.cluster.zoneHosts.find((h) => h.id === host)?.zones ?? [];
          return named.join() === [...zones].sort().join();
        },
        LEASE_TTL_MS * 2,
        `the registry naming ${host} for ${zones.join(', ')}`,
      );
      for (const h of view!.cluster.zoneHosts) {
        if (h.zones.length === 0) continue;
        const own = await health<HostHealth>(h.httpPort!);
        expect(own.body.zones, `${h.id} runs what the registry names it for`).toEqual(
          expect.arrayContaining(h.zones),
        );
      }
    }

    /** `from` whispers `to` (on any gateway, in any zone), and `to` hears it. */
    async function whispers(from: Player, to: Player): Promise<void> {
      const text = `psst ${++probes}`;
      const since = to.log.mark();
      from.client.whisper(to.name, text);
      const got = await to.log.expect(ChatMessage, {
        since,
        predicate: (m) => m.channel === 'whisper' && m.text === text,
        timeoutMs: 10_000,
      });
      expect(got.from).toBe(from.name);
    }

    /** Who, asked by each player, lists every player in its zone. */
    async function whoListsEveryone(): Promise<void> {
      const want = players.map((p) => `${p.zone}:${p.name}`).sort();
      for (const asker of players) {
        const who = await asker.client.who();
        expect(who.players.map((p) => `${p.zone}:${p.name}`).sort(), `who asked by ${asker.name}`).toEqual(
          want,
        );
      }
    }

    /**
     * Kills the host of `zone`: its players are told ERR_ZONE_DOWN, stay connected, and are back
     * in the world within two lease TTLs; the other zone's players see no error.
     */
    async function killHostOf(zone: Zone): Promise<void> {
      const mine = inZone(zone);
      const others = inZone(other(zone));
      expect(mine.length).toBeGreaterThan(0);
      const since = new Map(players.map((p) => [p, p.log.mark()]));
      const killed = performance.now();
      const deadline = killed + LEASE_TTL_MS * 2;
      await hosts[zone].kill();
      await Promise.all(
        mine.map(async (p) => {
          const down = await p.log.expect(ErrorPacket, {
            since: since.get(p),
            predicate: (e) => e.code === 'ERR_ZONE_DOWN',
            timeoutMs: Math.max(1, deadline - performance.now()),
          });
          expect(down.fatal).toBe(false);
          const downAt = performance.now();
          figures[`${zone}:killToZoneDown`] ??= Math.round(downAt - killed);
          const back = await p.log.expect(EnterWorld, {
            since: since.get(p),
            timeoutMs: Math.max(1, deadline - performance.now()),
          });
          expect(back.name).toBe(p.name);
          const most = (key: string, ms: number) =>
            (figures[`${zone}:${key}`] = Math.max(figures[`${zone}:${key}`] ?? 0, Math.round(ms)));
          most('killToEnterWorld', performance.now() - killed);
          most('zoneDownToEnterWorld', performance.now() - downAt);
        }),
      );
      for (const p of [...mine, ...others]) expect(p.client.closeReason, p.name).toBeUndefined();
      for (const p of others)
        expect(
          p.log.all(ErrorPacket, () => true, since.get(p)),
          p.name,
        ).toEqual([]);
    }

    it('stands by running nothing, and says so: well, no zone, named for none', async () => {
      const h = await health<HostHealth>(standbyHttp);
      expect(h.code).toBe(200);
      expect(h.body).toMatchObject({ status: 'standby', zones: [], players: 0 });
      await registryNames('zh-s', []);
      await whoListsEveryone();
    });

    if (order.gatewayKilledFirst) {
      it("resumes a killed gateway's players on the other gateway", async () => {
        const onA = players.slice(0, 2);
        await gatewayA.kill();
        const killed = performance.now();
        for (const p of onA) {
          const stood = { x: p.client.world.self!.x, y: p.client.world.self!.y };
          const r = await resumeGameClient(gateways[1]!, 'tcp', p, { label: `${p.name} on b` });
          expect(r.result.entered?.enter.entityId).toBe(p.game.entityId);
          expect(
            Math.hypot(r.result.entered!.enter.x - stood.x, r.result.entered!.enter.y - stood.y),
          ).toBeLessThan(0.5);
          p.client = r.client;
          p.log = r.log;
          p.game = { ...p.game, client: r.client, log: r.log };
          p.close = r.close;
        }
        figures['gatewayKillToBothResumed'] = Math.round(performance.now() - killed);
      });
    }

    it(`puts ${order.first}'s players back on the standby when its host is killed, the other zone untouched`, async () => {
      await killHostOf(order.first);
      const h = await health<HostHealth>(standbyHttp);
      expect(h.body).toMatchObject({ status: 'ok', zones: [order.first.toLowerCase()] });
      await registryNames('zh-s', [order.first.toLowerCase()]);
      await whoListsEveryone();
      const [mine, theirs] = [inZone(order.first)[0]!, inZone(other(order.first))[0]!];
      await whispers(mine, theirs);
      await whispers(theirs, mine);
    }, 60_000);

    it(`hands a walker from the standby's ${order.first} to the other host's ${other(order.first)}`, async () => {
      await cross(inZone(order.first)[0]!, other(order.first));
      await whoListsEveryone();
    }, 30_000);

    it(`puts ${other(order.first)}'s players back on the standby when its host is killed too; who, whisper and logout work`, async () => {
      const second = other(order.first);
      await killHostOf(second);
      const h = await health<HostHealth>(standbyHttp);
      expect(h.body).toMatchObject({ status: 'ok', players: players.length });
      expect([...h.body.zones].sort()).toEqual(['eastmark', 'westmark']);
      await registryNames('zh-s', ['eastmark', 'westmark']);
      await whoListsEveryone();
      await whispers(players[0]!, players[3]!);
      await whispers(players[3]!, players[1]!);
      // A player of each zone logs out and comes back where it stood.
      for (const p of [inZone('Westmark')[0]!, inZone('Eastmark')[0]!]) {
        const stood = { x: p.client.world.self!.x, y: p.client.world.self!.y };
        await p.client.logout();
        const who = await players.find((q) => q !== p)!.client.who();
        expect(who.players.map((q) => q.name)).not.toContain(p.name);
        const again = await p.client.enterWorld(p.game.characterId);
        expect(again.enter.zone).toBe(p.zone);
        expect(Math.hypot(again.enter.x - stood.x, again.enter.y - stood.y)).toBeLessThan(0.5);
      }
      await whoListsEveryone();
    }, 60_000);
  });
}

standbyCluster('a standby for two zone hosts: the first zone host killed after a gateway, then the other', {
  first: 'Westmark',
  gatewayKilledFirst: true,
});
standbyCluster('a standby for two zone hosts: the second zone host killed first, then the other', {
  first: 'Eastmark',
  gatewayKilledFirst: false,
});
