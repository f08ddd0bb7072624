/**
 * Accounts: registration and SRP-6a login, 0x01xx. The password never leaves the client:
 * registration sends a salt and verifier, login proves knowledge of the password
 * (RFC 5054 2048-bit group, SHA-512; see PROTOCOL.md for the exact steps).
 */
import { t } from '../codec/index.js';
import { accountName } from './common.js';
import { definePacket } from './define.js';

/** Big integers travel as unsigned big-endian bytes. */
const bigBytes = t.bytes(512);
const hashBytes = t.bytes(64);
/** A remembered-device token: 32 bytes from LoginOk, or empty. */
const deviceTokenBytes = t.bytes(32);

export const Register = definePacket({
  opcode: 0x0101,
  name: 'Register',
  dir: 'c2s',
  target: 'session',
  states: ['login'],
  rate: 'auth',
  doc: 'Create an account from an SRP salt and verifier computed by the client.',
  fields: {
    account: accountName,
    salt: hashBytes,
    verifier: bigBytes,
  },
});

export const Registered = definePacket({
  opcode: 0x0102,
  name: 'Registered',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'The account exists now; log in with LoginStart.',
  fields: { account: accountName },
});

export const LoginStart = definePacket({
  opcode: 0x0103,
  name: 'LoginStart',
  dir: 'c2s',
  target: 'session',
  states: ['login'],
  rate: 'auth',
  doc: 'SRP step 1: the account name, and the remembered-device token the last LoginOk for this account gave this device (empty when it has none): a device the account logged in from before is not held by the lock that guessing from many addresses puts on the account. Answered by LoginChallenge (possibly after LoginQueue updates).',
  fields: { account: accountName, deviceToken: deviceTokenBytes },
});

export const LoginChallenge = definePacket({
  opcode: 0x0104,
  name: 'LoginChallenge',
  dir: 's2c',
  delivery: 'reliable',
  doc: "SRP step 2: the account's salt and the server's public ephemeral B.",
  fields: { salt: hashBytes, B: bigBytes },
});

export const LoginProof = definePacket({
  opcode: 0x0105,
  name: 'LoginProof',
  dir: 'c2s',
  target: 'session',
  states: ['login'],
  rate: 'auth',
  doc: "SRP step 3: the client's public ephemeral A and proof M1.",
  fields: { A: bigBytes, M1: hashBytes },
});

export const LoginOk = definePacket({
  opcode: 0x0106,
  name: 'LoginOk',
  dir: 's2c',
  delivery: 'reliable',
  doc: "SRP step 4: the server's proof M2 (the client must check it), a session resume token, and a remembered-device token: keep it for this account on this device (it lasts weeks) and send it in every LoginStart for the account.",
  fields: {
    M2: hashBytes,
    accountId: t.varint,
    account: accountName,
    resumeToken: t.bytes(32),
    deviceToken: deviceTokenBytes,
  },
});

export const LoginQueue = definePacket({
  opcode: 0x0107,
  name: 'LoginQueue',
  dir: 's2c',
  delivery: 'droppable',
  doc: 'Position in the login queue (1 = next); sent while a login waits for the SRP workers.',
  fields: { position: t.u32, queueLength: t.u32 },
});

export const Resume = definePacket({
  opcode: 0x0108,
  name: 'Resume',
  dir: 'c2s',
  target: 'session',
  states: ['login'],
  rate: 'auth',
  doc: 'Skip SRP after a dropped connection with the token from LoginOk (single use, short-lived).',
  fields: { account: accountName, token: t.bytes(32) },
});

export const Resumed = definePacket({
  opcode: 0x0109,
  name: 'Resumed',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'Resume accepted: the connection is authenticated and holds a fresh token. characterId 0: pick a character. Otherwise that character, still in the world, belongs to this connection again: ZoneInfo, SpellBook, EnterWorld and its state follow as after EnterWorldRequest, and the first WorldUpdate spawns everything in view.',
  fields: { accountId: t.varint, account: accountName, resumeToken: t.bytes(32), characterId: t.varint },
});
