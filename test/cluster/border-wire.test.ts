/**
 * A hand-off's queued moves on the wire between zone hosts: each is the MoveInput its client
 * sent, in the packet's own layout (shared/protocol/movement.ts), so the two cannot drift.
 */
import { describe, expect, it } from 'vitest';
import { decodeHandoff, encodeHandoff } from '../../server/cluster/border-wire.js';
import { handoffState } from '../../server/world/handoff.js';
import type { MovePayload, Player } from '../../server/world/index.js';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import { MoveInput } from '../../shared/protocol/movement.js';
import { join, player, world } from '../world/builders.js';

/** A MoveInput as the zone got it from its client: decoded from the packet's bytes. */
function received(v: MovePayload): MovePayload {
  return MoveInput.decode(MoveInput.encode(v).subarray(HEADER_SIZE));
}

function queue(p: Player, move: Omit<MovePayload, 'epoch'> & { epoch?: number }, due: number): void {
  p.timeline.queue.push({ input: { type: 'move', entityId: p.id, ...move, receivedAt: due - 100 }, due });
}

/** Where `part` first occurs in `bytes`, or -1. */
function indexOf(bytes: Uint8Array, part: Uint8Array): number {
  outer: for (let i = 0; i + part.length <= bytes.length; i++) {
    for (let j = 0; j < part.length; j++) if (bytes[i + j] !== part[j]) continue outer;
    return i;
  }
  return -1;
}

describe("a hand-off's queued moves", () => {
  it('travel as the MoveInput payloads their client sent, and come back the same', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 100 }));
    const walk = received({
      seq: 70_000,
      x: 120.5,
      y: 99.25,
      facing: 1.3,
      moving: true,
      speed: 118.5,
      clientTime: 1_700_000_000_123.25,
      epoch: 3,
    });
    const stop = received({
      ...walk,
      seq: 70_001,
      x: 150,
      moving: false,
      speed: 0,
      clientTime: walk.clientTime + 250,
    });
    queue(p, walk, 400);
    queue(p, stop, 650);

    const bytes = encodeHandoff(handoffState(p));
    const payloads = [walk, stop].map((m) => MoveInput.encode(m).subarray(HEADER_SIZE));
    const at = payloads.map((b) => indexOf(bytes, b));
    expect(at[0]).toBeGreaterThan(0);
    expect(at[1]).toBeGreaterThan(at[0]!);
    expect(decodeHandoff(bytes).queued).toEqual([
      { move: walk, due: 400 },
      { move: stop, due: 650 },
    ]);
  });

  it('carry a move made without an epoch (a world driven with no client) in the epoch its player is in', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 100 }));
    p.moveEpoch = 5;
    queue(p, { seq: 1, x: 110, y: 100, facing: 0, moving: true, speed: 100, clientTime: 50 }, 300);
    const [queued] = decodeHandoff(encodeHandoff(handoffState(p))).queued;
    expect(queued?.move).toMatchObject({ seq: 1, x: 110, epoch: 5 });
  });
});
