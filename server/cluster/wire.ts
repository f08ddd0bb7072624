/**
 * The bytes between a gateway and a zone host: what goes on `wyvern.zone.<zone>.in`, on
 * `wyvern.gw.<gateway>.tick` and `.direct`, and on the world requests. Every integer is a
 * varint (unsigned LEB128) unless its width is given; `session` is the gateway's id for a
 * connection (unique within that gateway only).
 *
 * Zone inputs, gateway -> the zone's host, one message per gateway per event-loop turn:
 *
 *   gateway str8 (the sender's id: its tick goes to wyvern.gw.<gateway>.tick)
 *   then records until the end, each  kind u8 · session · body
 *     PACKET 1  receivedAt f64 (server ms) · opcode u16 · length u16 · payload (the packet's
 *               fields as the client sent them, without the frame header)
 *     JOIN   2  account · character     (enter the world, or take over the character where
 *                                        it lingers)
 *     DETACH 3                          (the connection is gone: the character lingers)
 *     BEHIND 4  behind u8 (1: over the soft send limit, skip droppable sections)
 *     RESYNC 5                          (a tick's message to this gateway was lost: send the
 *                                        session its whole state and view anew)
 *     HANDOFF 6 account · sentAt f64 (the sender's ms) · length · state (the character
 *               walked in from the zone beside; the state as server/cluster/border-wire.ts
 *               encodes it). Only in a request on wyvern.zone.<zone>.handoff, from the host of
 *               the zone beside, with the session's gateway as sender.
 *
 * Gateway batch, zone host -> one gateway, one message per tick (`.tick`) or for one delivery
 * outside a tick (`.direct`):
 *   host str8 (the zone host's id) · seq (1, 2, ... per tick message from this host to this
 *   gateway, 1 again after 2^32-1 or a restart; 0 on `.direct`, which is not in sequence)
 *   then records until the end, each  kind u8 · session · body
 *     JOINED 1  entity · character      (the session is in the world as this entity)
 *     BYTES  2  length · whole frames   (appended to the connection's write buffer as they are)
 *     LEFT   3  reason u8 (0 left, 1 could not enter, 2 taken over through another gateway)
 *     MOVED  4  zone str8               (the character walked into this zone, on this host:
 *                                        its inputs go to that zone from now on)
 *   A tick's batch holds its JOINED records first, then every session's bytes, then LEFT
 *   records: a joining client is in the world before its EnterWorld is appended, and a leaving
 *   one still gets its last frames (LogoutComplete).
 *
 * Requests (request/reply):
 *   wyvern.gw.<gateway>.whisper  to str8 · frames (the ChatMessage frame)  ->  status u8
 *   wyvern.host.<host>.who       (empty)  ->  a WhoList payload (no frame header) of the
 *                                              host's own zones: total, then at most 200 players
 *   wyvern.zone.<zone>.handoff   a zone-input message of one HANDOFF record  ->  answer u8
 *                                              (HandoffAnswer: 1 taken, 2 refused)
 */
import { Reader } from '../../shared/codec/reader.js';
import { Writer } from '../../shared/codec/writer.js';

export const ZoneRecord = { Packet: 1, Join: 2, Detach: 3, Behind: 4, Resync: 5, Handoff: 6 } as const;
export type ZoneRecord = (typeof ZoneRecord)[keyof typeof ZoneRecord];

/** The answer to a HANDOFF request. */
export const HandoffAnswer = { Taken: 1, Refused: 2 } as const;
export type HandoffAnswer = (typeof HandoffAnswer)[keyof typeof HandoffAnswer];

export const GatewayRecord = { Joined: 1, Bytes: 2, Left: 3, Moved: 4 } as const;
export type GatewayRecord = (typeof GatewayRecord)[keyof typeof GatewayRecord];

export const LeftReason = { Left: 0, NotEntered: 1, TakenOver: 2 } as const;
export type LeftReason = (typeof LeftReason)[keyof typeof LeftReason];

export const WhisperStatus = { Sent: 0, NoSuchPlayer: 1, NotInWorld: 2 } as const;
export type WhisperStatus = (typeof WhisperStatus)[keyof typeof WhisperStatus];

/** Gateway ids and names are subject tokens or character names: short. */
const ID_MAX = 64;
const NAME_MAX = 255;

// ---------------------------------------------------------------- zone inputs

export type ZoneInputRecord =
  | {
      kind: typeof ZoneRecord.Packet;
      session: number;
      receivedAt: number;
      opcode: number;
      payload: Uint8Array;
    }
  | { kind: typeof ZoneRecord.Join; session: number; account: number; character: number }
  | { kind: typeof ZoneRecord.Detach; session: number }
  | { kind: typeof ZoneRecord.Behind; session: number; behind: boolean }
  | { kind: typeof ZoneRecord.Resync; session: number }
  | { kind: typeof ZoneRecord.Handoff; session: number; account: number; sentAt: number; state: Uint8Array };

/** Starts a zone-input message from `gateway`. */
export function beginZoneInputs(w: Writer, gateway: string): void {
  w.reset();
  w.string(gateway, ID_MAX, 1);
}

/**
 * Appends a PACKET record whose payload `writePayload` writes (the packet's fields, no
 * header); the length is patched in after.
 */
export function writePacketRecord(
  w: Writer,
  session: number,
  receivedAt: number,
  opcode: number,
  writePayload: (w: Writer) => void,
): void {
  w.u8(ZoneRecord.Packet);
  w.varint(session);
  w.f64(receivedAt);
  w.u16(opcode);
  const at = w.pos;
  w.u16(0);
  writePayload(w);
  w.patchU16(at, w.pos - at - 2);
}

export function writeJoinRecord(w: Writer, session: number, account: number, character: number): void {
  w.u8(ZoneRecord.Join);
  w.varint(session);
  w.varint(account);
  w.varint(character);
}

export function writeDetachRecord(w: Writer, session: number): void {
  w.u8(ZoneRecord.Detach);
  w.varint(session);
}

export function writeResyncRecord(w: Writer, session: number): void {
  w.u8(ZoneRecord.Resync);
  w.varint(session);
}

/**
 * HANDOFF: the session's character walked into this zone from the host of the zone beside,
 * which sent it at `sentAt` (its clock, ms).
 */
export function writeHandoffRecord(
  w: Writer,
  session: number,
  account: number,
  sentAt: number,
  state: Uint8Array,
): void {
  w.u8(ZoneRecord.Handoff);
  w.varint(session);
  w.varint(account);
  w.f64(sentAt);
  w.varint(state.length);
  w.raw(state);
}

export function writeBehindRecord(w: Writer, session: number, behind: boolean): void {
  w.u8(ZoneRecord.Behind);
  w.varint(session);
  w.u8(behind ? 1 : 0);
}

/** Reads a zone-input message: the sender, then each record in order (payloads are views). */
export function readZoneInputs(
  bytes: Uint8Array,
  each: (gateway: string, record: ZoneInputRecord) => void,
): void {
  const r = new Reader(bytes);
  const gateway = r.string(ID_MAX, 1);
  while (r.remaining > 0) {
    const kind = r.u8();
    const session = r.varint();
    switch (kind) {
      case ZoneRecord.Packet: {
        const receivedAt = r.f64();
        const opcode = r.u16();
        const payload = r.raw(r.u16());
        each(gateway, { kind, session, receivedAt, opcode, payload });
        break;
      }
      case ZoneRecord.Join:
        each(gateway, { kind, session, account: r.varint(), character: r.varint() });
        break;
      case ZoneRecord.Detach:
      case ZoneRecord.Resync:
        each(gateway, { kind, session });
        break;
      case ZoneRecord.Behind:
        each(gateway, { kind, session, behind: r.u8() === 1 });
        break;
      case ZoneRecord.Handoff: {
        const account = r.varint();
        const sentAt = r.f64();
        each(gateway, { kind, session, account, sentAt, state: r.raw(r.varint()) });
        break;
      }
      default:
        throw new Error(`zone input record kind ${kind} unknown`);
    }
  }
}

// ---------------------------------------------------------------- gateway batch

export type GatewayBatchRecord =
  | { kind: typeof GatewayRecord.Joined; session: number; entity: number; character: number }
  | { kind: typeof GatewayRecord.Bytes; session: number; bytes: Uint8Array }
  | { kind: typeof GatewayRecord.Left; session: number; reason: LeftReason }
  | { kind: typeof GatewayRecord.Moved; session: number; zone: string };

/** The next tick message's seq after `seq` (1 after 2^32-1). */
export function nextSeq(seq: number): number {
  return seq >= 0xffffffff ? 1 : seq + 1;
}

/** Starts a gateway batch from zone host `host`; `seq` 0 for one out of sequence (`.direct`). */
export function beginGatewayBatch(w: Writer, host: string, seq: number): void {
  w.reset();
  w.string(host, ID_MAX, 1);
  w.varint(seq);
}

export function writeJoinedRecord(w: Writer, session: number, entity: number, character: number): void {
  w.u8(GatewayRecord.Joined);
  w.varint(session);
  w.varint(entity);
  w.varint(character);
}

/** A BYTES record of src[start, end). */
export function writeBytesRecord(
  w: Writer,
  session: number,
  src: Uint8Array,
  start: number,
  end: number,
): void {
  w.u8(GatewayRecord.Bytes);
  w.varint(session);
  w.varint(end - start);
  w.rawRange(src, start, end);
}

function leftReason(byte: number): LeftReason {
  return byte === LeftReason.NotEntered
    ? LeftReason.NotEntered
    : byte === LeftReason.TakenOver
      ? LeftReason.TakenOver
      : LeftReason.Left;
}

/** MOVED: the session's character is now in `zone`, on the host sending this batch. */
export function writeMovedRecord(w: Writer, session: number, zone: string): void {
  w.u8(GatewayRecord.Moved);
  w.varint(session);
  w.string(zone, NAME_MAX, 1);
}

export function writeLeftRecord(w: Writer, session: number, reason: LeftReason): void {
  w.u8(GatewayRecord.Left);
  w.varint(session);
  w.u8(reason);
}

/** What a gateway does with each record of a batch, in order; no allocation per record. */
export interface GatewayBatchVisitor {
  /** The batch's sender and seq, before its records. */
  begin(host: string, seq: number): void;
  joined(session: number, entity: number, character: number): void;
  /** Whole frames: buf[start, end), valid while the handler runs. */
  bytes(session: number, buf: Uint8Array, start: number, end: number): void;
  left(session: number, reason: LeftReason): void;
  /** Absent: the visitor has no use for it (only a gateway routes by zone). */
  moved?(session: number, zone: string): void;
}

/** Walks a gateway batch, calling `v` for each record in order. */
export function visitGatewayBatch(bytes: Uint8Array, v: GatewayBatchVisitor): void {
  const r = new Reader(bytes);
  v.begin(r.string(ID_MAX, 1), r.varint());
  while (r.remaining > 0) {
    const kind = r.u8();
    const session = r.varint();
    switch (kind) {
      case GatewayRecord.Joined:
        v.joined(session, r.varint(), r.varint());
        break;
      case GatewayRecord.Bytes: {
        const n = r.varint();
        const start = r.pos;
        r.raw(n);
        v.bytes(session, bytes, start, start + n);
        break;
      }
      case GatewayRecord.Left:
        v.left(session, leftReason(r.u8()));
        break;
      case GatewayRecord.Moved:
        v.moved?.(session, r.string(NAME_MAX, 1));
        break;
      default:
        throw new Error(`gateway batch record kind ${kind} unknown`);
    }
  }
}

/** Reads a gateway batch into records (BYTES are views into `bytes`). */
export function readGatewayBatch(bytes: Uint8Array, each: (record: GatewayBatchRecord) => void): void {
  visitGatewayBatch(bytes, {
    begin: () => {},
    joined: (session, entity, character) => each({ kind: GatewayRecord.Joined, session, entity, character }),
    bytes: (session, buf, start, end) =>
      each({ kind: GatewayRecord.Bytes, session, bytes: buf.subarray(start, end) }),
    left: (session, reason) => each({ kind: GatewayRecord.Left, session, reason }),
    moved: (session, zone) => each({ kind: GatewayRecord.Moved, session, zone }),
  });
}

// ---------------------------------------------------------------- world requests

/** A whisper for one of the receiving gateway's characters: the frame its sender's gateway built. */
export interface WhisperDelivery {
  to: string;
  frames: Uint8Array;
}

export function encodeWhisperDelivery(d: WhisperDelivery): Uint8Array {
  const w = new Writer(8 + d.to.length * 3 + d.frames.length);
  w.string(d.to, NAME_MAX, 1);
  w.raw(d.frames);
  return w.finish();
}

export function decodeWhisperDelivery(bytes: Uint8Array): WhisperDelivery {
  const r = new Reader(bytes);
  const to = r.string(NAME_MAX, 1);
  return { to, frames: bytes.subarray(bytes.length - r.remaining) };
}

/** Whether the target's gateway delivered the whisper. */
export function encodeWhisperReply(status: WhisperStatus): Uint8Array {
  return Uint8Array.of(status);
}

export function decodeWhisperReply(bytes: Uint8Array): WhisperStatus {
  const status = bytes[0];
  return status === WhisperStatus.Sent
    ? WhisperStatus.Sent
    : status === WhisperStatus.NoSuchPlayer
      ? WhisperStatus.NoSuchPlayer
      : WhisperStatus.NotInWorld;
}
