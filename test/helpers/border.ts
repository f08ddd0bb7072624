/**
 * Two zones side by side for border tests over sockets, and what an observer's view of a
 * walker crossing must show: the walker drawn all along, advancing, never standing for more
 * than two ticks or jumping.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MoveSender } from '../../shared/client/move-sender.js';
import type { GameClient } from './game-client.js';

const TEST_DATA = fileURLToPath(new URL('../../data/test', import.meta.url));

/**
 * A copy of the short-timer test data with two 600 × 600 zones meeting at x = 600, Westmark
 * (number 1: players start there, near the line) and Eastmark, mobs far from the line
 * (`eastMob`: Eastmark's where told).
 */
export function twoZoneData(options: { eastMob?: { x: number; y: number } } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-border-'));
  cpSync(TEST_DATA, dir, { recursive: true });
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
    spawns: [
      x === 0
        ? { template: 1, x: 60, y: 560, count: 1 }
        : { template: 1, ...(options.eastMob ?? { x: 1140, y: 560 }), count: 1 },
    ],
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

export interface Sample {
  /** Server time (the newest WorldUpdate's, run on by the local clock: quiet ticks send none). */
  t: number;
  x: number;
  present: boolean;
}

/** Samples where `observer` draws entity `id`, every 20 ms, until stopped. */
export function watch(observer: GameClient, id: number): { stop: () => Sample[] } {
  const out: Sample[] = [];
  let anchor = { server: 0, local: 0 };
  const timer = setInterval(() => {
    const c = observer.client;
    const last = c.lastTick;
    if (!last) return;
    const now = performance.now();
    if (last.serverTime > anchor.server) anchor = { server: last.serverTime, local: now };
    const t = anchor.server + (now - anchor.local);
    const e = c.world.get(id);
    out.push({ t, x: e ? c.world.positionAt(e, t).x : NaN, present: e !== undefined });
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return out;
    },
  };
}

/**
 * What went wrong in `samples` of a walker heading east between x0 and x1 (empty: nothing):
 * gone from view, a jump, or standing still for longer than `maxStillMs` of server time.
 */
export function breaks(samples: readonly Sample[], x0: number, x1: number, maxStillMs: number): string[] {
  const out: string[] = [];
  if (samples.some((p) => !p.present)) out.push('the walker was gone from view');
  const walking = samples.filter((p) => p.x > x0 && p.x < x1);
  let still = 0;
  for (let i = 1; i < walking.length; i++) {
    const a = walking[i - 1]!;
    const b = walking[i]!;
    const dx = b.x - a.x;
    if (Math.abs(dx) >= 20) out.push(`a jump of ${dx.toFixed(1)} at x ${a.x.toFixed(1)}`);
    if (dx <= 0) still += b.t - a.t;
    else still = 0;
    if (still > maxStillMs) {
      out.push(`standing still for ${still.toFixed(0)} ms at x ${b.x.toFixed(1)}`);
      still = -Infinity;
    }
  }
  return out;
}

/**
 * Walks `game` east or west to x = `toX` as a browser does: its position advanced every frame
 * at walking speed, movement states sent through MoveSender (start, heartbeats, stop), never
 * waiting for an ack.
 */
export async function stride(game: GameClient, toX: number, speed = 120): Promise<void> {
  const client = game.client;
  const self = client.world.self!;
  const sender = new MoveSender();
  const dir = toX < self.x ? -1 : 1;
  const facing = dir < 0 ? Math.PI : 0;
  sender.reset(performance.now(), self.x, self.y, facing);
  let x = self.x;
  const y = self.y;
  let last = performance.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = performance.now();
    const step = Math.min(Math.abs(toX - x), (speed * (now - last)) / 1000);
    last = now;
    x += dir * step;
    const arrived = x === toX || Math.abs(toX - x) < 1e-9;
    const state = sender.update(now, x, y, facing, !arrived, speed);
    if (state) client.sendMove(state.x, state.y, state.facing, state.moving, state.speed);
    if (arrived) return;
  }
}
