/**
 * Two zones on two zone-host processes over a real nats-server (`ZONES=Westmark` on one,
 * `ZONES=Eastmark` on the other) and one gateway: the hosts share their border strips over
 * NATS, and a walker crossing the line is handed from one host to the other while a player
 * on each side watches it without a break; the walker is never corrected, and is heard on
 * the far side.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChatMessage, PositionCorrection, ZoneChanged } from '../../shared/protocol/index.js';
import { breaks, stride, watch } from '../helpers/border.js';
import { sleep, startGameClient, walkTo, type GameClient } from '../helpers/game-client.js';
import { startTwoZoneCluster, type TwoZoneCluster } from './two-zones.js';
import { describeWithNats } from './with-nats.js';
import { until } from './until.js';

describeWithNats('a walk across the border between two zone hosts over NATS', (nats) => {
  let cluster: TwoZoneCluster | undefined;
  let walker: GameClient;
  let west: GameClient;
  let east: GameClient;
  /** The zone hosts' /metrics ports. */
  let hostHttp: { west: number; east: number };

  beforeAll(async () => {
    cluster = await startTwoZoneCluster({
      name: 'border-cluster',
      natsUrl: nats().url,
      logLevel: 'warn',
      gateways: ['gw'],
    });
    hostHttp = { west: cluster.hostHttp.Westmark, east: cluster.hostHttp.Eastmark };
    const ports = cluster.ports[0]!;
    east = await startGameClient(ports, { transport: 'tcp', name: 'Eastward' });
    west = await startGameClient(ports, { transport: 'ws', name: 'Westward' });
    walker = await startGameClient(ports, { transport: 'tcp', name: 'Strider' });
  }, 120_000);

  afterAll(async () => {
    walker?.close();
    west?.close();
    east?.close();
    // The gateway first, then the zone hosts (which save everyone).
    await cluster?.stop();
  }, 60_000);

  const handoffs = async (port: number, kind: string): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`wyvern_handoffs_total{kind="${kind}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it('hands the walker from one host to the other, watched without a break from both sides', async () => {
    // The east observer walks over first (handed to the other host), the walker to its start.
    await walkTo(east, { x: 660, y: 300 });
    await east.log.expect(ZoneChanged, { predicate: (z) => z.zone === 'Eastmark' });
    await walkTo(walker, { x: 540, y: 330 });
    await walkTo(west, { x: 520, y: 280 });
    await sleep(300);
    expect(west.client.world.get(walker.entityId)).toBeDefined();
    // Across the border: the west zone's walker is a ghost on the east host.
    expect(east.client.world.get(walker.entityId)).toBeDefined();
    expect(west.client.world.get(east.entityId)).toBeDefined();

    const since = { west: west.log.mark(), east: east.log.mark(), walker: walker.log.mark() };
    const seen = { west: watch(west, walker.entityId), east: watch(east, walker.entityId) };
    await stride(walker, 690);
    await sleep(200);
    const samples = { west: seen.west.stop(), east: seen.east.stop() };

    await walker.log.expect(ZoneChanged, { predicate: (z) => z.zone === 'Eastmark', since: since.walker });
    expect(walker.log.all(PositionCorrection, () => true, since.walker)).toEqual([]);
    for (const side of ['west', 'east'] as const) {
      const log = side === 'west' ? west.log : east.log;
      expect(
        log.records('despawn', (r) => r.id === walker.entityId, since[side]),
        side,
      ).toEqual([]);
      expect(breaks(samples[side], 541, 689, 100), side).toEqual([]);
    }

    walker.client.say('over the line');
    await east.log.expect(ChatMessage, { predicate: (m) => m.text === 'over the line' });

    // Each host counts its side of the two hand-offs (the east observer's, then the walker's).
    expect(await handoffs(hostHttp.west, 'sent')).toBe(2);
    expect(await handoffs(hostHttp.east, 'received')).toBe(2);
    expect(await handoffs(hostHttp.east, 'refused')).toBe(0);
  });

  it('gives the walker back to its zone when the host beyond stalls as it crosses, and that host refuses the late requests', async () => {
    await walkTo(walker, { x: 625, y: 330 });
    const since = { walker: walker.log.mark(), east: east.log.mark() };
    const zhW = cluster!.hosts.Westmark;
    // Its last strip is recent: the east host still hands players across for a moment.
    zhW.proc.kill('SIGSTOP');
    let corrected;
    try {
      await stride(walker, 575);
      // Three requests go unanswered (a second each); the walker steps back into Eastmark.
      corrected = await walker.log.expect(PositionCorrection, { since: since.walker, timeoutMs: 10_000 });
    } finally {
      zhW.proc.kill('SIGCONT');
    }
    expect(corrected.x).toBeGreaterThanOrEqual(600);
    // Its own zone sends it its view anew (ZoneChanged names that zone), and nothing else.
    expect(walker.log.all(ZoneChanged, () => true, since.walker).map((z) => z.zone)).toEqual(['Eastmark']);
    expect(east.log.records('despawn', (r) => r.id === walker.entityId, since.east)).toEqual([]);
    expect(await handoffs(hostHttp.east, 'returned')).toBe(1);
    // It plays on in Eastmark.
    await walkTo(walker, { x: 650, y: 330 });
    // The woken host refuses the requests it finds waiting (too old), so the walker is not in
    // its zone too.
    await until(
      async () => (await handoffs(hostHttp.west, 'refused')) >= 1,
      10_000,
      'the late requests refused',
    );
    const health = (await (await fetch(`http://127.0.0.1:${hostHttp.west}/healthz`)).json()) as {
      players: number;
    };
    expect(health.players).toBe(1);
  });
});
