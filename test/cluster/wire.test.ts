/** The gateway <-> zone host messages (server/cluster/wire.ts) read back what was written. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { DecodeError } from '../../shared/codec/errors.js';
import { Reader } from '../../shared/codec/reader.js';
import { Writer } from '../../shared/codec/writer.js';
import { MoveInput } from '../../shared/protocol/index.js';
import { readTagged, type StreamHandlers, type Tagged } from '../../server/cluster/inner/define.js';
import {
  Behind,
  Bytes,
  Detach,
  GatewayBatch,
  Handoff,
  HandoffAnswer,
  HandoffRequest,
  Join,
  Joined,
  Left,
  LeftReason,
  Moved,
  Refused,
  nextSeq,
  Packet,
  Resync,
  WhisperDelivery,
  WhisperReply,
  WhisperStatus,
  ZoneInputs,
} from '../../server/cluster/wire.js';

const move = { seq: 7, x: 10.5, y: 20.25, facing: 1, moving: true, speed: 4, clientTime: 1234.5, epoch: 0 };

describe('zone inputs', () => {
  it('reads back each record kind in order, with the sending gateway', () => {
    const w = new Writer(16);
    ZoneInputs.begin(w, { gateway: 'gw-1', epoch: 1, to: 0, seq: 3 });
    Join.write(w, { session: 300, account: 12, character: 99 });
    Packet.write(w, {
      session: 300,
      receivedAt: 1_700_000_000_123.5,
      opcode: MoveInput.opcode,
      payload: (out) => MoveInput.payload.write(out, move),
    });
    Behind.write(w, { session: 300, behind: true });
    Detach.write(w, { session: 300 });
    Resync.write(w, { session: 301 });
    const seen: [string, Tagged<typeof ZoneInputs>][] = [];
    readTagged(ZoneInputs, w.finish(), (record, { gateway }) => seen.push([gateway, record]));
    expect(seen.map(([g]) => g)).toEqual(['gw-1', 'gw-1', 'gw-1', 'gw-1', 'gw-1']);
    const records = seen.map(([, r]) => r);
    expect(records[0]).toEqual({ kind: 'Join', session: 300, account: 12, character: 99 });
    const packet = records[1]!;
    if (packet.kind !== 'Packet') throw new Error('expected a PACKET record');
    expect(packet).toMatchObject({ session: 300, receivedAt: 1_700_000_000_123.5, opcode: MoveInput.opcode });
    const alone = new Writer(64);
    MoveInput.payload.write(alone, move);
    expect([...packet.payload]).toEqual([...alone.finish()]);
    expect(MoveInput.payload.read(new Reader(packet.payload)).seq).toBe(7);
    expect(records[2]).toEqual({ kind: 'Behind', session: 300, behind: true });
    expect(records[3]).toEqual({ kind: 'Detach', session: 300 });
    expect(records[4]).toEqual({ kind: 'Resync', session: 301 });
  });

  it('costs a few bytes beyond the packet: kind, session, time, opcode and length', () => {
    const w = new Writer(16);
    ZoneInputs.begin(w, { gateway: 'local', epoch: 0, to: 0, seq: 0 });
    const head = w.pos;
    Packet.write(w, {
      session: 5,
      receivedAt: 0,
      opcode: MoveInput.opcode,
      payload: (out) => MoveInput.payload.write(out, move),
    });
    const payload = new Writer(64);
    MoveInput.payload.write(payload, move);
    expect(w.pos - head - payload.pos).toBe(1 + 1 + 8 + 2 + 2);
  });

  it('takes a payload as bytes, as a range of a buffer or written in place, the same on the wire', () => {
    const payload = Uint8Array.of(9, 8, 7, 6);
    const forms = [
      payload,
      { buf: Uint8Array.of(0, 9, 8, 7, 6, 0), start: 1, end: 5 },
      (out: Writer) => out.raw(payload),
    ];
    const encoded = forms.map((form) => {
      const w = new Writer(16);
      ZoneInputs.begin(w, { gateway: 'gw', epoch: 0, to: 0, seq: 0 });
      Packet.write(w, { session: 1, receivedAt: 2, opcode: 3, payload: form });
      return [...w.finish()];
    });
    expect(encoded[1]).toEqual(encoded[0]);
    expect(encoded[2]).toEqual(encoded[0]);
  });

  it('leaves a message as it was when a record is refused, so the records before it still go', () => {
    const w = new Writer(16);
    ZoneInputs.begin(w, { gateway: 'gw', epoch: 0, to: 0, seq: 0 });
    Detach.write(w, { session: 1 });
    const before = w.pos;
    expect(() => Join.write(w, { session: 2, account: -1, character: 3 })).toThrow(/varint/);
    expect(w.pos).toBe(before);
    const seen: string[] = [];
    readTagged(ZoneInputs, w.finish(), (r) => seen.push(r.kind));
    expect(seen).toEqual(['Detach']);
  });

  it('carries a hand-off as its own request, answered taken or refused', () => {
    const w = new Writer(16);
    HandoffRequest.begin(w, { gateway: 'gw-2', epoch: 0 });
    Handoff.write(w, { session: 4, account: 5, sentAt: 6.5, state: Uint8Array.of(1, 2) });
    const got: unknown[] = [];
    HandoffRequest.read(w.finish(), {
      Handoff: ({ session, account, sentAt, state }, { gateway }) =>
        got.push({ gateway, session, account, sentAt, state: [...state] }),
    });
    expect(got).toEqual([{ gateway: 'gw-2', session: 4, account: 5, sentAt: 6.5, state: [1, 2] }]);
    expect([...HandoffAnswer.encode({ answer: 'taken' })]).toEqual([1]);
    expect(HandoffAnswer.decode(Uint8Array.of(2))).toEqual({ answer: 'refused' });
    expect(() => HandoffAnswer.decode(Uint8Array.of(3))).toThrow(DecodeError);
  });

  it('refuses a hand-off among the zone inputs: it is only taken as a request that is answered', () => {
    const w = new Writer(16);
    ZoneInputs.begin(w, { gateway: 'gw', epoch: 1, to: 0, seq: 1 });
    Handoff.write(w, { session: 4, account: 5, sentAt: 6.5, state: Uint8Array.of(1) });
    expect(() => readTagged(ZoneInputs, w.finish(), () => {})).toThrow(/kind 6 unknown/);
  });
});

describe('gateway batch', () => {
  it('is visited with no object made per record: one object per kind, refilled, its bytes a range of the message', () => {
    const w = new Writer(16);
    const frames = Uint8Array.from({ length: 40 }, (_, i) => i);
    GatewayBatch.begin(w, { host: 'zh-1', epoch: 1, to: 0, seq: 3 });
    for (let session = 1; session <= 3; session++) {
      Joined.write(w, { session, entity: 40 + session, character: 9 });
      Bytes.write(w, { session, frames: { buf: frames, start: session, end: session * 10 } });
    }
    Refused.write(w, { session: 2, opcode: MoveInput.opcode, code: 'ERR_SHORT', reason: 'short' });
    const message = w.finish();
    const objects = new Set<object>();
    const seen: unknown[] = [];
    GatewayBatch.visit(message, {
      Joined(r) {
        objects.add(r);
        seen.push({ ...r });
      },
      Bytes(r) {
        objects.add(r);
        objects.add(r.frames);
        // A range of the message itself: no view, no copy.
        expect(r.frames.buf).toBe(message);
        seen.push({ session: r.session, frames: [...message.subarray(r.frames.start, r.frames.end)] });
      },
      Left() {},
      Moved() {},
      Refused(r) {
        seen.push({ ...r });
      },
      ResendInputs() {},
      TicksGone() {},
    });
    // Three records of each kind, and one object for each kind (the Bytes' range included).
    expect(objects.size).toBe(3);
    const read: unknown[] = [];
    readTagged(GatewayBatch, message, ({ kind, ...r }) =>
      read.push(
        kind === 'Bytes' ? { session: r.session, frames: [...(r as { frames: Uint8Array }).frames] } : r,
      ),
    );
    expect(seen).toEqual(read);
    // Cut short inside a record's bytes: the same error as a read.
    expect(() =>
      GatewayBatch.visit(message.subarray(0, 38), {
        Joined() {},
        Bytes() {},
        Left() {},
        Moved() {},
        Refused() {},
        ResendInputs() {},
        TicksGone() {},
      }),
    ).toThrow(DecodeError);
  });

  it('reads back joined, bytes, moved and left records in order, the bytes as written', () => {
    const w = new Writer(16);
    const frames = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
    GatewayBatch.begin(w, { host: 'zh-1', epoch: 1, to: 0, seq: 70_000 });
    Joined.write(w, { session: 1, entity: 40, character: 9 });
    Moved.write(w, { session: 1, zone: 'Ashmoor' });
    Bytes.write(w, { session: 1, frames });
    Bytes.write(w, { session: 200_000, frames: { buf: frames, start: 10, end: 20 } });
    Left.write(w, { session: 3, reason: LeftReason.NotEntered });
    Left.write(w, { session: 4, reason: LeftReason.TakenOver });
    const seen: Tagged<typeof GatewayBatch>[] = [];
    const batch = w.finish();
    readTagged(GatewayBatch, batch, (r) =>
      seen.push(r.kind === 'Bytes' ? { ...r, frames: r.frames.slice() } : r),
    );
    const heads: [string, number][] = [];
    GatewayBatch.read(batch, {
      begin: ({ host, seq }) => heads.push([host, seq]),
      Joined() {},
      Bytes() {},
      Left() {},
      Moved() {},
      Refused() {},
      ResendInputs() {},
      TicksGone() {},
    });
    expect(heads).toEqual([['zh-1', 70_000]]);
    expect(seen).toEqual([
      { kind: 'Joined', session: 1, entity: 40, character: 9 },
      { kind: 'Moved', session: 1, zone: 'Ashmoor' },
      { kind: 'Bytes', session: 1, frames },
      { kind: 'Bytes', session: 200_000, frames: frames.slice(10, 20) },
      { kind: 'Left', session: 3, reason: LeftReason.NotEntered },
      { kind: 'Left', session: 4, reason: LeftReason.TakenOver },
    ]);
  });

  it('hands BYTES over as a view into the message, not a copy', () => {
    const w = new Writer(16);
    GatewayBatch.begin(w, { host: 'zh', epoch: 1, to: 0, seq: 1 });
    Bytes.write(w, { session: 1, frames: Uint8Array.of(5, 6, 7) });
    const batch = w.finish();
    let view: Uint8Array | undefined;
    readTagged(GatewayBatch, batch, (r) => {
      if (r.kind === 'Bytes') view = r.frames;
    });
    expect(view!.buffer).toBe(batch.buffer);
  });

  it('refuses an unknown record kind instead of guessing', () => {
    const w = new Writer(16);
    GatewayBatch.begin(w, { host: 'zh', epoch: 1, to: 0, seq: 1 });
    w.u8(9);
    w.varint(1);
    expect(() => readTagged(GatewayBatch, w.finish(), () => {})).toThrow(/kind 9/);
  });

  it('refuses a LEFT reason it does not know instead of reading it as one it does', () => {
    const w = new Writer(16);
    GatewayBatch.begin(w, { host: 'zh', epoch: 1, to: 0, seq: 1 });
    w.u8(Left.kind);
    w.varint(1);
    w.u8(7);
    expect(() => readTagged(GatewayBatch, w.finish(), () => {})).toThrow(/code 7/);
  });

  it('counts tick messages 1, 2, ... and back to 1 after 2^32-1', () => {
    expect(nextSeq(1)).toBe(2);
    expect(nextSeq(0xffffffff)).toBe(1);
  });

  it('wants a handler for every record kind of a message', () => {
    expectTypeOf<keyof StreamHandlers<typeof GatewayBatch>>().toEqualTypeOf<
      'Joined' | 'Bytes' | 'Left' | 'Moved' | 'Refused' | 'ResendInputs' | 'TicksGone' | 'begin'
    >();
    expectTypeOf<keyof StreamHandlers<typeof ZoneInputs>>().toEqualTypeOf<
      'Packet' | 'Join' | 'Detach' | 'Behind' | 'Resync' | 'ResendTicks' | 'InputsGone' | 'MovedOn' | 'begin'
    >();
    // @ts-expect-error a table without Moved does not compile
    const missing: StreamHandlers<typeof GatewayBatch> = { Joined() {}, Bytes() {}, Left() {} };
    expect(missing).toBeDefined();
  });
});

describe('requests between processes', () => {
  it("carries a whisper to its target's gateway, and the answer", () => {
    const delivery = WhisperDelivery.decode(
      WhisperDelivery.encode({ to: 'Aldö', frames: Uint8Array.of(1, 2, 3) }),
    );
    expect(delivery.to).toBe('Aldö');
    expect([...delivery.frames]).toEqual([1, 2, 3]);
    for (const status of Object.values(WhisperStatus))
      expect(WhisperReply.decode(WhisperReply.encode({ status }))).toEqual({ status });
    // An empty or unknown answer is no delivery: the sender is told the target is not there.
    expect(() => WhisperReply.decode(new Uint8Array(0))).toThrow(DecodeError);
    expect(() => WhisperReply.decode(Uint8Array.of(3))).toThrow(DecodeError);
  });
});
