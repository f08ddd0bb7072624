/**
 * What the zone runner tells the world about a move's arrival. A player's input hold
 * (server/world/timeline.ts) follows how late its inputs come; a move read after the tick that
 * takes it was due waited for this host's busy loop, as the tick did, and is not counted late
 * by more than the tick was due. A move that came late over its link is still counted.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32, type WorldInput } from '../../server/world/index.js';
import { ZoneRunner } from '../../server/zone/zone-runner.js';
import { join, walker, world } from '../world/builders.js';

const noHooks = { joined() {}, save() {}, leftWorld() {}, handedOff() {} };

/** A move made at client time `t`, read at server time `read` (the client's clock is the server's). */
function readAt(input: WorldInput, read: number): WorldInput {
  return input.type === 'move' ? { ...input, receivedAt: read } : input;
}

/**
 * A player who walks 200 ms and stops every second, each input read 20 ms after it was made,
 * on ticks every 50 ms from 1,000 to 4,000; then one more start, made at 4,020 and read at
 * `read`, on the tick due at `due` that runs at `tickAt`. Returns the player's hold after it.
 */
function holdAfter(read: number, due: number, tickAt: number): number {
  const w = world();
  const zone = new ZoneRunner(w, mulberry32(1), noHooks);
  const p = join(w, undefined, 1000);
  const walk = walker(p, 0, 1020);
  const sends: { input: WorldInput; read: number }[] = [];
  for (let t = 1020; t < 4000; t += 1000) {
    sends.push({ input: walk.at(t), read: t + 20 });
    sends.push({ input: walk.at(t + 200, false), read: t + 220 });
  }
  for (let at = 1050; at <= 4000; at += 50) {
    for (const s of sends.filter((s) => s.read > at - 50 && s.read <= at))
      zone.queue(readAt(s.input, s.read));
    zone.tick(at, at);
  }
  expect(p.timeline.held).toBe(0);
  zone.queue(readAt(walk.at(4020), read));
  zone.tick(tickAt, due);
  return p.timeline.held;
}

describe('the zone runner and the input hold', () => {
  it('does not count against a mover the time its move waited for a late tick', () => {
    // The loop was busy from before 4,040 to 4,290: the move that came at 4,040 was read at
    // 4,290, just before the tick due at 4,050 ran. It made that tick, as its peers did theirs:
    // counted read at 4,050, 30 ms after it was made against its peers' 20.
    expect(holdAfter(4290, 4050, 4291)).toBe(10);
  });

  it('still counts a move that came late over its link', () => {
    // Read at 4,045, before its tick was due: 25 ms after it was made.
    expect(holdAfter(4045, 4050, 4050)).toBe(5);
    // A stall of its own link: read 230 ms after it was made, the ticks on time.
    expect(holdAfter(4250, 4250, 4250)).toBe(210);
  });
});
