/**
 * Two zones side by side in one process, over real sockets: a walker crosses the border
 * while a player stands on each side. Each observer draws the walker from its world view
 * without a break (no despawn, no stall, no jump), the walker is never corrected, and on the
 * far side it is seen, heard and listed in the zone it walked into.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** Two 600 × 600 zones meeting at x = 600; players start near the line, mobs far from it. */
function twoZones(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-border-'));
  cpSync('data/test', dir, { recursive: true });
  rmSync(join(dir, 'zones'), { recursive: true });
  mkdirSync(join(dir, 'zones'));
  const zone = (name: string, number: number, x: number, spawn: { x: number; y: number }) => ({
    name,
    number,
    x,
    y: 0,
    width: 600,
    height: 600,
    playerSpawn: spawn,
    graveyard: { x: x + 300, y: 560 },
    obstacles: [{ x: x + 100, y: 500, w: 40, h: 40 }],
    spawns: [{ template: 1, x: x === 0 ? 60 : 1140, y: 560, count: 1 }],
  });
  writeFileSync(
    join(dir, 'zones', 'westmark.json'),
    JSON.stringify(zone('Westmark', 1, 0, { x: 560, y: 300 })),
  );
  writeFileSync(
    join(dir, 'zones', 'eastmark.json'),
    JSON.stringify(zone('Eastmark', 2, 600, { x: 900, y: 300 })),
  );
  return dir;
}

interface Sample {
  t: number;
  x: number;
  present: boolean;
}

/** Samples where `observer` draws entity `id`, every 20 ms, until stopped. */
function watch(observer: GameClient, id: number): { stop: () => Sample[] } {
  const out: Sample[] = [];
  // Server time, run on from the newest WorldUpdate's (quiet ticks send none).
  let anchor = { server: 0, local: 0 };
  const timer = setInterval(() => {
    const c = observer.client;
    const e = c.world.get(id);
    const last = c.lastTick;
    if (!last) return;
    const now = performance.now();
    if (last.serverTime > anchor.server) anchor = { server: last.serverTime, local: now };
    const t = anchor.server + (now - anchor.local);
    out.push({ t, x: e ? c.world.positionAt(e, t).x : NaN, present: e !== undefined });
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return out;
    },
  };
}

describe('a walk across the border in one process', () => {
  let dataDir: string;
  let world: WorldServer;
  let walker: GameClient;
  let west: GameClient;
  let east: GameClient;

  beforeAll(async () => {
    dataDir = twoZones();
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
    await walkTo(walker, { x: 690, y: 330 }, { step: 6, intervalMs: 50 });
    await sleep(200);
    const samples = { west: seen.west.stop(), east: seen.east.stop() };

    await walker.log.expect(ZoneChanged, { predicate: (z) => z.zone === 'Eastmark', since: since.walker });
    expect(walker.log.all(PositionCorrection, () => true, since.walker)).toEqual([]);
    for (const side of ['west', 'east'] as const) {
      const log = side === 'west' ? west.log : east.log;
      const despawns = log.records('despawn', (r) => r.id === walker.entityId, since[side]);
      expect(despawns, `${side} saw the walker despawn`).toEqual([]);
      const s = samples[side];
      expect(
        s.every((p) => p.present),
        `${side} lost the walker`,
      ).toBe(true);
      // Server time between two states of the walker's drawn position that differ: no stall
      // longer than two ticks while it walks, and no jump.
      const walking = s.filter((p) => p.x > 541 && p.x < 689);
      let still = 0;
      let maxStill = 0;
      for (let i = 1; i < walking.length; i++) {
        const dx = walking[i]!.x - walking[i - 1]!.x;
        expect(Math.abs(dx), `${side}: a jump of ${dx}`).toBeLessThan(20);
        if (dx <= 0 && walking[i]!.t > walking[i - 1]!.t) still += walking[i]!.t - walking[i - 1]!.t;
        else if (dx > 0) still = 0;
        maxStill = Math.max(maxStill, still);
      }
      expect(maxStill, `${side}: the walker stood still for ${maxStill} ms`).toBeLessThanOrEqual(100);
    }

    // On the far side: it is Eastmark's, heard there, and listed there.
    walker.client.say('over the line');
    await east.log.expect(ChatMessage, { predicate: (m) => m.text === 'over the line' });
    const who = await walker.client.who();
    expect(who.players.find((p) => p.name === walker.name)?.zone).toBe('Eastmark');
  });
});
