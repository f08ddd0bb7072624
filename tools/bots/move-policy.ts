/**
 * When a bot sends its movement state: the client's send rules (shared/game/motion.ts), so
 * the server sees bots move the way it sees people move. A MoveInput goes out
 *
 *   - when the walker starts or stops,
 *   - when its heading turns by more than CLIENT_TURN_EPSILON, or its speed changes,
 *   - as a heartbeat every CLIENT_HEARTBEAT_MS while it walks,
 *   - when a standing walker turns to face elsewhere,
 *
 * and never otherwise: a walker going straight sends four states a second, a standing one
 * none. Pure: time comes in as `now`.
 *
 * TODO: the client SDK is getting the same rules as shared/client/move-sender.ts
 * (`update(now, x, y, heading, moving, speed) -> payload | undefined`); once it is there,
 * the bots should use it and this file should go.
 */
import { CLIENT_HEARTBEAT_MS, CLIENT_TURN_EPSILON } from '../../shared/game/motion.js';

export interface MoveState {
  x: number;
  y: number;
  /** Heading while moving, facing while standing (radians). */
  facing: number;
  moving: boolean;
  /** Units per second while moving, 0 standing. */
  speed: number;
}

const TAU = Math.PI * 2;

/** The smaller angle between two headings, in [0, π]. */
export function angleBetween(a: number, b: number): number {
  const d = Math.abs(a - b) % TAU;
  return d > Math.PI ? TAU - d : d;
}

export type SendReason = 'start' | 'stop' | 'turn' | 'heartbeat';

export class MovePolicy {
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
      if (angleBetween(heading, l.facing) > CLIENT_TURN_EPSILON || speed !== l.speed) reason = 'turn';
      else if (now - this.lastAt >= CLIENT_HEARTBEAT_MS) reason = 'heartbeat';
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
