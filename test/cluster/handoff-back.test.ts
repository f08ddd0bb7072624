/**
 * Ordinary hand-offs back and forth between two zone hosts over a real nats-server, the bus up
 * all along: a walker walks east over the line (Westmark to Eastmark, x = 600) and back west,
 * sending its moves as a browser does (a start, a heartbeat every 250 ms, never waiting for an
 * ack), and stops 30 to 40 units past the line: the stop is the input that carries it over
 * the hand-off margin, as happens when a player stops just past the line. After each crossing
 * its client was told the zone it is in, and its client and a watcher on the other gateway
 * (drawing what the new host sends) agree where it stands, within 0.5 units, with no correction.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PositionCorrection, ZoneChanged } from '../../shared/protocol/index.js';
import { sleep, startGameClient, type GameClient } from '../helpers/game-client.js';
import { startTwoZoneCluster, type TwoZoneCluster } from './two-zones.js';
import { until } from './until.js';
import { describeWithNats } from './with-nats.js';

const CROSSINGS = 4;
/** Where Westmark meets Eastmark. */
const LINE = 600;
/** Between a walker's moves: its client's heartbeat. */
const BEAT_MS = 250;
/** Walking speed, units a second: 20 units a heartbeat. */
const SPEED = 80;

describeWithNats('ordinary hand-offs back and forth between two zone hosts', (nats) => {
  let cluster: TwoZoneCluster | undefined;
  let walker: GameClient;
  let watcher: GameClient;

  beforeAll(async () => {
    cluster = await startTwoZoneCluster({
      name: 'handoff-back',
      natsUrl: nats().url,
      logLevel: 'info',
      gateways: ['a', 'b'],
    });
    const ports = cluster.ports;
    // Both start in Westmark at (560, 300), 40 units from the line; the watcher stands there.
    walker = await startGameClient(ports[0]!, { transport: 'tcp', name: 'Crosser' });
    watcher = await startGameClient(ports[1]!, { transport: 'ws', name: 'Onlooker' });
  }, 120_000);

  afterAll(async () => {
    if (process.env['FAULTS_DEBUG']) {
      for (const r of cluster?.roles ?? []) {
        console.log(r.lines.filter((l) => !l.includes('"level":20')).join('\n'));
      }
    }
    walker?.close();
    watcher?.close();
    await cluster?.stop();
  }, 60_000);

  /** Where the watcher draws the walker now (its newest state, run on to the newest tick). */
  function drawn(): { x: number; y: number } | undefined {
    const c = watcher.client;
    const e = c.world.get(walker.entityId);
    const t = c.lastTick?.serverTime;
    return e && t !== undefined ? c.world.positionAt(e, t) : undefined;
  }

  /**
   * How far apart the walker's client and the watcher's drawing of it are once both have
   * settled: the same twice in a row, 300 ms apart (at most 4 s; what they are then).
   */
  async function apartWhenSettled(): Promise<{ off: number; where: string }> {
    let prev: { self: { x: number; y: number }; seen: { x: number; y: number } } | undefined;
    let result = { off: Infinity, where: 'the walker not drawn' };
    const deadline = Date.now() + 4_000;
    while (Date.now() < deadline) {
      await sleep(300);
      const self = walker.client.world.self;
      const seen = drawn();
      if (!self || !seen) continue;
      const off = Math.hypot(self.x - seen.x, self.y - seen.y);
      result = {
        off,
        where: `client ${self.x.toFixed(1)},${self.y.toFixed(1)}, watcher ${seen.x.toFixed(1)},${seen.y.toFixed(1)}`,
      };
      const still =
        prev !== undefined &&
        Math.hypot(prev.self.x - self.x, prev.self.y - self.y) < 1e-6 &&
        Math.hypot(prev.seen.x - seen.x, prev.seen.y - seen.y) < 1e-6;
      prev = { self: { ...self }, seen: { ...seen } };
      if (still) break;
    }
    return result;
  }

  /**
   * Walks the walker from 30 units short of the line (x = LINE - 30 * dir) over it: moves 20
   * units apart every BEAT_MS (the last 10 units past the line, inside the margin), then its
   * stop 30 units past the line: that stop is the input that carries it past the margin.
   */
  async function walkAndStopPastTheLine(dir: 1 | -1): Promise<void> {
    const c = walker.client;
    const { y } = c.world.self!;
    const facing = dir > 0 ? 0 : Math.PI;
    for (const x of [LINE - 30 * dir, LINE - 10 * dir, LINE + 10 * dir]) {
      c.sendMove(x, y, facing, true, SPEED);
      await sleep(BEAT_MS);
    }
    c.sendMove(LINE + 30 * dir, y, facing, false, 0);
  }

  it(`leaves the walker's client and its host agreeing after each of ${CROSSINGS} crossings`, async () => {
    const apart: string[] = [];
    // To its start, 30 units short of the line, standing.
    const { y } = walker.client.world.self!;
    walker.client.sendMove(LINE - 30, y, 0, false, 0);
    await sleep(500);
    for (let i = 0; i < CROSSINGS; i++) {
      const east = i % 2 === 0;
      const zone = east ? 'Eastmark' : 'Westmark';
      const since = walker.log.mark();
      await walkAndStopPastTheLine(east ? 1 : -1);
      await walker.log.expect(ZoneChanged, { since, predicate: (z) => z.zone === zone });
      const { off, where } = await apartWhenSettled();
      const corrections = walker.log.all(PositionCorrection, () => true, since);
      if (off > 0.5 || corrections.length > 0) {
        apart.push(
          `crossing ${i + 1} into ${zone}: ${off.toFixed(1)} units apart (${where}), ${corrections.length} correction(s)`,
        );
      }
      await until(
        async () => (await walker.client.who()).players.find((p) => p.name === walker.name)?.zone === zone,
        5_000,
        `who saying ${zone}`,
      );
    }
    expect(apart).toEqual([]);
  }, 120_000);
});
