/**
 * Two zones side by side in one process, over real sockets: a walker crosses the border
 * while a player stands on each side. Each observer draws the walker from its world view
 * without a break (no despawn, no stall, no jump), the walker is never corrected, and on the
 * far side it is seen, heard and listed in the zone it walked into.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatMessage, PositionCorrection, ZoneChanged } from '../../shared/protocol/index.js';
import {
  sleep,
  startGameClient,
  startWorldServer,
  walkTo,
  type GameClient,
  type WorldServer,
} from '../helpers/game-client.js';
import { breaks, stride, twoZoneData, watch } from '../helpers/border.js';

describe('a walk across the border in one process', () => {
  let dataDir: string;
  let world: WorldServer;
  let walker: GameClient;
  let west: GameClient;
  let east: GameClient;

  beforeAll(async () => {
    dataDir = twoZoneData();
    world = await startWorldServer({ DATA_DIR: dataDir });
    const ports = { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort };
    east = await startGameClient(ports, { transport: 'tcp', name: 'Eastward' });
    west = await startGameClient(ports, { transport: 'ws', name: 'Westward' });
    walker = await startGameClient(ports, { transport: 'tcp', name: 'Strider' });
  });

  afterAll(async () => {
    walker?.close();
    west?.close();
    east?.close();
    await world?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('hands a walker to the next zone without a break for anyone watching, and it plays on there', async () => {
    // The east observer walks over first (a hand-off of its own), the walker to its start.
    await walkTo(east, { x: 660, y: 300 });
    await east.log.expect(ZoneChanged, { predicate: (z) => z.zone === 'Eastmark' });
    await walkTo(walker, { x: 540, y: 330 });
    await walkTo(west, { x: 520, y: 280 });
    await sleep(300);
    expect(west.client.world.get(walker.entityId)).toBeDefined();
    expect(east.client.world.get(walker.entityId)).toBeDefined();

    const since = { west: west.log.mark(), east: east.log.mark(), walker: walker.log.mark() };
    const seen = { west: watch(west, walker.entityId), east: watch(east, walker.entityId) };
    await stride(walker, 690);
    await sleep(200);
    const samples = { west: seen.west.stop(), east: seen.east.stop() };

    await walker.log.expect(ZoneChanged, { predicate: (z) => z.zone === 'Eastmark', since: since.walker });
    expect(walker.log.all(PositionCorrection, () => true, since.walker)).toEqual([]);
    for (const side of ['west', 'east'] as const) {
      const log = side === 'west' ? west.log : east.log;
      const despawns = log.records('despawn', (r) => r.id === walker.entityId, since[side]);
      expect(despawns, `${side} saw the walker despawn`).toEqual([]);
      expect(breaks(samples[side], 541, 689, 100), side).toEqual([]);
    }

    // On the far side: it is Eastmark's, heard there, and listed there.
    walker.client.say('over the line');
    await east.log.expect(ChatMessage, { predicate: (m) => m.text === 'over the line' });
    const who = await walker.client.who();
    expect(who.players.find((p) => p.name === walker.name)?.zone).toBe('Eastmark');
  });
});
