/** Handshake, clock sync, errors and goodbyes: 0x00xx. */
import { t } from '../codec/index.js';
import { ALL_STATES, definePacket } from './define.js';

export const ClientKind = ['browser', 'native', 'bot'] as const;

export const Hello = definePacket({
  opcode: 0x0001,
  name: 'Hello',
  dir: 'c2s',
  target: 'session',
  states: ['handshake'],
  doc: "First packet of every connection. A version other than the server's gets ERR_VERSION.",
  fields: {
    protocolVersion: t.u16,
    clientKind: t.enumOf(ClientKind),
    clientName: t.string(32),
  },
});

export const Welcome = definePacket({
  opcode: 0x0002,
  name: 'Welcome',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'Answer to Hello: the connection may now register, log in or resume.',
  fields: {
    protocolVersion: t.u16,
    serverName: t.string(32),
    tickRate: t.u8,
    /** Server clock in ms (Unix epoch). */
    serverTime: t.f64,
    connectionId: t.varint,
  },
});

export const Ping = definePacket({
  opcode: 0x0003,
  name: 'Ping',
  dir: 'c2s',
  target: 'session',
  states: ALL_STATES.filter((s) => s !== 'handshake'),
  doc: 'Clock sync and round-trip probe; answered at once by Pong.',
  fields: {
    seq: t.u32,
    /** Client clock in ms, echoed back. */
    clientTime: t.f64,
  },
});

export const Pong = definePacket({
  opcode: 0x0004,
  name: 'Pong',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'Echo of Ping with the server clock: offset = serverTime - (clientTime + rtt / 2).',
  fields: {
    seq: t.u32,
    clientTime: t.f64,
    serverTime: t.f64,
  },
});

export const ErrorPacket = definePacket({
  opcode: 0x0005,
  name: 'Error',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A refused request (fatal = false) or a protocol violation, after which the server closes (fatal = true).',
  fields: {
    code: t.string(40),
    reason: t.string(200),
    /** Opcode of the packet that caused it; 0 when none. */
    opcode: t.u16,
    fatal: t.bool,
  },
});

export const ByeReason = ['shutdown', 'takenOver', 'kicked', 'idle'] as const;

export const Bye = definePacket({
  opcode: 0x0006,
  name: 'Bye',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The server is closing this connection on purpose (shutdown, login elsewhere, ...).',
  fields: {
    reason: t.enumOf(ByeReason),
    message: t.string(200),
  },
});
