/** Movement: the client's movement state, the server's acks and corrections, 0x03xx. */
import { t } from '../codec/index.js';
import { definePacket } from './define.js';

export const MoveInput = definePacket({
  opcode: 0x0301,
  name: 'MoveInput',
  dir: 'c2s',
  target: 'zone',
  states: ['inWorld'],
  rate: 'move',
  doc: 'Movement state of the own character (prediction): sent on start, stop and turn, and as a heartbeat while walking; the server checks speed, bounds and walls, and drops it unanswered when its epoch is not the newest.',
  fields: {
    seq: t.u32,
    /** Where the character is at clientTime. */
    x: t.f32,
    y: t.f32,
    /** Heading while moving, facing while standing. */
    facing: t.angle,
    moving: t.bool,
    /** Units per second along facing while moving (below the character's speed when sliding along a wall). */
    speed: t.f32,
    /** Client clock in ms when the input was made. */
    clientTime: t.f64,
    /**
     * The newest move epoch the client was told (EnterWorld, PositionCorrection). An input of an
     * older one was made before the client heard of a jump (death, respawn, correction): the
     * server drops it unanswered.
     */
    epoch: t.u8,
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

export const CorrectionReason = ['speed', 'bounds', 'obstacle', 'dead', 'teleport', 'respawn'] as const;

export const PositionCorrection = definePacket({
  opcode: 0x0303,
  name: 'PositionCorrection',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The server put the own character somewhere its client did not walk (a refused MoveInput, death, respawn): a new move epoch starts; every input not yet acknowledged is void.',
  fields: {
    /** The newest MoveInput the server took or refused. */
    seq: t.u32,
    x: t.f32,
    y: t.f32,
    facing: t.angle,
    reason: t.enumOf(CorrectionReason),
    /** The move epoch this starts: MoveInputs carry it from now on. */
    epoch: t.u8,
  },
});
