/** The gateway <-> zone host byte layouts (server/cluster/wire.ts) read back what was written. */
import { describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { MoveInput } from '../../shared/protocol/index.js';
import {
  beginGatewayBatch,
  beginZoneInputs,
  nextSeq,
  visitGatewayBatch,
  writeResyncRecord,
  decodeWhisperDelivery,
  decodeWhisperReply,
  encodeWhisperDelivery,
  encodeWhisperReply,
  GatewayRecord,
  LeftReason,
  readGatewayBatch,
  readZoneInputs,
  WhisperStatus,
  writeBehindRecord,
  writeBytesRecord,
  writeDetachRecord,
  writeJoinedRecord,
  writeJoinRecord,
  writeLeftRecord,
  writePacketRecord,
  ZoneRecord,
  type GatewayBatchRecord,
  type ZoneInputRecord,
} from '../../server/cluster/wire.js';
import { Reader } from '../../shared/codec/reader.js';

const move = { seq: 7, x: 10.5, y: 20.25, facing: 1, moving: true, speed: 4, clientTime: 1234.5, epoch: 0 };

describe('zone inputs', () => {
  it('reads back each record kind in order, with the sending gateway', () => {
    const w = new Writer(16);
    beginZoneInputs(w, 'gw-1');
    writeJoinRecord(w, 300, 12, 99);
    writePacketRecord(w, 300, 1_700_000_000_123.5, MoveInput.opcode, (out) =>
      MoveInput.payload.write(out, move),
    );
    writeBehindRecord(w, 300, true);
    writeDetachRecord(w, 300);
    writeResyncRecord(w, 301);
    const seen: [string, ZoneInputRecord][] = [];
    readZoneInputs(w.finish(), (gateway, record) => seen.push([gateway, record]));
    expect(seen.map(([g]) => g)).toEqual(['gw-1', 'gw-1', 'gw-1', 'gw-1', 'gw-1']);
    const records = seen.map(([, r]) => r);
    expect(records[0]).toEqual({ kind: ZoneRecord.Join, session: 300, account: 12, character: 99 });
    const packet = records[1]!;
    if (packet.kind !== ZoneRecord.Packet) throw new Error('expected a PACKET record');
    expect(packet).toMatchObject({ session: 300, receivedAt: 1_700_000_000_123.5, opcode: MoveInput.opcode });
    const alone = new Writer(64);
    MoveInput.payload.write(alone, move);
    expect([...packet.payload]).toEqual([...alone.finish()]);
    expect(MoveInput.payload.read(new Reader(packet.payload)).seq).toBe(7);
    expect(records[2]).toEqual({ kind: ZoneRecord.Behind, session: 300, behind: true });
    expect(records[3]).toEqual({ kind: ZoneRecord.Detach, session: 300 });
    expect(records[4]).toEqual({ kind: ZoneRecord.Resync, session: 301 });
  });

  it('costs a few bytes beyond the packet: kind, session, time, opcode and length', () => {
    const w = new Writer(16);
    beginZoneInputs(w, 'local');
    const head = w.pos;
    writePacketRecord(w, 5, 0, MoveInput.opcode, (out) => MoveInput.payload.write(out, move));
    const payload = new Writer(64);
    MoveInput.payload.write(payload, move);
    expect(w.pos - head - payload.pos).toBe(1 + 1 + 8 + 2 + 2);
  });
});

describe('gateway batch', () => {
  it('reads back joined, bytes and left records in order, the bytes as written', () => {
    const w = new Writer(16);
    const frames = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
    beginGatewayBatch(w, 'zh-1', 70_000);
    writeJoinedRecord(w, 1, 40, 9);
    writeBytesRecord(w, 1, frames, 0, frames.length);
    writeBytesRecord(w, 200_000, frames, 10, 20);
    writeLeftRecord(w, 3, LeftReason.NotEntered);
    writeLeftRecord(w, 4, LeftReason.TakenOver);
    const seen: GatewayBatchRecord[] = [];
    const batch = w.finish();
    readGatewayBatch(batch, (r) =>
      seen.push(r.kind === GatewayRecord.Bytes ? { ...r, bytes: r.bytes.slice() } : r),
    );
    const heads: [string, number][] = [];
    visitGatewayBatch(batch, {
      begin: (host, seq) => heads.push([host, seq]),
      joined() {},
      bytes() {},
      left() {},
    });
    expect(heads).toEqual([['zh-1', 70_000]]);
    expect(seen).toEqual([
      { kind: GatewayRecord.Joined, session: 1, entity: 40, character: 9 },
      { kind: GatewayRecord.Bytes, session: 1, bytes: frames },
      { kind: GatewayRecord.Bytes, session: 200_000, bytes: frames.slice(10, 20) },
      { kind: GatewayRecord.Left, session: 3, reason: LeftReason.NotEntered },
      { kind: GatewayRecord.Left, session: 4, reason: LeftReason.TakenOver },
    ]);
  });

  it('refuses an unknown record kind instead of guessing', () => {
    const w = new Writer(16);
    beginGatewayBatch(w, 'zh', 1);
    w.u8(9);
    w.varint(1);
    expect(() => readGatewayBatch(w.finish(), () => {})).toThrow(/kind 9/);
  });

  it('counts tick messages 1, 2, ... and back to 1 after 2^32-1', () => {
    expect(nextSeq(1)).toBe(2);
    expect(nextSeq(0xffffffff)).toBe(1);
  });
});

describe('requests between processes', () => {
  it("carries a whisper to its target's gateway, and the answer", () => {
    const delivery = decodeWhisperDelivery(
      encodeWhisperDelivery({ to: 'Aldö', frames: Uint8Array.of(1, 2, 3) }),
    );
    expect(delivery.to).toBe('Aldö');
    expect([...delivery.frames]).toEqual([1, 2, 3]);
    expect(decodeWhisperReply(encodeWhisperReply(WhisperStatus.Sent))).toBe(WhisperStatus.Sent);
    expect(decodeWhisperReply(encodeWhisperReply(WhisperStatus.NoSuchPlayer))).toBe(
      WhisperStatus.NoSuchPlayer,
    );
    expect(decodeWhisperReply(new Uint8Array(0))).toBe(WhisperStatus.NotInWorld);
  });
});
