import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { startWyvern, type WyvernHandle } from '../../server/main.js';
import { quantizeCoord } from '../../shared/protocol/index.js';
import { botCharacterName, quantize } from '../../tools/bots/bot.js';
import { LatencyHistogram } from '../../tools/bots/histogram.js';
import { NavGrid, planArea } from '../../tools/bots/nav.js';
import { runSwarm } from '../../tools/bots/swarm.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';
import { twoZoneData } from '../helpers/border.js';

describe('bot swarm against a real server', () => {
  let server: WyvernHandle;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-bots-'));
    const config = loadConfig(
      {
        HOST: '127.0.0.1',
        HTTP_PORT: '0',
        TCP_PORT: '0',
        LOG_LEVEL: 'silent',
        DATA_DIR: 'data/test',
        DATABASE_URL: `sqlite:${join(dir, 'wyvern.db')}`,
        SRP_WORKERS: '1',
        SHUTDOWN_TIMEOUT_MS: '2000',
      },
      [],
    );
    server = await startWyvern(config, { seed: 7 });
  }, 20_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('brings six bots over tcp and ws into the world and measures move latency without errors', async () => {
    const summary = await runSwarm({
      count: 6,
      duration: 3,
      transport: 'mix',
      tcpPort: server.tcpPort,
      httpPort: server.httpPort,
      area: { kind: 'rect', area: { x: 60, y: 60, w: 120, h: 120 } },
      progress: false,
      castChance: 0,
      chatChance: 0.5,
    });
    expect(summary.grow.inWorld).toBe(6);
    expect(summary.grow.failed).toBe(0);
    expect(summary.play.latency.count).toBeGreaterThan(0);
    expect(summary.play.errors).toEqual({});
    expect(summary.play.disconnects).toBe(0);
    expect(summary.play.inView.players).toBeGreaterThan(0);
    // Movement went out as state and every WorldUpdate parsed in place.
    expect(summary.play.moves.sentPerSecond).toBeGreaterThan(0);
    expect(summary.play.moves.sentRatio).toBeGreaterThanOrEqual(0.95);
    expect(summary.play.updates.recordsPerSecond).toBeGreaterThan(0);
    expect(summary.play.updates.bad).toBe(0);
    expect(summary.play.corrections).toBe(0);
  }, 20_000);
});

describe('bots across a border', () => {
  let world: WorldServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = twoZoneData();
    world = await startWorldServer({ DATA_DIR: dataDir });
  }, 20_000);

  afterAll(async () => {
    await world?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('live in an area across the line between two zones: handed back and forth, never corrected', async () => {
    const summary = await runSwarm({
      count: 6,
      duration: 6,
      transport: 'mix',
      tcpPort: world.server.tcpPort,
      httpPort: world.server.httpPort,
      // Westmark is x 0-600, Eastmark 600-1200; the bots start at 560,300.
      area: { kind: 'rect', area: { x: 480, y: 200, w: 240, h: 200 } },
      progress: false,
      castChance: 0,
      chatChance: 0,
    });
    expect(summary.grow.inWorld).toBe(6);
    expect(summary.play.errors).toEqual({});
    expect(summary.play.disconnects).toBe(0);
    expect(summary.play.corrections).toBe(0);
    expect(summary.play.updates.bad).toBe(0);
    const metrics = await (await fetch(`http://127.0.0.1:${world.server.httpPort}/metrics`)).text();
    const local = /wyvern_handoffs_total\{kind="local"\} (\d+)/.exec(metrics);
    expect(Number(local?.[1] ?? 0)).toBeGreaterThan(0);
  }, 30_000);
});

describe('bots after a dropped connection', () => {
  let world: WorldServer;

  beforeAll(async () => {
    world = await startWorldServer({ LINGER_MS: '10000' }, 7);
  }, 20_000);

  afterAll(async () => {
    await world?.stop();
  });

  it('brings bots whose connections the server cut back into the world by resuming', async () => {
    // Once all four are in the world and have walked a little, every connection is cut.
    const cut = setInterval(() => {
      const bots = [...world.server.dispatcher.sessions.values()].filter(
        (x) => x.state === 'inWorld' && x.account?.startsWith('cut'),
      );
      if (bots.length < 4) return;
      clearInterval(cut);
      setTimeout(() => {
        for (const session of bots) session.close('test drop');
      }, 500);
    }, 50);
    try {
      const summary = await runSwarm({
        count: 4,
        duration: 3,
        transport: 'mix',
        prefix: 'cut',
        tcpPort: world.server.tcpPort,
        httpPort: world.server.httpPort,
        area: { kind: 'rect', area: { x: 60, y: 60, w: 120, h: 120 } },
        progress: false,
        castChance: 0,
        chatChance: 0,
      });
      expect(summary.grow.inWorld).toBe(4);
      expect(summary.play.disconnects).toBe(4);
      expect(summary.play.resumes).toBe(4);
      expect(summary.play.resumeFailures).toBe(0);
      expect(summary.play.errors).toEqual({});
      // They walk on after the resume, with their movement matched by the others again.
      expect(summary.play.corrections).toBe(0);
    } finally {
      clearInterval(cut);
    }
  }, 20_000);
});

describe('bot helpers', () => {
  it('quantizes a coordinate sent as f32 as a move record carries it', () => {
    expect(quantize(0)).toBe(0);
    expect(quantize(4096)).toBe(65535);
    expect(quantize(1000)).toBe(Math.round(Math.fround(1000) * (65535 / 4096)));
    // The server keeps the f32 it decoded from MoveInput and quantizes that.
    const v = 1234.5678;
    expect(quantize(v)).toBe(quantizeCoord(Math.fround(v)));
  });

  it('names characters with letters only, distinct per bot', () => {
    const names = new Set([1, 2, 25, 26, 27, 4000].map(botCharacterName));
    expect(names.size).toBe(6);
    for (const n of names) expect(n).toMatch(/^[A-Za-z]{3,16}$/);
  });

  it('reads percentiles from the latency histogram', () => {
    const h = new LatencyHistogram();
    for (let i = 1; i <= 100; i++) h.record(i);
    expect(h.quantile(0.5)).toBeCloseTo(50.1, 1);
    expect(h.quantile(0.99)).toBeCloseTo(99.1, 1);
    expect(h.summary().count).toBe(100);
  });

  it('walks around a wall along the distance field', () => {
    const nav = new NavGrid({ width: 400, height: 400, obstacles: [{ x: 190, y: 0, w: 20, h: 300 }] });
    const goal = nav.anchorFor({ x: 300, y: 100 });
    let at = { x: 100, y: 100 };
    for (let i = 0; i < 200 && nav.field(goal)[nav.cellOf(at)] !== 0; i++) {
      const next = nav.nextStep(at, goal);
      if (!next) break;
      at = next;
    }
    expect(nav.field(goal)[nav.cellOf(at)]).toBe(0);
  });

  it('heads around a wall in a few straight legs, not cell by cell', () => {
    const nav = new NavGrid({ width: 400, height: 400, obstacles: [{ x: 190, y: 0, w: 20, h: 300 }] });
    const goal = nav.anchorFor({ x: 300, y: 100 });
    let at = { x: 100, y: 100 };
    let legs = 0;
    while (nav.field(goal)[nav.cellOf(at)] !== 0 && legs < 40) {
      const next = nav.waypointToward(at, goal);
      expect(next).toBeDefined();
      expect(nav.canMove(at, next!)).toBe(true);
      at = next!;
      legs++;
    }
    expect(nav.field(goal)[nav.cellOf(at)]).toBe(0);
    // Around the wall's end (a path of some 30 cells) in far fewer legs than cells.
    expect(legs).toBeLessThan(12);
  });

  it('finds its way on ground that does not start at 0,0', () => {
    const nav = new NavGrid({
      x: 2000,
      y: 1000,
      width: 400,
      height: 400,
      obstacles: [{ x: 2190, y: 1000, w: 20, h: 300 }],
    });
    const goal = nav.anchorFor({ x: 2300, y: 1100 });
    expect(nav.standable(nav.center(goal))).toBe(true);
    let at = { x: 2100, y: 1100 };
    for (let i = 0; i < 40 && nav.field(goal)[nav.cellOf(at)] !== 0; i++) {
      const next = nav.waypointToward(at, goal);
      expect(next).toBeDefined();
      expect(nav.canMove(at, next!)).toBe(true);
      at = next!;
    }
    expect(nav.field(goal)[nav.cellOf(at)]).toBe(0);
    expect(at.x).toBeGreaterThan(2210);
  });

  it('sizes the spread area for the wanted number in view, capped at the zone', () => {
    const zone = { width: 2000, height: 2000, obstacles: [] };
    const small = planArea({ zone, count: 101, interestRadius: 250, playersInView: 40 });
    expect(small.w).toBeCloseTo(Math.sqrt((100 * Math.PI * 250 * 250) / 40), 0);
    const big = planArea({ zone, count: 10_000, interestRadius: 250, playersInView: 40 });
    expect(big.w).toBeLessThan(2000);
  });
});
