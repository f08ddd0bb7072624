import { describe, expect, it } from 'vitest';
import { blocked, insideZone, maxMoveDistance, type Rect } from '../../shared/game/movement.js';
import { Predictor, type MoveInputValue } from '../../web-client/src/state/prediction.js';

const zone = { width: 1000, height: 1000 };
const wall: Rect = { x: 300, y: 0, w: 20, h: 1000 };

/** The server's side of movement, by the shared rules: accept or correct each input. */
function fakeServer(start: { x: number; y: number }, speed: number, obstacles: Rect[] = []) {
  let pos = { ...start };
  let lastTime: number | undefined;
  return {
    receive(
      input: MoveInputValue,
    ): { ack: number } | { correct: { seq: number; x: number; y: number; facing: number } } {
      const elapsed = lastTime === undefined ? 50 : input.clientTime - lastTime;
      const ok =
        Math.hypot(input.x - pos.x, input.y - pos.y) <= maxMoveDistance(speed, elapsed) &&
        insideZone(input, zone) &&
        !blocked(input, obstacles);
      if (!ok) return { correct: { seq: input.seq, x: pos.x, y: pos.y, facing: 0 } };
      pos = { x: input.x, y: input.y };
      lastTime = input.clientTime;
      return { ack: input.seq };
    },
    get pos() {
      return pos;
    },
  };
}

/** Drives `frames` frames of 16 ms holding direction (dx, dy); returns inputs sent. */
function walk(
  p: Predictor,
  dx: number,
  dy: number,
  frames: number,
  t0: number,
): { inputs: MoveInputValue[]; t: number } {
  const inputs: MoveInputValue[] = [];
  let t = t0;
  for (let i = 0; i < frames; i++) {
    t += 16;
    p.step(dx, dy, 16);
    const input = p.takeInput(t);
    if (input) inputs.push(input);
  }
  return { inputs, t };
}

describe('prediction and reconciliation', () => {
  it('moves at once, sends about 20 inputs a second with rising seqs', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    const { inputs } = walk(p, 1, 0, 62, 0); // ~1 s
    expect(p.x).toBeCloseTo(100 + 120 * 0.992, 0);
    expect(inputs.length).toBeGreaterThanOrEqual(18);
    expect(inputs.length).toBeLessThanOrEqual(21);
    expect(inputs.map((i) => i.seq)).toEqual(inputs.map((_, i) => i + 1));
    expect(p.pending).toHaveLength(inputs.length);
  });

  it('on a clean link every input is acked: no correction and the drawn position never jumps', () => {
    const p = new Predictor({ zone, obstacles: [wall] }, 100, 100, 0, 120);
    const server = fakeServer({ x: 100, y: 100 }, 120, [wall]);
    let t = 0;
    let prev = { x: p.x, y: p.y };
    const inFlight: MoveInputValue[] = [];
    for (let frame = 0; frame < 400; frame++) {
      t += 16;
      const dir = frame < 200 ? [1, 0.3] : [-0.2, 1];
      p.step(dir[0]!, dir[1]!, 16);
      const input = p.takeInput(t);
      if (input) inFlight.push(input);
      // 100 ms round trip: answers arrive six frames later.
      while (inFlight.length > 0 && inFlight[0]!.clientTime <= t - 100) {
        const answer = server.receive(inFlight.shift()!);
        expect(answer).toHaveProperty('ack');
        if ('ack' in answer) p.ack(answer.ack);
      }
      const step = Math.hypot(p.x - prev.x, p.y - prev.y);
      expect(step).toBeLessThanOrEqual((120 * 16) / 1000 + 1e-6);
      prev = { x: p.x, y: p.y };
    }
    expect(p.corrections).toBe(0);
    expect(p.x).toBeLessThanOrEqual(wall.x - 8);
    expect(p.confirmed.x).toBeCloseTo(server.pos.x);
  });

  it('drops acked inputs and keeps the newer ones', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100);
    const { inputs } = walk(p, 0, 1, 40, 0);
    p.ack(inputs[2]!.seq);
    expect(p.pending[0]!.seq).toBe(inputs[3]!.seq);
    expect(p.confirmed).toEqual({ x: inputs[2]!.x, y: inputs[2]!.y });
  });

  it('on a correction snaps to the server position and replays the inputs after its seq', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    const { inputs } = walk(p, 1, 0, 60, 0);
    const refused = inputs[4]!;
    const afterSteps = p.pending
      .filter((i) => i.seq > refused.seq)
      .reduce((sum, i) => sum + i.steps.reduce((s, st) => s + st.dtMs, 0), 0);
    const unsentBefore = p.x - inputs[inputs.length - 1]!.x;
    p.correct({ seq: refused.seq, x: 50, y: 200, facing: 0 });
    expect(p.corrections).toBe(1);
    expect(p.pending.every((i) => i.seq > refused.seq)).toBe(true);
    expect(p.y).toBe(200);
    expect(p.x).toBeCloseTo(50 + (120 * afterSteps) / 1000 + unsentBefore, 3);
    expect(p.lastCorrectionDistance).toBeGreaterThan(0);
    // The replayed path goes out again as a fresh input.
    expect(p.takeInput(10_000)).toMatchObject({ x: p.x, y: p.y });
  });

  it('slides along a wall the same way the server does', () => {
    const p = new Predictor({ zone, obstacles: [wall] }, 280, 100, 0, 120);
    walk(p, 1, 1, 60, 0);
    expect(p.x).toBeLessThanOrEqual(wall.x - 8);
    expect(p.y).toBeGreaterThan(150);
  });

  it('teleport voids every pending input', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100);
    walk(p, 1, 0, 30, 0);
    p.teleport(500, 500);
    expect(p.pending).toHaveLength(0);
    expect(p.takeInput(99_999)).toBeUndefined();
    expect(p.confirmed).toEqual({ x: 500, y: 500 });
  });
});
