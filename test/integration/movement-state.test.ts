/**
 * Movement as state over real sockets: a walker sends its movement state the way a client
 * does (start, heartbeats, stop, through MoveSender) and an observer, drawing it from its world
 * view a little in the past as the browser does, sees it walk at an even speed and stop where
 * it stopped. Over TCP, and over WebSocket with each engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MoveSender } from '../../shared/client/move-sender.js';
import { INTERPOLATION_DELAY_MS } from '../../shared/game/interpolation.js';
import { PositionCorrection } from '../../shared/protocol/movement.js';
import { loadNativeUws } from '../../server/transport/web.js';
import {
  sleep,
  startGameClient,
  startWorldServer,
  type GameClient,
  type GameTransport,
  type WorldServer,
} from '../helpers/game-client.js';

const SPEED = 120;
const FRAME_MS = 50;
const FROM = { x: 100, y: 100 };
const TO = { x: 100, y: 260 };

/** Walks `game` from where it stands to `to` in frames of FRAME_MS, sending states as a client does. */
async function walk(game: GameClient, to: { x: number; y: number }): Promise<void> {
  const client = game.client;
  const self = client.world.self!;
  const sender = new MoveSender();
  sender.reset(performance.now(), self.x, self.y, self.facing);
  const heading = Math.atan2(to.y - self.y, to.x - self.x);
  let x = self.x;
  let y = self.y;
  let last = performance.now();
  for (;;) {
    await sleep(FRAME_MS);
    const now = performance.now();
    const left = Math.hypot(to.x - x, to.y - y);
    const step = Math.min(left, (SPEED * (now - last)) / 1000);
    last = now;
    x += Math.cos(heading) * step;
    y += Math.sin(heading) * step;
    const arrived = step >= left;
    const state = sender.update(now, x, y, heading, !arrived, SPEED);
    if (state) client.sendMove(state.x, state.y, state.facing, state.moving, state.speed);
    if (arrived) return;
  }
}

const routes: [string, GameTransport, Record<string, string>][] = [
  ['tcp', 'tcp', {}],
  ['WebSocket (ws)', 'ws', { WS_ENGINE: 'ws' }],
];
if (loadNativeUws()) routes.push(['WebSocket (uWS)', 'ws', { WS_ENGINE: 'uws' }]);

describe.each(routes)('a walker seen by an observer over %s', (_name, transport, env) => {
  let world: WorldServer;
  let walker: GameClient;
  let observer: GameClient;

  beforeAll(async () => {
    world = await startWorldServer(env);
    const ports = { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort };
    walker = await startGameClient(ports, { transport, name: 'Strider' });
    observer = await startGameClient(ports, { transport, name: 'Watcher' });
    await observer.log.expectRecord('spawn', { predicate: (s) => s.id === walker.entityId });
  });

  afterAll(async () => {
    walker?.close();
    observer?.close();
    await world?.stop();
  });

  it('walks at an even speed and stops where it stopped, without overshooting', async () => {
    expect(walker.client.world.self).toMatchObject(FROM);
    const view = observer.client.world;
    const samples: { t: number; x: number; y: number }[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const entity = view.get(walker.entityId);
        const t = observer.client.serverNow() - INTERPOLATION_DELAY_MS;
        if (entity) samples.push({ t, ...view.positionAt(entity, t) });
        await sleep(10);
      }
    })();
    const since = observer.log.mark();
    await walk(walker, TO);
    const stop = await observer.log.expectRecord('move', {
      since,
      predicate: (m) => m.id === walker.entityId && !m.moving,
    });
    // Until everything the observer draws is past the stop.
    await sleep(INTERPOLATION_DELAY_MS + 300);
    sampling = false;
    await sampler;

    expect(walker.log.all(PositionCorrection)).toEqual([]);
    expect(stop.x).toBeCloseTo(TO.x, 0);
    expect(stop.y).toBeCloseTo(TO.y, 0);
    // Never beyond the stop along the walk (y grows toward it), and at rest on it at the end.
    const furthest = Math.max(...samples.map((s) => s.y));
    expect(furthest).toBeLessThanOrEqual(TO.y + 1);
    const lastSample = samples.at(-1)!;
    expect(Math.hypot(lastSample.x - TO.x, lastSample.y - TO.y)).toBeLessThanOrEqual(1);

    // Mid-walk speed, over 200 ms windows away from the start and the stop: within 10%.
    const moving = samples.filter((s) => s.y > FROM.y + 20 && s.y < TO.y - 20);
    expect(moving.length).toBeGreaterThan(20);
    const speeds: number[] = [];
    for (let i = 0, j = 0; i < moving.length; i++) {
      while (j < moving.length && moving[j]!.t - moving[i]!.t < 200) j++;
      if (j >= moving.length) break;
      const a = moving[i]!;
      const b = moving[j]!;
      speeds.push((Math.hypot(b.x - a.x, b.y - a.y) * 1000) / (b.t - a.t));
    }
    expect(speeds.length).toBeGreaterThan(5);
    for (const v of speeds) {
      expect(v).toBeGreaterThan(SPEED * 0.9);
      expect(v).toBeLessThan(SPEED * 1.1);
    }
  });
});
