import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  crc16,
  DecodeError,
  DecodeErrorCode,
  FrameDecoder,
  HEADER_SIZE,
  MAX_FRAME_SIZE,
  Writer,
} from '../../shared/codec/index.js';
import {
  ChatMessage,
  Hello,
  ListCharacters,
  LogoutComplete,
  WhoList,
  WorldUpdate,
  ZoneInfo,
} from '../../shared/protocol/index.js';
import type { EntityRecord } from '../../shared/protocol/index.js';

// ---------------------------------------------------------------------------------------
// Builders

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A hand-made frame: header with the right size and CRC around any payload. */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const size = HEADER_SIZE + payload.length;
  const crc = crc16(payload);
  return concat(
    Uint8Array.of(size & 0xff, size >>> 8, opcode & 0xff, opcode >>> 8, crc & 0xff, crc >>> 8),
    payload,
  );
}

interface Seen {
  opcode: number;
  payload: string;
}

/** Pushes each chunk and drains the decoder after each push. */
function decodeChunks(chunks: Uint8Array[], decoder = new FrameDecoder()): Seen[] {
  const out: Seen[] = [];
  for (const chunk of chunks) {
    decoder.push(chunk);
    for (let f = decoder.next(); f; f = decoder.next())
      out.push({ opcode: f.opcode, payload: hex(f.payload) });
  }
  return out;
}

function decodeError(run: () => unknown): DecodeError {
  try {
    run();
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
  throw new Error('no error');
}

const walking = (id: number, x: number, y: number): EntityRecord => ({
  kind: 'move',
  id,
  x,
  y,
  angle: 0,
  moving: true,
  jump: false,
  speed: undefined,
});

/** Several packets, one of them with an empty payload and one over 256 bytes. */
function mixedStream(): { bytes: Uint8Array; frames: Seen[] } {
  const parts = [
    Hello.encode({ protocolVersion: 1, clientKind: 'native', clientName: 'Wyvern' }),
    ListCharacters.encode({}),
    WorldUpdate.encode({ tick: 1, time: 50, records: [walking(300, 0, 4096)] }),
    ChatMessage.encode({ channel: 'say', fromId: 7, from: 'Über', to: '', text: 'héllo ✓ 🐉' }),
    LogoutComplete.encode({}),
    WhoList.encode({
      total: 40,
      players: Array.from({ length: 12 }, (_, i) => ({
        name: `Player${i}`,
        level: i,
        zone: 'Meadow of Ash',
      })),
    }),
  ];
  return {
    bytes: concat(...parts),
    frames: parts.map((p) => ({
      opcode: p[2]! | (p[3]! << 8),
      payload: hex(p.subarray(HEADER_SIZE)),
    })),
  };
}

// ---------------------------------------------------------------------------------------

describe('crc16', () => {
  it('is CRC-16/CCITT-FALSE: "123456789" gives 0x29B1', () => {
    expect(crc16(new TextEncoder().encode('123456789'))).toBe(0x29b1);
  });

  it('gives the initial value 0xFFFF for no bytes', () => {
    expect(crc16(new Uint8Array(0))).toBe(0xffff);
  });

  it('checksums only the given range', () => {
    const padded = new TextEncoder().encode('xx123456789yy');
    expect(crc16(padded, 2, 11)).toBe(0x29b1);
  });
});

describe('FrameDecoder', () => {
  it('yields the same frames from one chunk, from any two chunks and from single bytes', () => {
    const { bytes, frames } = mixedStream();
    expect(bytes.length).toBeGreaterThan(256);
    expect(decodeChunks([bytes])).toEqual(frames);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const got = decodeChunks([bytes.slice(0, cut), bytes.slice(cut)]);
      if (JSON.stringify(got) !== JSON.stringify(frames)) {
        expect(got, `split at byte ${cut}`).toEqual(frames);
      }
    }
    expect(decodeChunks(Array.from(bytes, (b) => Uint8Array.of(b)))).toEqual(frames);
  });

  it('yields the frames a Writer batched with write() exactly as encode() makes them', () => {
    const w = new Writer(16);
    Hello.write(w, { protocolVersion: 1, clientKind: 'bot', clientName: 'b' });
    ListCharacters.write(w, {});
    WorldUpdate.write(w, { tick: 1, time: 2, records: [walking(1, 1, 2), walking(0, 3, 4)] });
    const expected = concat(
      Hello.encode({ protocolVersion: 1, clientKind: 'bot', clientName: 'b' }),
      ListCharacters.encode({}),
      WorldUpdate.encode({ tick: 1, time: 2, records: [walking(1, 1, 2), walking(0, 3, 4)] }),
    );
    expect(hex(w.finish())).toBe(hex(expected));
    expect(decodeChunks([w.finish()]).map((f) => f.opcode)).toEqual([
      Hello.opcode,
      ListCharacters.opcode,
      WorldUpdate.opcode,
    ]);
  });

  it('says "need more bytes" (undefined) on a partial frame, never an error', () => {
    const bytes = Hello.encode({ protocolVersion: 1, clientKind: 'native', clientName: 'Wyvern' });
    const decoder = new FrameDecoder();
    expect(decoder.next()).toBeUndefined();
    decoder.push(bytes.subarray(0, 1));
    expect(decoder.next()).toBeUndefined();
    decoder.push(bytes.subarray(1, bytes.length - 1));
    expect(decoder.next()).toBeUndefined();
    expect(decoder.buffered).toBe(bytes.length - 1);
    decoder.push(bytes.subarray(bytes.length - 1));
    expect(decoder.next()?.opcode).toBe(Hello.opcode);
    expect(decoder.buffered).toBe(0);
  });

  it('ignores empty chunks', () => {
    const decoder = new FrameDecoder();
    decoder.push(new Uint8Array(0));
    expect(decoder.next()).toBeUndefined();
    expect(
      decodeChunks([new Uint8Array(0), ListCharacters.encode({}), new Uint8Array(0)], decoder),
    ).toHaveLength(1);
  });

  it.each([0, 1, 5])('refuses a size of %i (below the header) with ERR_FRAME_SIZE', (size) => {
    const decoder = new FrameDecoder();
    decoder.push(Uint8Array.of(size, 0, 1, 0, 0xff, 0xff));
    expect(decodeError(() => decoder.next()).code).toBe(DecodeErrorCode.FrameSize);
  });

  it('refuses a size above its maximum from the first two bytes, without waiting for the rest', () => {
    const decoder = new FrameDecoder(100);
    decoder.push(Uint8Array.of(101, 0));
    expect(decodeError(() => decoder.next()).code).toBe(DecodeErrorCode.FrameSize);
  });

  it('accepts a frame of exactly its maximum size', () => {
    const decoder = new FrameDecoder(100);
    decoder.push(frame(0x0999, new Uint8Array(100 - HEADER_SIZE).fill(7)));
    expect(decoder.next()?.payload.length).toBe(100 - HEADER_SIZE);
  });

  it('carries the largest frame the header allows', () => {
    const payload = new Uint8Array(MAX_FRAME_SIZE - HEADER_SIZE).map((_, i) => i & 0xff);
    const got = decodeChunks([
      frame(0x1234, payload).subarray(0, 40_000),
      frame(0x1234, payload).subarray(40_000),
    ]);
    expect(got).toEqual([{ opcode: 0x1234, payload: hex(payload) }]);
  });

  it('refuses a maximum frame size outside [6, 65535] when built', () => {
    expect(() => new FrameDecoder(5)).toThrow(RangeError);
    expect(() => new FrameDecoder(MAX_FRAME_SIZE + 1)).toThrow(RangeError);
  });

  it('refuses a flipped payload bit with ERR_BAD_CRC', () => {
    const bytes = ZoneInfo.encode({
      zone: 'Meadow',
      x: 0,
      y: 0,
      width: 512,
      height: 512,
      obstacles: [],
      neighbours: [],
      cellSize: 32,
      respawnDelay: 0,
    });
    for (let at = HEADER_SIZE; at < bytes.length; at++) {
      for (let bit = 0; bit < 8; bit++) {
        const bad = bytes.slice();
        bad[at]! ^= 1 << bit;
        const decoder = new FrameDecoder();
        decoder.push(bad);
        expect(decodeError(() => decoder.next()).code).toBe(DecodeErrorCode.BadCrc);
      }
    }
  });

  it('refuses a wrong CRC on an empty payload with ERR_BAD_CRC', () => {
    const decoder = new FrameDecoder();
    decoder.push(Uint8Array.of(6, 0, 1, 2, 0xfe, 0xff));
    expect(decodeError(() => decoder.next()).code).toBe(DecodeErrorCode.BadCrc);
  });

  it('keeps earlier payload views intact after later pushes', () => {
    const { bytes, frames } = mixedStream();
    const decoder = new FrameDecoder();
    const views: Uint8Array[] = [];
    // Uneven chunks so that leftovers are joined with later data.
    for (let at = 0; at < bytes.length; at += 7) {
      decoder.push(bytes.slice(at, at + 7));
      for (let f = decoder.next(); f; f = decoder.next()) views.push(f.payload);
    }
    decoder.push(ListCharacters.encode({}));
    decoder.next();
    expect(views.map(hex)).toEqual(frames.map((f) => f.payload));
  });

  it('never throws anything but DecodeError on random bytes in random chunks', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        (bytes, sizes) => {
          const decoder = new FrameDecoder(1024);
          let at = 0;
          try {
            for (let i = 0; at < bytes.length; i++) {
              const n = sizes[i % sizes.length]!;
              decoder.push(bytes.subarray(at, at + n));
              at += n;
              while (decoder.next());
            }
          } catch (e) {
            if (!(e instanceof DecodeError)) throw e;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws anything but DecodeError on a valid stream with corrupted bytes', () => {
    const { bytes } = mixedStream();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 97 }),
        (flips, chunk) => {
          const bad = bytes.slice();
          for (const [at, mask] of flips) bad[at]! ^= mask;
          const decoder = new FrameDecoder();
          try {
            for (let at = 0; at < bad.length; at += chunk) {
              decoder.push(bad.subarray(at, at + chunk));
              while (decoder.next());
            }
          } catch (e) {
            if (!(e instanceof DecodeError)) throw e;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('FrameDecoder header judge', () => {
  it('judges each header once, as soon as its first 4 bytes arrive, whatever the chunking', () => {
    const frames = [
      frame(0x0101, new Uint8Array(40)),
      frame(0x0003, new Uint8Array(12)),
      frame(0x0201, new Uint8Array(0)),
    ];
    const stream = concat(...frames);
    for (const chunk of [1, 2, 3, 5, 7, stream.length]) {
      const seen: [number, number, number][] = [];
      let received = 0;
      const decoder = new FrameDecoder(MAX_FRAME_SIZE, (opcode, size) => seen.push([opcode, size, received]));
      const out: number[] = [];
      for (let at = 0; at < stream.length; at += chunk) {
        const part = stream.subarray(at, at + chunk);
        received += part.length;
        decoder.push(part);
        for (let f = decoder.next(); f; f = decoder.next()) out.push(f.opcode);
      }
      expect(out).toEqual([0x0101, 0x0003, 0x0201]);
      expect(seen.map(([opcode, size]) => [opcode, size])).toEqual([
        [0x0101, 46],
        [0x0003, 18],
        [0x0201, 6],
      ]);
      // Judged before the rest of the frame was needed: within one chunk of its header.
      const starts = [0, 46, 64];
      seen.forEach(([, , at], i) => expect(at - (starts[i]! + 4)).toBeLessThan(chunk));
    }
  });

  it('refuses a frame on its header, before its payload arrives', () => {
    const decoder = new FrameDecoder(MAX_FRAME_SIZE, (opcode, size) => {
      if (size > 100) throw new DecodeError(DecodeErrorCode.FrameSize, 'too big', opcode);
    });
    decoder.push(Uint8Array.of(0x00, 0x10, 0x03));
    expect(decoder.next()).toBeUndefined();
    decoder.push(Uint8Array.of(0x00));
    expect(() => decoder.next()).toThrow(expect.objectContaining({ code: 'ERR_FRAME_SIZE', opcode: 3 }));
  });
});
