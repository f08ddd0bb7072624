/**
 * When a client sends its own movement state (shared/game/motion.ts): the browser, the
 * terminal client and the bots share these rules, so the server sees everyone move alike.
 * A MoveInput goes out
 *
 *   - when the walker starts or stops,
 *   - when its heading turns by more than CLIENT_TURN_EPSILON, or its speed changes by more
 *     than 1 unit per second,
 *   - as a heartbeat every CLIENT_HEARTBEAT_MS while it walks,
 *   - when a standing walker turns to face elsewhere,
 *
 * and never otherwise: a walker going straight sends four states a second, a standing one
 * none. Pure: time comes in as `now`.
 */
import { CLIENT_HEARTBEAT_MS, CLIENT_TURN_EPSILON } from '../game/motion.js';
import type { PayloadOf } from '../protocol/define.js';
import type { MoveInput } from '../protocol/movement.js';

/** A speed change of more than this (units per second) is sent as a new state. */
const SPEED_EPSILON = 1;

/** A movement state as MoveInput carries it: where, heading (facing standing), walking, speed. */
export type MoveState = Pick<PayloadOf<typeof MoveInput>, 'x' | 'y' | 'facing' | 'moving' | 'speed'>;

const TAU = Math.PI * 2;

/** The smaller angle between two headings, in [0, π]. */
export function angleBetween(a: number, b: number): number {
  const d = Math.abs(a - b) % TAU;
  return d > Math.PI ? TAU - d : d;
}

export type SendReason = 'start' | 'stop' | 'turn' | 'heartbeat';

export class MoveSender {
  /** Why the last update sent (valid after an update that returned a state). */
  reason: SendReason = 'start';
  /** The state last sent (or known to the server after a reset). */
  private readonly last: MoveState = { x: 0, y: 0, facing: 0, moving: false, speed: 0 };
  private lastAt = -Infinity;
  /** The state to send; reused, valid until the next update. */
  private readonly out: MoveState = { x: 0, y: 0, facing: 0, moving: false, speed: 0 };

  /** The server has this walker standing at (x, y) facing `facing` (entered, respawned, corrected). */
  reset(now: number, x: number, y: number, facing: number): void {
    const l = this.last;
    l.x = x;
    l.y = y;
    l.facing = facing;
    l.moving = false;
    l.speed = 0;
    this.lastAt = now;
  }

  /** The state to send now, or undefined when the last one still holds. */
  update(
    now: number,
    x: number,
    y: number,
    heading: number,
    moving: boolean,
    speed: number,
  ): MoveState | undefined {
    const l = this.last;
    let reason: SendReason | undefined;
    if (moving !== l.moving) reason = moving ? 'start' : 'stop';
    else if (moving) {
      if (
        angleBetween(heading, l.facing) > CLIENT_TURN_EPSILON ||
        Math.abs(speed - l.speed) > SPEED_EPSILON
      ) {
        reason = 'turn';
      } else if (now - this.lastAt >= CLIENT_HEARTBEAT_MS) reason = 'heartbeat';
    } else if (angleBetween(heading, l.facing) > CLIENT_TURN_EPSILON) reason = 'turn';
    if (reason === undefined) return undefined;
    this.reason = reason;
    this.lastAt = now;
    const o = this.out;
    l.x = o.x = x;
    l.y = o.y = y;
    l.facing = o.facing = heading;
    l.moving = o.moving = moving;
    l.speed = o.speed = moving ? speed : 0;
    return o;
  }
}
