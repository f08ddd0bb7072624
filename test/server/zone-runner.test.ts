/**
 * What the zone runner tells the world about a move's arrival. A player's input hold
 * (server/world/timeline.ts) follows how late its inputs come, judged by ticks: a move read
 * after the tick that takes it was due waited for this host's busy loop, as the tick did; one
 * read late within a tick's interval made the same tick. Neither asks for more hold. A move
 * that missed its tick over its link still does.
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
    for (const s of sends.filter((s) => s.read > at - 50 && s.read <= at)) zone.queue(readAt(s.input, s.read));
    zone.tick(at, at, 50);
  }
  expect(p.timeline.held).toBe(0);
  zone.queue(readAt(walk.at(4020), read));
  zone.tick(tickAt, due, 50);
  return p.timeline.held;
}

describe('the zone runner and the input hold', () => {
  it('does not count against a mover the time its move waited for a late tick', () => {
    // The loop was busy from before 4,040 to 4,290: the move that came at 4,040 was read at
    // 4,290, just before the tick due at 4,050 ran. It made that tick, as its peers did theirs.
    expect(holdAfter(4290, 4050, 4291)).toBe(0);
  });

  it('does not count a move read later within the interval before its tick', () => {
    // Read at 4,049 (29 ms after it was made, its peers 20): it made the tick due at 4,050.
    expect(holdAfter(4049, 4050, 4050)).toBe(0);
  });

  it('counts a move that missed its tick over its link, from the tick before it came', () => {
    // A stall of its own link: read at 4,250, 230 ms after it was made, the ticks on time. The
    // last tick due before it came was 4,200: its state must be dated no earlier, 180 ms after
    // it was made, where its peers came 20 ms after.
    expect(holdAfter(4250, 4250, 4250)).toBe(160);
  });
});
