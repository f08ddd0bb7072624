import { afterEach, describe, expect, it, vi } from 'vitest';
import { MOB_ID_BASE } from '../../shared/protocol/common.js';
import type { EntityRecord } from '../../shared/protocol/records.js';
import { DEMO_TICK_MS, DemoServer } from '../../web-client/src/net/demo.js';
import { openPage } from './page.js';

const WOLF = MOB_ID_BASE + 1;
const BOAR = MOB_ID_BASE + 2;
const CORPSE = MOB_ID_BASE + 3;

afterEach(() => {
  vi.useRealTimers();
});

/**
 * The demo world fed through the page's path (the SDK, then the page), on a fake clock. Its
 * bytes cross an in-memory connection (a microtask a write), so time advances asynchronously.
 */
async function runDemo() {
  vi.useFakeTimers();
  let now = 1_700_000_000_000;
  const records: EntityRecord[] = [];
  const server = new DemoServer(() => now);
  const page = openPage({
    onPacket: (p) => {
      if (p.name === 'WorldUpdate') records.push(...p.value.records);
    },
    toServer: (bytes) => server.transport.send(bytes),
  });
  const world = page.world;
  server.transport.onBytes = (bytes) => page.push(now, bytes);
  server.start();
  await vi.advanceTimersByTimeAsync(0);
  return {
    world,
    page,
    server,
    records,
    get now() {
      return now;
    },
    /** Runs the demo for `ms` of its time, calling `each` after every tick. */
    async run(ms: number, each: () => void = () => {}) {
      for (let t = 0; t < ms; t += DEMO_TICK_MS) {
        now += DEMO_TICK_MS;
        await vi.advanceTimersByTimeAsync(DEMO_TICK_MS);
        each();
      }
    },
    /** Lets what is in flight on the connection arrive. */
    settle: () => vi.advanceTimersByTimeAsync(0),
  };
}

describe('demo world', () => {
  it('speaks WorldUpdate: every spawn followed by its motion, movers drawn on their routes', async () => {
    const demo = await runDemo();
    expect(demo.world.self?.id).toBe(1);
    expect([...demo.world.entities.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, WOLF, BOAR, CORPSE]);
    expect(demo.world.entities.get(CORPSE)).toMatchObject({ alive: false });
    // Borin spawns at his circle's centre and steps onto it with the first tick: measure after.
    await demo.run(1_000);
    let worst = { borin: 0, cyra: 0, wolf: 0 };
    await demo.run(20_000, () => {
      const at = (id: number) => demo.world.drawnPosition(demo.world.entities.get(id)!, demo.now);
      const borin = at(2);
      const cyra = at(3);
      const wolf = at(WOLF);
      worst = {
        // Borin walks a circle of radius 70 about (700, 640): drawn on it, within a chord's sag.
        borin: Math.max(worst.borin, Math.abs(Math.hypot(borin.x - 700, borin.y - 640) - 70)),
        // Cyra paces 860..980 on y = 660: never drawn past either end.
        cyra: Math.max(worst.cyra, 860 - cyra.x, cyra.x - 980, Math.abs(cyra.y - 660)),
        // The wolf patrols the box 1000..1150 × 500..700.
        wolf: Math.max(worst.wolf, 1000 - wolf.x, wolf.x - 1150, 500 - wolf.y, wolf.y - 700),
      };
    });
    expect(worst.borin).toBeLessThan(1);
    expect(worst.cyra).toBeLessThan(1);
    expect(worst.wolf).toBeLessThan(1);
    for (let i = 0; i < demo.records.length; i++) {
      const r = demo.records[i]!;
      if (r.kind !== 'spawn') continue;
      const next = demo.records[i + 1];
      expect(next?.id).toBe(r.id);
      expect(['move', 'path']).toContain(next?.kind);
    }
    expect(demo.records.some((r) => r.kind === 'path' && r.id === WOLF)).toBe(true);
    expect(demo.records.some((r) => r.kind === 'health' && r.id === 2)).toBe(true);
    demo.server.close();
  });

  it('kills the boar and brings it back fresh', async () => {
    const demo = await runDemo();
    let sawDead = false;
    let back = false;
    await demo.run(90_000, () => {
      const boar = demo.world.entities.get(BOAR);
      if (boar && !boar.alive) sawDead = true;
      else if (sawDead && boar?.alive && boar.health === 400) back = true;
    });
    expect(sawDead).toBe(true);
    expect(back).toBe(true);
    expect(demo.records.some((r) => r.kind === 'death' && r.id === BOAR)).toBe(true);
    expect(demo.records.some((r) => r.kind === 'despawn' && r.id === BOAR && r.reason === 'corpse')).toBe(
      true,
    );
    demo.server.close();
  });

  it("acks the own character's movement states, sent through the SDK: no correction, nothing left pending", async () => {
    const demo = await runDemo();
    const world = demo.world;
    const pr = world.self!.predictor;
    const client = demo.page.client;
    let t = 0;
    const frame = (dx: number, dy: number) => {
      t += 16;
      pr.step(dx, dy, 16);
      pr.takeInput(demo.now + t, (s) => client.sendMove(s.x, s.y, s.facing, s.moving, s.speed));
    };
    for (let i = 0; i < 60; i++) frame(1, 0);
    for (let i = 0; i < 60; i++) frame(0, 1);
    frame(0, 0);
    await demo.settle();
    const moves = demo.page.sent.filter((m) => m.name === 'MoveInput');
    expect(moves.length).toBeGreaterThanOrEqual(3);
    expect(client.lastMoveSeq).toBe(moves.length);
    expect(pr.pending).toHaveLength(0);
    expect(pr.corrections).toBe(0);
    expect(world.view.lastAckedSeq).toBe(moves.length);
    expect(pr.confirmed).toEqual({ x: pr.x, y: pr.y });
    demo.server.close();
  });
});
