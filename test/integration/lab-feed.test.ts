/**
 * The lab feed over real HTTP on both engines: true positions around a named character, one
 * answer per tick, bounded in radius and in requests waiting at once; off, it is not there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RADIUS, MAX_WAITING, type LabSnapshot } from '../../server/lab/feed.js';
import {
  startGameClient,
  startWorldServer,
  walkTo,
  type GameClient,
  type WorldServer,
} from '../helpers/game-client.js';

describe.each(['uws', 'ws'] as const)('lab feed on %s', (engine) => {
  let world: WorldServer;
  let ayla: GameClient;
  let bram: GameClient;
  let base: string;

  beforeAll(async () => {
    world = await startWorldServer({ WS_ENGINE: engine });
    base = `http://127.0.0.1:${world.server.httpPort}`;
    ayla = await startGameClient(world.server, { transport: 'tcp', name: `Ayla${engine}` });
    bram = await startGameClient(world.server, { transport: 'ws', name: `Bram${engine}` });
  }, 30_000);

  afterAll(async () => {
    ayla?.close();
    bram?.close();
    await world?.stop();
  });

  const feed = async (query: string) => {
    const res = await fetch(`${base}/lab/feed?${query}`);
    return { status: res.status, body: (await res.json()) as LabSnapshot & { error?: string } };
  };

  it('streams where the server has a character and everything near it, a tick at a time', async () => {
    const start = ayla.entered.enter;
    await walkTo(ayla, { x: start.x + 40, y: start.y });
    const first = await feed(`name=${ayla.name.toLowerCase()}&radius=400`);
    expect(first.status).toBe(200);
    const me = first.body.entities.find((e) => e.id === ayla.entityId)!;
    const zone = [...world.server.realm.zones.values()][0]!.world;
    const truth = zone.players.get(ayla.entityId)!;
    expect(me).toMatchObject({ kind: 'player', name: ayla.name, alive: true });
    expect(me.x).toBeCloseTo(truth.x, 1);
    expect(me.y).toBeCloseTo(truth.y, 1);
    // When it was there on the server's timeline, and how long its inputs wait for their time.
    expect(me.at).toBe(truth.inputAt);
    expect(me.at).toBeLessThanOrEqual(first.body.time);
    expect(me.held).toBe(truth.timeline.held);
    expect(me.held).toBeGreaterThanOrEqual(0);
    expect(first.body.center).toEqual({ x: me.x, y: me.y });
    expect(first.body.entities.some((e) => e.id === bram.entityId)).toBe(true);
    for (const e of first.body.entities) {
      expect(Math.hypot(e.x - me.x, e.y - me.y)).toBeLessThanOrEqual(400);
    }
    // Asking after a tick waits for the next one.
    const next = await feed(`name=${ayla.name}&after=${first.body.tick}`);
    expect(next.body.tick).toBeGreaterThan(first.body.tick);
    expect(next.body.time).toBeGreaterThan(first.body.time);
  });

  it('refuses a radius beyond its bound, a missing name, and says when nobody has the name', async () => {
    expect((await feed(`name=${ayla.name}&radius=${MAX_RADIUS + 1}`)).status).toBe(400);
    expect((await feed('radius=100')).status).toBe(400);
    const nobody = await feed('name=Nobodyhere');
    expect(nobody.status).toBe(404);
    expect(nobody.body.error).toMatch(/Nobodyhere/);
  });

  it(`answers at most ${MAX_WAITING} requests waiting at once, and the game goes on`, async () => {
    // Far in the future: these wait until their limit, holding every place.
    const held = Array.from({ length: MAX_WAITING }, () => feed(`name=${ayla.name}&after=1000000000`));
    await new Promise((ok) => setTimeout(ok, 100));
    expect((await feed(`name=${ayla.name}`)).status).toBe(503);
    const answers = await Promise.all(held);
    expect(answers.every((a) => a.status === 503)).toBe(true);
    expect((await feed(`name=${ayla.name}`)).status).toBe(200);
    expect(ayla.client.isClosed).toBe(false);
  });
});

describe('lab feed off', () => {
  let world: WorldServer;

  beforeAll(async () => {
    world = await startWorldServer({ LAB_FEED: 'off' });
  });

  afterAll(() => world?.stop());

  it('is not served', async () => {
    const res = await fetch(`http://127.0.0.1:${world.server.httpPort}/lab/feed?name=x`);
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/LAB_FEED=off/);
  });
});
