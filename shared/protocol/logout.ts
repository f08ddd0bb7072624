/** Leaving the world, 0x07xx. */
import { t } from '../codec/index.js';
import { definePacket } from './define.js';

export const LogoutRequest = definePacket({
  opcode: 0x0701,
  name: 'LogoutRequest',
  dir: 'c2s',
  target: 'zone',
  states: ['inWorld'],
  doc: 'Start the logout timer; moving or LogoutCancel stops it.',
  fields: {},
});

export const LogoutCancel = definePacket({
  opcode: 0x0702,
  name: 'LogoutCancel',
  dir: 'c2s',
  target: 'zone',
  states: ['inWorld'],
  doc: 'Stop the logout timer.',
  fields: {},
});

export const LogoutStarted = definePacket({
  opcode: 0x0703,
  name: 'LogoutStarted',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The character leaves the world in delay ms unless it moves, fights (deals or takes a blow, casts) or cancels.',
  fields: { delay: t.u32 },
});

export const LogoutCancelled = definePacket({
  opcode: 0x0704,
  name: 'LogoutCancelled',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The logout timer stopped (the character moved, fought or cancelled).',
  fields: {},
});

export const LogoutComplete = definePacket({
  opcode: 0x0705,
  name: 'LogoutComplete',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The character was saved and left the world; the connection is back at the character screen.',
  fields: {},
});
