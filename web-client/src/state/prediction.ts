/**
 * Client-side prediction of the own character and reconciliation with the server.
 *
 * Each frame's key state moves the character at once with the shared movement rules
 * (`slide`), recorded as a step. Movement is sent as state (shared/client/move-sender.ts):
 * when the character starts, stops or turns (sliding along a wall turns it), and as a
 * heartbeat while it walks, the steps since the last send become one MoveInput (seq, the
 * resulting position, heading, walking or not, speed, client time), kept as pending until the
 * server answers. The page sends it through the client SDK (WyvernClient.sendMove), whose
 * seq it records, so the connection has one MoveInput sequence. MoveAck(seq) drops inputs up
 * to seq: the server agreed, nothing moves.
 * PositionCorrection(seq, x, y) snaps to the server's position. It starts a new move epoch
 * (shared/protocol/movement.ts): every input still pending was made before the client heard
 * of it, and the server drops them unanswered, so they are forgotten here too. A refused move
 * replays their steps (and the unsent ones) from the server's position and sends where that
 * put the character as a fresh state, so it ends where the player's keys put it from the
 * server's truth; a jump the server made itself (death, respawn, teleport) replays nothing:
 * the keys held before it walked the character somewhere it no longer is. On a clean link no
 * correction ever arrives and the drawn position never jumps.
 */
import { MoveSender, type MoveState } from '../../../shared/client/move-sender.js';
import type { PayloadOf } from '../../../shared/protocol/define.js';
import type { MoveInput } from '../../../shared/protocol/movement.js';
import { PLAYER_SPEED, slide, type Rect, type Vec2, type ZoneBounds } from '../../../shared/game/movement.js';

export interface MoveStep {
  /** Unit (or zero) direction. */
  dx: number;
  dy: number;
  dtMs: number;
}

export interface PendingInput {
  seq: number;
  x: number;
  y: number;
  facing: number;
  clientTime: number;
  steps: MoveStep[];
}

/** A MoveInput as made here: the SDK stamps the move epoch when it sends it. */
export type MoveInputValue = Omit<PayloadOf<typeof MoveInput>, 'epoch'>;

export interface CorrectionValue {
  seq: number;
  x: number;
  y: number;
  facing: number;
  /** PositionCorrection's reason; a refused move (speed, bounds, obstacle) unless told. */
  reason?: string;
}

/** Corrections that are jumps the server made, not refusals of the client's walk: nothing is replayed. */
const JUMPS: ReadonlySet<string> = new Set(['dead', 'respawn', 'teleport']);

export interface PredictionWorld {
  zone: ZoneBounds;
  obstacles: readonly Rect[];
}

/** The longest step applied in one go; a long frame is split so walls stay solid. */
const MAX_STEP_MS = 50;

export class Predictor {
  /** The predicted position (what the player sees when prediction is on). */
  x: number;
  y: number;
  facing: number;
  /** The newest position the server agreed to (what is drawn when prediction is off). */
  confirmed: Vec2;
  speed: number;
  readonly pending: PendingInput[] = [];
  private unsent: MoveStep[] = [];
  private seq = 0;
  /** Newest seq acknowledged (an ack may come back while its input is still being sent). */
  private acked = 0;
  private readonly sender = new MoveSender();
  /** The newest frame's motion: whether keys moved the character, and how fast it went. */
  private moving = false;
  private moveSpeed = 0;
  /** A correction's replay left the character off the server's position: send it even standing. */
  private resend = false;
  corrections = 0;
  /**
   * Reconciliation (on by default). Off, as the lab shows it: every MoveAck puts the character
   * back where the acknowledged input had it and forgets the steps after it, so on a slow link
   * it is pulled back each round trip; a correction snaps without replaying.
   */
  reconcile = true;
  /** Distance of the newest correction's snap, for the netcode panel. */
  lastCorrectionDistance = 0;

  constructor(
    private world: PredictionWorld,
    x: number,
    y: number,
    facing = 0,
    speed = PLAYER_SPEED,
  ) {
    this.x = x;
    this.y = y;
    this.facing = facing;
    this.confirmed = { x, y };
    this.speed = speed;
    this.sender.reset(0, x, y, facing);
  }

  setWorld(world: PredictionWorld): void {
    this.world = world;
  }

  /** Jump without replay (respawn, teleport): every pending input is void. */
  teleport(x: number, y: number, facing = this.facing): void {
    this.x = x;
    this.y = y;
    this.facing = facing;
    this.confirmed = { x, y };
    this.pending.length = 0;
    this.unsent = [];
    this.moving = false;
    this.moveSpeed = 0;
    this.resend = false;
    this.sender.reset(0, x, y, this.facing);
  }

  /** Applies one frame of input locally. Direction need not be normalised; none is standing. */
  step(dirX: number, dirY: number, dtMs: number): void {
    const len = Math.hypot(dirX, dirY);
    if (len === 0 || dtMs <= 0) {
      if (len === 0) this.moving = false;
      return;
    }
    const s: MoveStep = { dx: dirX / len, dy: dirY / len, dtMs };
    const fromX = this.x;
    const fromY = this.y;
    this.applyStep(s);
    this.unsent.push(s);
    const moved = Math.hypot(this.x - fromX, this.y - fromY);
    // The heading and speed of what the character did (a wall turns or stops it), not of the keys.
    this.moving = moved > 1e-6;
    this.moveSpeed = this.moving ? Math.min(this.speed, (moved * 1000) / dtMs) : 0;
    const heading = this.moving ? Math.atan2(this.y - fromY, this.x - fromX) : Math.atan2(s.dy, s.dx);
    this.facing = (heading + Math.PI * 2) % (Math.PI * 2);
  }

  /**
   * The MoveInput to send now, when the movement state changed or a heartbeat is due; it is
   * pending until acked. `send` sends the state and returns its seq (the SDK's sendMove);
   * without it the predictor numbers its inputs itself and the caller sends the result.
   */
  takeInput(clientTime: number, send?: (state: MoveState) => number): MoveInputValue | undefined {
    let state = this.sender.update(clientTime, this.x, this.y, this.facing, this.moving, this.moveSpeed);
    if (!state && this.resend) {
      // Standing (a walk would have gone out as a start): the server has the character where
      // the correction said, so tell it where the replay put it.
      this.sender.reset(clientTime, this.x, this.y, this.facing);
      state = { x: this.x, y: this.y, facing: this.facing, moving: false, speed: 0 };
    }
    this.resend = false;
    if (!state) return undefined;
    this.seq = send ? send(state) : (this.seq + 1) >>> 0;
    const input: PendingInput = {
      seq: this.seq,
      x: state.x,
      y: state.y,
      facing: state.facing,
      clientTime,
      steps: this.unsent,
    };
    this.unsent = [];
    this.pending.push(input);
    // A transport that answers at once (the demo world) acks inside `send`.
    if (input.seq <= this.acked) this.ack(this.acked);
    return {
      seq: input.seq,
      x: input.x,
      y: input.y,
      facing: input.facing,
      moving: state.moving,
      speed: state.speed,
      clientTime,
    };
  }

  /** The server accepted every input up to seq. */
  ack(seq: number): void {
    if (seq > this.acked) this.acked = seq;
    let acked: PendingInput | undefined;
    while (this.pending.length > 0 && (this.pending[0] as PendingInput).seq <= seq)
      acked = this.pending.shift();
    if (!acked) return;
    this.confirmed = { x: acked.x, y: acked.y };
    if (!this.reconcile) this.forgetUnacked(acked.x, acked.y);
  }

  /** Without reconciliation: back to what the server has, the steps since thrown away. */
  private forgetUnacked(x: number, y: number): void {
    this.x = x;
    this.y = y;
    for (const input of this.pending) {
      input.steps = [];
      input.x = x;
      input.y = y;
    }
    this.unsent = [];
  }

  /**
   * The server put the character at (x, y), in a new move epoch: snap there. A refused move
   * replays the steps nothing has acknowledged; a jump (death, respawn, teleport) does not.
   */
  correct(c: CorrectionValue): void {
    const before = { x: this.x, y: this.y };
    const after = this.pending.filter((input) => input.seq > c.seq);
    const replay =
      this.reconcile && !JUMPS.has(c.reason ?? '') ? [...after.flatMap((i) => i.steps), ...this.unsent] : [];
    // Made before the client heard of the new epoch: the server drops them, no ack will come.
    this.pending.length = 0;
    this.x = c.x;
    this.y = c.y;
    this.facing = c.facing;
    this.confirmed = { x: c.x, y: c.y };
    for (const s of replay) this.applyStep(s);
    // The next input carries the replayed steps: a later correction of it replays them again.
    this.unsent = replay;
    if (replay.length === 0) {
      this.moving = false;
      this.moveSpeed = 0;
    }
    // The server has the character standing where it said: from there, the next update
    // sends the replayed position as a fresh state.
    this.sender.reset(0, c.x, c.y, c.facing);
    this.resend = this.x !== c.x || this.y !== c.y;
    this.corrections++;
    this.lastCorrectionDistance = Math.hypot(this.x - before.x, this.y - before.y);
  }

  private applyStep(s: MoveStep): void {
    let left = s.dtMs;
    while (left > 0) {
      const dt = Math.min(left, MAX_STEP_MS);
      left -= dt;
      const d = (this.speed * dt) / 1000;
      const next = slide(
        { x: this.x, y: this.y },
        { x: this.x + s.dx * d, y: this.y + s.dy * d },
        this.world.obstacles,
        this.world.zone,
      );
      this.x = next.x;
      this.y = next.y;
    }
  }
}
