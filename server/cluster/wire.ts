/**
 * The messages between a gateway and a zone host, declared (server/cluster/inner/define.ts
 * says how; docs/CLUSTER.md's wire tables and test/cluster/golden/ are generated from here).
 * Integers are varints unless a width is given; `session` is the gateway's id for a
 * connection (unique within that gateway only).
 *
 * Zone inputs (`wyvern.zone.<zone>.in`): one message per gateway per event-loop turn, the
 * records of that turn for the zone. A hand-off request (`wyvern.zone.<zone>.handoff`) has the
 * same head and one HANDOFF record, and is answered HandoffAnswer.
 *
 * Gateway batch (`wyvern.gw.<gateway>.tick`, and `.direct` for one delivery outside a tick): a
 * tick's batch holds its JOINED records first, then every session's bytes, then LEFT records:
 * a joining client is in the world before its EnterWorld is appended, and a leaving one still
 * gets its last frames (LogoutComplete). A REFUSED record goes direct, as soon as the zone
 * input it answers is read.
 *
 * A zone packet's payload is read once, on the zone host: the gateway routes it by its frame's
 * header and copies the payload into a PACKET record unread, and a payload that does not decode
 * comes back as REFUSED, which the gateway answers as the dispatch core answers any bad input.
 */
import type { DecodeErrorCode } from '../../shared/codec/errors.js';
import { bool, f64, string, u16, u32, varint } from '../../shared/codec/fields.js';
import { WhoList } from '../../shared/protocol/index.js';
import { BorderStrip, HandoffState } from './border-wire.js';
import { defineBody, defineRecord, defineStream } from './inner/define.js';
import { blob, blob16, code, rest, type OutOf } from './inner/fields.js';

/** Gateway and host ids are subject tokens: short. */
const id = string(64);
/** Character and zone names. */
const name = string(255);

// ---------------------------------------------------------------- zone inputs

export const Packet = defineRecord({
  kind: 1,
  name: 'Packet',
  dir: 'g2z',
  doc: "A packet whose target is `zone` (movement, casting, zone chat): its payload as the client's frame carried it, without the frame header, not decoded by the gateway (the zone host decodes it, and answers bytes that do not decode with REFUSED).",
  fields: {
    /** Server ms when the gateway read it. */
    receivedAt: f64,
    opcode: u16,
    payload: blob16(),
  },
});

export const Join = defineRecord({
  kind: 2,
  name: 'Join',
  dir: 'g2z',
  doc: 'Enter the world; takes the character over where it lingers (or where another gateway holds it).',
  fields: { account: varint, character: varint },
});

export const Detach = defineRecord({
  kind: 3,
  name: 'Detach',
  dir: 'g2z',
  doc: 'The connection is gone: the character lingers (`LINGER_MS`).',
  fields: {},
});

export const Behind = defineRecord({
  kind: 4,
  name: 'Behind',
  dir: 'g2z',
  doc: "The connection's soft-limit verdict changed (true: skip droppable sections from the next tick).",
  fields: { behind: bool },
});

export const Resync = defineRecord({
  kind: 5,
  name: 'Resync',
  dir: 'g2z',
  doc: 'A tick message to this gateway was lost: send the session its whole state and view anew.',
  fields: {},
});

export const ResendTicks = defineRecord({
  kind: 7,
  name: 'ResendTicks',
  dir: 'g2z',
  doc: "This gateway missed the zone's host's tick messages from seq `from` on: send them again (in order, as they were). `session` is 0.",
  fields: { from: varint },
});

export const InputsGone = defineRecord({
  kind: 8,
  name: 'InputsGone',
  dir: 'g2z',
  doc: 'The answer to a ResendInputs this gateway cannot give: its input messages for the zone before seq `before` are no longer kept (give them up). `session` is 0.',
  fields: { before: varint },
});

export const MovedOn = defineRecord({
  kind: 9,
  name: 'MovedOn',
  dir: 'g2z',
  doc: 'The gateway heard MOVED for the session (another host took it): its inputs go to the new zone from now on, none more comes here. The host that handed it on passes this on after what it forwarded, and the new host holds the inputs that come to it straight from the gateway until then (at most a second), so none overtakes one forwarded.',
  fields: {},
});

export const ZoneInputs = defineStream({
  name: 'ZoneInputs',
  routes: ['zoneInput'],
  subjects: ['on `wyvern.zone.<zone>.in`'],
  doc: "A gateway's records for one zone, one message per event-loop turn (after the poll phase, so they reach the host before its next tick). `seq` is 1, 2, ... per gateway and zone within the gateway's `epoch` (random at its start; 1 again after 2^32-1) and counts afresh when the zone's host changes: the host finds a lost message by it and asks for it again (ResendInputs). `to` is the epoch of the zone's host as the gateway last heard it (0: not known): a host asks for a stream's first messages only if it is the one named. A message with no records repeats the newest seq (a marker, sent after a second without inputs); `seq` 0 is not in sequence (a request or an answer about a stream, or a host forwarding inputs after a player it handed on).",
  head: { gateway: id, epoch: u32, to: u32, seq: varint },
  records: [Packet, Join, Detach, Behind, Resync, ResendTicks, InputsGone, MovedOn],
});

export const Handoff = defineRecord({
  kind: 6,
  name: 'Handoff',
  dir: 'z2z',
  doc: "The character walked into this zone from the zone beside, whose host sends its state (HandoffState) in the name of the session's gateway, at `sentAt` (its clock, ms).",
  fields: { account: varint, sentAt: f64, state: blob() },
});

export const HandoffRequest = defineStream({
  name: 'HandoffRequest',
  routes: ['zoneHandoff'],
  subjects: ['on `wyvern.zone.<zone>.handoff` (a request, answered HandoffAnswer)'],
  doc: "A zone-input message of one HANDOFF record, sent by the host of the zone beside with the session's gateway as sender (and that gateway's `epoch`, as the host last heard it; 0: not known).",
  head: { gateway: id, epoch: u32 },
  records: [Handoff],
});

const handoffAnswer = code({ taken: 1, refused: 2 });
export type HandoffAnswer = OutOf<typeof handoffAnswer>;

export const HandoffAnswer = defineBody({
  name: 'HandoffAnswer',
  dir: 'z2z',
  subject: 'the reply to a HandoffRequest',
  doc: 'Whether the next zone took the player (taken: on its way in, also for a repeated request) or not (refused: the old host gives it back to its own zone).',
  fields: { answer: handoffAnswer },
});

// ---------------------------------------------------------------- gateway batch

export const Joined = defineRecord({
  kind: 1,
  name: 'Joined',
  dir: 'z2g',
  doc: "The session's character is in the world as this entity: the session becomes `inWorld`.",
  fields: { entity: varint, character: varint },
});

export const Bytes = defineRecord({
  kind: 2,
  name: 'Bytes',
  dir: 'z2g',
  doc: "Whole frames, appended to the connection's write buffer as they are, then committed.",
  fields: { frames: blob() },
});

const leftReason = code({ left: 0, notEntered: 1, takenOver: 2 });
export type LeftReason = OutOf<typeof leftReason>;
export const LeftReason = {
  /** The character left the world: the session is back at the character screen. */
  Left: 'left',
  /** It could not enter. */
  NotEntered: 'notEntered',
  /** Taken over through another gateway: the connection is told Bye (`takenOver`) and closed. */
  TakenOver: 'takenOver',
} as const satisfies Record<string, LeftReason>;

export const Left = defineRecord({
  kind: 3,
  name: 'Left',
  dir: 'z2g',
  doc: "The session's character is gone (left, could not enter, or taken over through another gateway).",
  fields: { reason: leftReason },
});

export const Moved = defineRecord({
  kind: 4,
  name: 'Moved',
  dir: 'z2g',
  doc: 'The character walked into this zone, on the host sending this batch: its inputs go to that zone from now on.',
  fields: { zone: name },
});

/** Every DecodeErrorCode, numbered for the wire once and for all (a number is never reused). */
const decodeError = code({
  ERR_SHORT: 1,
  ERR_OVERLONG: 2,
  ERR_STRING_TOO_LONG: 3,
  ERR_BYTES_TOO_LONG: 4,
  ERR_LIST_TOO_LONG: 5,
  ERR_BAD_ENUM: 6,
  ERR_BAD_UTF8: 7,
  ERR_BAD_BOOL: 8,
  ERR_BAD_VARINT: 9,
  ERR_BAD_NUMBER: 10,
  ERR_FRAME_SIZE: 11,
  ERR_BAD_CRC: 12,
  ERR_UNKNOWN_OPCODE: 13,
  ERR_PARTIAL_FRAME: 14,
} as const satisfies Record<DecodeErrorCode, number>);

export const Refused = defineRecord({
  kind: 5,
  name: 'Refused',
  dir: 'z2g',
  doc: "A zone packet of the session's did not decode on the zone host: the gateway answers it as the dispatch core answers bad input (a fatal Error with this code, reason and opcode) and closes the connection. The host applies none of the session's packets after it.",
  fields: { opcode: u16, code: decodeError, reason: string(1024) },
});

export const ResendInputs = defineRecord({
  kind: 6,
  name: 'ResendInputs',
  dir: 'z2g',
  doc: "The host of `zone` missed this gateway's input messages for it from seq `from` on: send them again (in order, as they were). `session` is 0.",
  fields: { zone: name, from: varint },
});

export const TicksGone = defineRecord({
  kind: 7,
  name: 'TicksGone',
  dir: 'z2g',
  doc: 'The answer to a ResendTicks this host cannot give: its tick messages to this gateway before seq `before` are no longer kept (give them up). `session` is 0.',
  fields: { before: varint },
});

export const GatewayBatch = defineStream({
  name: 'GatewayBatch',
  routes: ['gatewayTick', 'gatewayDirect'],
  subjects: ['on `wyvern.gw.<gateway>.tick`', 'on `wyvern.gw.<gateway>.direct`'],
  doc: "A zone host's records for one gateway, one message per tick (`.tick`, `seq` 1, 2, ... per host and gateway within the host's `epoch` (random at its start; 1 again after 2^32-1), counted afresh for each gateway instance, `to` (that gateway's epoch): a gateway drops what names another epoch than its own, and asks for a stream's first messages only if it is the one named; it finds a lost message by it and asks for it again, ResendTicks; a message with no records repeats the newest seq, a marker sent after a second without a tick message) or for one delivery outside a tick (`.direct`, `seq` 0: not in sequence).",
  head: { host: id, epoch: u32, to: u32, seq: varint },
  records: [Joined, Bytes, Left, Moved, Refused, ResendInputs, TicksGone],
});

export { nextSeq } from './sequenced.js';

// ---------------------------------------------------------------- world requests

export const WhisperDelivery = defineBody({
  name: 'WhisperDelivery',
  dir: 'g2g',
  route: 'gatewayWhisper',
  subject: "on `wyvern.gw.<gateway>.whisper` (a request to the target's gateway, answered WhisperReply)",
  doc: "A whisper for one of the receiving gateway's characters: the ChatMessage frame its sender's gateway built.",
  fields: { to: name, frames: rest },
});

const whisperStatus = code({ sent: 0, noSuchPlayer: 1, notInWorld: 2 });
export type WhisperStatus = OutOf<typeof whisperStatus>;
export const WhisperStatus = {
  Sent: 'sent',
  NoSuchPlayer: 'noSuchPlayer',
  NotInWorld: 'notInWorld',
} as const satisfies Record<string, WhisperStatus>;

export const WhisperReply = defineBody({
  name: 'WhisperReply',
  dir: 'g2g',
  subject: 'the reply to a WhisperDelivery',
  doc: "Whether the target's gateway delivered the whisper (to a character in the world there, with a connection).",
  fields: { status: whisperStatus },
});

export const WhoRequest = defineBody({
  name: 'WhoRequest',
  dir: 'g2z',
  route: 'hostWho',
  subject: 'on `wyvern.host.<host>.who` (a request to each live zone host, answered WhoReply)',
  doc: 'Who is in the world on this host: asked of every live zone host at once.',
  fields: {},
});

export const WhoReply = defineBody({
  name: 'WhoReply',
  dir: 'z2g',
  subject: 'the reply to a WhoRequest',
  doc: "The host's own zones, zone by zone in the world's order: a WhoList payload (the total, then at most 200 players).",
  fields: WhoList.fields,
});

// ---------------------------------------------------------------- all of it

/** Every message of the inner wire, in the order docs/CLUSTER.md shows them. */
export const innerWire = {
  streams: [ZoneInputs, HandoffRequest, GatewayBatch],
  bodies: [HandoffAnswer, WhisperDelivery, WhisperReply, WhoRequest, WhoReply, BorderStrip, HandoffState],
} as const;
