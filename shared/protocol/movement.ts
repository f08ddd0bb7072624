/** Movement: client input, server acks and corrections, broadcasts, mob paths, 0x03xx. */
import { t } from '../codec/index.js';
import { coord, entityId } from './common.js';
import { definePacket } from './define.js';

export const MoveInput = definePacket({
  opcode: 0x0301,
  name: 'MoveInput',
  dir: 'c2s',
  target: 'zone',
  states: ['inWorld'],
  rate: 'move',
  doc: 'Where the client has moved its own character (prediction); the server checks speed, bounds and walls.',
  fields: {
    seq: t.u32,
    x: t.f32,
    y: t.f32,
    facing: t.angle,
    /** Client clock in ms when the input was made. */
    clientTime: t.f64,
  },
});

export const MoveAck = definePacket({
  opcode: 0x0302,
  name: 'MoveAck',
  dir: 's2c',
  delivery: 'droppable',
  doc: 'Newest MoveInput seq the server accepted; inputs up to it need no replay.',
  fields: { seq: t.u32 },
});

export const CorrectionReason = ['speed', 'bounds', 'obstacle', 'dead', 'teleport'] as const;

export const PositionCorrection = definePacket({
  opcode: 0x0303,
  name: 'PositionCorrection',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A MoveInput was refused: the client snaps to this authoritative position and replays inputs after seq.',
  fields: {
    seq: t.u32,
    x: t.f32,
    y: t.f32,
    facing: t.angle,
    reason: t.enumOf(CorrectionReason),
  },
});

export const EntityMove = definePacket({
  opcode: 0x0304,
  name: 'EntityMove',
  dir: 's2c',
  delivery: 'droppable',
  doc: "An entity's newest position (only the newest per entity per tick is sent).",
  fields: {
    id: entityId,
    x: coord,
    y: coord,
    facing: t.angle,
  },
});

export const MobPath = definePacket({
  opcode: 0x0305,
  name: 'MobPath',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A mob walks from its current position through the waypoints at speed, starting at startTime (server ms).',
  fields: {
    id: entityId,
    startTime: t.f64,
    speed: t.f32,
    waypoints: t.list(t.struct({ x: coord, y: coord }), 16),
  },
});

export const WorldTick = definePacket({
  opcode: 0x0306,
  name: 'WorldTick',
  dir: 's2c',
  delivery: 'droppable',
  doc: "Opens a tick's batch: the updates after it happened at this server tick and time (for interpolation).",
  fields: { tick: t.u32, serverTime: t.f64 },
});
