import { describe, expect, it } from 'vitest';
import { CLIENT_HEARTBEAT_MS } from '../../shared/game/motion.js';
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
  it('moves at once; holding a key sends one start state, then only heartbeats, with rising seqs', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    const { inputs } = walk(p, 1, 0, 62, 0); // ~1 s
    expect(p.x).toBeCloseTo(100 + 120 * 0.992, 0);
    expect(inputs[0]).toMatchObject({ seq: 1, clientTime: 16, moving: true, facing: 0 });
    expect(inputs[0]!.speed).toBeCloseTo(120);
    expect(inputs[0]!.x).toBeCloseTo(100 + 120 * 0.016);
    // A heartbeat on the first frame CLIENT_HEARTBEAT_MS after the previous send, nothing else.
    expect(inputs).toHaveLength(Math.ceil((992 - 16) / (CLIENT_HEARTBEAT_MS + 16)));
    for (let i = 1; i < inputs.length; i++) {
      const gap = inputs[i]!.clientTime - inputs[i - 1]!.clientTime;
      expect(gap).toBeGreaterThanOrEqual(CLIENT_HEARTBEAT_MS);
      expect(gap).toBeLessThan(CLIENT_HEARTBEAT_MS + 16);
      expect(inputs[i]).toMatchObject({ moving: true, facing: 0 });
      expect(inputs[i]!.speed).toBeCloseTo(120);
    }
    expect(inputs.map((i) => i.seq)).toEqual(inputs.map((_, i) => i + 1));
    expect(p.pending).toHaveLength(inputs.length);
  });

  it('sends nothing while no key is held', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    expect(walk(p, 0, 0, 200, 0).inputs).toEqual([]);
    expect(p.pending).toHaveLength(0);
  });

  it('releasing the key sends one stop where the character stands, then nothing', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    const walked = walk(p, 0, 1, 30, 0);
    const { inputs } = walk(p, 0, 0, 200, walked.t);
    expect(inputs).toEqual([
      {
        seq: walked.inputs.length + 1,
        x: p.x,
        y: p.y,
        facing: p.facing,
        moving: false,
        speed: 0,
        clientTime: walked.t + 16,
      },
    ]);
    expect(p.facing).toBeCloseTo(Math.PI / 2);
    // The steps walked since the last heartbeat went with the stop, so a correction can replay them.
    expect(p.pending.at(-1)!.steps.length).toBeGreaterThan(0);
  });

  it('sends a turn when a wall slide changes the heading, and walking into a wall head-on stops', () => {
    const p = new Predictor({ zone, obstacles: [wall] }, 250, 100, 0, 120);
    const { inputs, t } = walk(p, 1, 1, 60, 0);
    expect(inputs[0]!.facing).toBeCloseTo(Math.PI / 4);
    const turn = inputs.findIndex((i) => Math.abs(i.facing - Math.PI / 2) < 1e-6);
    expect(turn).toBeGreaterThan(0);
    // Sent as the slide began (sooner than a heartbeat), at the speed the slide walks.
    expect(inputs[turn]!.clientTime - inputs[turn - 1]!.clientTime).toBeLessThan(CLIENT_HEARTBEAT_MS);
    expect(inputs[turn]!.speed).toBeCloseTo(120 * Math.SQRT1_2);
    expect(inputs[turn]!.moving).toBe(true);
    expect(inputs[turn]!.x).toBeLessThanOrEqual(wall.x - 8);
    // Along the wall nothing changes any more: heartbeats only.
    for (const i of inputs.slice(turn + 1)) {
      expect(i.facing).toBeCloseTo(Math.PI / 2);
      expect(i.clientTime - inputs[inputs.indexOf(i) - 1]!.clientTime).toBeGreaterThanOrEqual(
        CLIENT_HEARTBEAT_MS,
      );
    }
    // Straight into the wall: nowhere to go, so the character stops (facing the wall).
    const into = walk(p, 1, 0, 30, t).inputs;
    expect(into[0]).toMatchObject({ moving: false, speed: 0, facing: 0 });
    expect(into).toHaveLength(1);
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

  it('without reconciliation, is put back where each acknowledged input had it', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    p.reconcile = false;
    const { inputs } = walk(p, 1, 0, 60, 0);
    expect(inputs.length).toBeGreaterThan(2);
    const ahead = p.x;
    // The answer to the first input comes back while the walk went on: back to it.
    p.ack(inputs[0]!.seq);
    expect(p.x).toBe(inputs[0]!.x);
    expect(p.x).toBeLessThan(ahead);
    // With reconciliation the same ack moves nothing.
    const q = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    const walked = walk(q, 1, 0, 60, 0);
    q.ack(walked.inputs[0]!.seq);
    expect(q.x).toBe(ahead);
  });

  it('drops acked inputs and keeps the newer ones', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100);
    const { inputs } = walk(p, 0, 1, 120, 0);
    expect(inputs.length).toBeGreaterThan(4);
    p.ack(inputs[2]!.seq);
    expect(p.pending[0]!.seq).toBe(inputs[3]!.seq);
    expect(p.confirmed).toEqual({ x: inputs[2]!.x, y: inputs[2]!.y });
  });

  it('on a correction snaps to the server position and replays the inputs after its seq', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    const { inputs, t } = walk(p, 1, 0, 130, 0);
    expect(inputs.length).toBeGreaterThan(6);
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
    // The server has the character standing where it said: the replayed position goes out
    // at once as a fresh walking state, not a heartbeat later.
    expect(p.takeInput(t + 1)).toMatchObject({ x: p.x, y: p.y, moving: true, facing: 0 });
    expect(p.takeInput(t + 2)).toBeUndefined();
  });

  it('after a correction of a walk that has since stopped, sends the replayed position as a fresh state', () => {
    const p = new Predictor({ zone, obstacles: [] }, 100, 100, 0, 120);
    const walked = walk(p, 1, 0, 40, 0);
    const { t } = walk(p, 0, 0, 5, walked.t); // the stop went out
    const stop = p.pending.at(-1)!;
    expect(stop.seq).toBe(walked.inputs.length + 1);
    // The server refused the start: it has the character standing at the start point.
    p.correct({ seq: 1, x: 100, y: 100, facing: 0 });
    expect(p.x).toBeGreaterThan(100);
    const fresh = p.takeInput(t + 16);
    expect(fresh).toMatchObject({ x: p.x, y: p.y, moving: false, speed: 0 });
    expect(p.takeInput(t + 32)).toBeUndefined();
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
