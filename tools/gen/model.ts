/**
 * What the native client generators (c.ts, python.ts) share beside the packet definitions:
 * how a TypeScript name becomes words, and the constants a client needs with what each means,
 * so a new rule or record flag is added here once and both libraries carry it.
 */
import {
  CLIENT_HEARTBEAT_MS,
  CLIENT_TURN_EPSILON,
  INPUT_OVERDUE_MS,
  MAX_DEAD_RECKON_MS,
  MOTION_ERROR_UNITS,
  MOTION_HEARTBEAT_MS,
} from '../../shared/game/motion.js';
import {
  ENTITY_RADIUS,
  MOVE_SEND_HZ,
  MOVE_SLACK_UNITS,
  MOVE_TOLERANCE,
  PLAYER_SPEED,
} from '../../shared/game/movement.js';
import {
  AGE,
  ALIVE,
  BASE,
  COORD_MAX,
  HERE,
  JUMP,
  MAX_CHARACTERS,
  MAX_PATH_POINTS,
  MOB_ID_BASE,
  MOVING,
  NAME_MAX,
  ONE,
  SAME_ANGLE,
  SPEED,
} from '../../shared/protocol/index.js';

/** protocolVersion -> protocol_version, M1 -> m1, LoginOk -> login_ok, SRPGroup -> srp_group. */
export function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

export interface Constant {
  /** As the generated code spells it after its language's prefix: COORD_MAX, BASE. */
  readonly name: string;
  readonly value: number;
  /** How the literal is written: hex for bit flags, float for a value with a fraction part. */
  readonly format?: 'hex' | 'float';
  /** What it means, on one line. */
  readonly note: string;
}

/** Limits of the wire and the world. */
export const LIMITS: readonly Constant[] = [
  { name: 'COORD_MAX', value: COORD_MAX, note: 'coordinates are in [0, COORD_MAX], carried in 65536 steps' },
  { name: 'MOB_ID_BASE', value: MOB_ID_BASE, note: 'player ids count up from 1, mob ids from this' },
  { name: 'MAX_CHARACTERS', value: MAX_CHARACTERS, note: 'characters an account may hold' },
  { name: 'MAX_PATH_POINTS', value: MAX_PATH_POINTS, note: 'waypoints in one path record' },
  { name: 'NAME_MAX', value: NAME_MAX, note: 'bytes in a spawn record name' },
];

/**
 * Entity record tag bits (shared/protocol/records.ts). The low 3 bits are the kind; BASE starts
 * a block; the high 4 bits are flags whose meaning depends on the kind.
 */
export const RECORD_FLAGS: readonly Constant[] = [
  { name: 'BASE', value: BASE, format: 'hex', note: 'starts a block: the id delta counts from 0' },
  { name: 'MOVING', value: MOVING, format: 'hex', note: 'move, moveBy: walking' },
  { name: 'JUMP', value: JUMP, format: 'hex', note: 'move: a discontinuity, snap' },
  { name: 'SAME_ANGLE', value: SAME_ANGLE, format: 'hex', note: "moveBy: the reference's angle" },
  { name: 'SPEED', value: SPEED, format: 'hex', note: 'move, moveBy, path: a speed field follows' },
  { name: 'AGE', value: AGE, format: 'hex', note: 'move, moveBy, path: an age field follows' },
  { name: 'HERE', value: HERE, format: 'hex', note: 'path: from where the reference puts it' },
  { name: 'ONE', value: ONE, format: 'hex', note: 'path: one waypoint, no count' },
  { name: 'ALIVE', value: ALIVE, format: 'hex', note: 'spawn: alive, else a corpse' },
];

/** How states are sent and drawn (shared/game/motion.ts). */
export const MOTION: readonly Constant[] = [
  {
    name: 'MOTION_HEARTBEAT_MS',
    value: MOTION_HEARTBEAT_MS,
    note: "the server re-sends a walker's state at least this often",
  },
  {
    name: 'MOTION_ERROR_UNITS',
    value: MOTION_ERROR_UNITS,
    note: "... and when observers' dead reckoning strays this far",
  },
  {
    name: 'MAX_DEAD_RECKON_MS',
    value: MAX_DEAD_RECKON_MS,
    note: 'observers dead-reckon at most this long past a state, then hold',
  },
  {
    name: 'CLIENT_HEARTBEAT_MS',
    value: CLIENT_HEARTBEAT_MS,
    note: 'send MoveInput this often while walking',
  },
  {
    name: 'CLIENT_TURN_EPSILON',
    value: CLIENT_TURN_EPSILON,
    format: 'float',
    note: 'radians: a larger turn is sent at once',
  },
  {
    name: 'INPUT_OVERDUE_MS',
    value: INPUT_OVERDUE_MS,
    note: 'a walker none of whose inputs comes this long after its newest is held from then',
  },
];

/** What the server accepts of a move (shared/game/movement.ts). */
export const MOVEMENT: readonly Constant[] = [
  { name: 'PLAYER_SPEED', value: PLAYER_SPEED, note: 'units per second' },
  {
    name: 'ENTITY_RADIUS',
    value: ENTITY_RADIUS,
    note: 'half-size of the collision box: a move whose box overlaps a wall is refused',
  },
  {
    name: 'MOVE_TOLERANCE',
    value: MOVE_TOLERANCE,
    format: 'float',
    note: 'a move may cover this factor of speed x elapsed time',
  },
  { name: 'MOVE_SLACK_UNITS', value: MOVE_SLACK_UNITS, note: '... plus this many units' },
  { name: 'MOVE_SEND_HZ', value: MOVE_SEND_HZ, note: 'MoveInput at most this often' },
];

/** A constant's literal, the same in C and Python: 0x10, 1.25, 4096. */
export function literal(c: Constant): string {
  if (!Number.isFinite(c.value)) throw new Error(`${c.name}: not finite: ${c.value}`);
  if (c.format === 'hex') return `0x${c.value.toString(16).padStart(2, '0')}`;
  const s = String(c.value);
  return c.format === 'float' && !/[.e]/.test(s) ? `${s}.0` : s;
}
