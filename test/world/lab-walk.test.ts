/**
 * The move budget against the lab's own walk and links: the scripted square (legs with a
 * stop at each corner) predicted frame by frame, its states sent as MoveSender sends them,
 * each through the link lab's delay queue (TCP-like: in order, a lost message stalls
 * everything behind it by a retransmission timeout plus a round trip), and applied by the
 * world's step every 50 ms at the time it arrives. Seeded, so every run replays the same
 * arrival timings; an honest walker is never corrected on any of them.
 */
import { describe, expect, it } from 'vitest';
import { MoveSender } from '../../shared/client/move-sender.js';
import { mulberry32, type WorldInput } from '../../server/world/index.js';
import { DelayQueue, type LinkSettings } from '../../web-client/src/state/link-lab.js';
import { SQUARE_WALK, scriptedDirection } from '../../web-client/src/state/lab.js';
import { join, player, received, tick, world } from './builders.js';

const FRAME_MS = 16;
const TICK_MS = 50;

/** Corrections (their reasons) over `durationMs` of the square walk on `link`. */
function walkTheSquare(link: LinkSettings, seed: number, durationMs = 20_000): string[] {
  const w = world({ zone: { obstacles: [] } });
  const p = join(w, player({ x: 400, y: 400 }));
  const up = new DelayQueue<WorldInput>(link, mulberry32(seed));
  const sender = new MoveSender();
  const t0 = w.now;
  sender.reset(t0, p.x, p.y, p.facing);
  let x = p.x;
  let y = p.y;
  let seq = 0;
  const reasons: string[] = [];
  let nextTick = t0 + TICK_MS;
  for (let t = t0 + FRAME_MS; t <= t0 + durationMs; t += FRAME_MS) {
    const dir = scriptedDirection(SQUARE_WALK, t - t0);
    const moving = dir.x !== 0 || dir.y !== 0;
    if (moving) {
      x += (dir.x * p.speed * FRAME_MS) / 1000;
      y += (dir.y * p.speed * FRAME_MS) / 1000;
    }
    const heading = moving ? (Math.atan2(dir.y, dir.x) + Math.PI * 2) % (Math.PI * 2) : p.facing;
    const state = sender.update(t, x, y, heading, moving, moving ? p.speed : 0);
    if (state) {
      const input: WorldInput = { type: 'move', entityId: p.id, seq: ++seq, ...state, clientTime: t };
      up.push(input, t);
    }
    while (nextTick <= t) {
      const events = tick(w, up.take(nextTick), nextTick);
      reasons.push(...received(events, p.id, 'PositionCorrection').map((c) => c.reason));
      nextTick += TICK_MS;
    }
  }
  return reasons;
}

describe("the move budget on the lab's links", () => {
  const links: [string, LinkSettings][] = [
    ['100 ms + 5% loss', { latencyMs: 100, jitterMs: 0, lossPercent: 5, bandwidthKbps: 0 }],
    ['200±50 ms + 5% loss', { latencyMs: 200, jitterMs: 50, lossPercent: 5, bandwidthKbps: 0 }],
    ['200 ms + 20% loss', { latencyMs: 200, jitterMs: 0, lossPercent: 20, bandwidthKbps: 0 }],
  ];
  for (const [name, link] of links) {
    it(`never corrects the honest square walk at ${name} (40 seeded runs of 20 s)`, () => {
      const corrected: number[] = [];
      for (let seed = 1; seed <= 40; seed++) {
        if (walkTheSquare(link, seed).length > 0) corrected.push(seed);
      }
      expect(corrected).toEqual([]);
    });
  }
});
