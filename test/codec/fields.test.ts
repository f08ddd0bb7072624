import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DecodeError,
  DecodeErrorCode,
  EncodeError,
  HEADER_SIZE,
  Reader,
  t,
  Writer,
} from '../../shared/codec/index.js';
import type { Field } from '../../shared/codec/index.js';
import { entityRecords, Hello } from '../../shared/protocol/index.js';
import { arbitraryFor, angleStep, quantizedStep } from '../helpers/arbitrary.js';
import { maximalFor, sampleFor } from '../helpers/sample.js';

// ---------------------------------------------------------------------------------------
// Builders

function encode<T>(field: Field<T>, value: T, writer = new Writer(8)): number[] {
  writer.reset();
  field.write(writer, value);
  return Array.from(writer.finish());
}

function decode<T>(field: Field<T>, bytes: readonly number[]): T {
  const r = new Reader(Uint8Array.from(bytes));
  const v = field.read(r);
  expect(r.remaining, 'bytes left after the field').toBe(0);
  return v;
}

function roundTrip<T>(field: Field<T>, value: T): T {
  return decode(field, encode(field, value));
}

const utf8 = (s: string) => Array.from(new TextEncoder().encode(s));
const TAU = Math.PI * 2;

// ---------------------------------------------------------------------------------------

describe('Writer', () => {
  it('grows from one byte to whatever is written, keeping every byte', () => {
    const w = new Writer(1);
    const expected: number[] = [];
    for (let i = 0; i < 1000; i++) {
      w.u32((i & 0xff) * 0x01010101);
      expected.push(i & 0xff, i & 0xff, i & 0xff, i & 0xff);
    }
    expect(Array.from(w.finish())).toEqual(expected);
  });

  it('grows in the middle of a string, a varint and raw bytes', () => {
    const w = new Writer(2);
    w.string('é'.repeat(50), 255, 1);
    w.varint(0xffffffff);
    w.raw(new Uint8Array(300).fill(9));
    const r = new Reader(w.finish());
    expect(r.string(255, 1)).toBe('é'.repeat(50));
    expect(r.varint()).toBe(0xffffffff);
    expect(Array.from(r.raw(300))).toEqual(new Array(300).fill(9));
    expect(r.remaining).toBe(0);
  });

  it('hands out a copy from finish() and a view from peek()', () => {
    const w = new Writer(4);
    w.u8(1);
    const copy = w.finish();
    const view = w.peek();
    w.reset();
    w.u8(2);
    expect(copy[0]).toBe(1);
    expect(view[0]).toBe(2);
  });

  it('rewinds on reset without shrinking', () => {
    const w = new Writer(4);
    w.raw(new Uint8Array(100));
    w.reset();
    w.u16(0x0102);
    expect(Array.from(w.finish())).toEqual([0x02, 0x01]);
  });
});

describe('varint', () => {
  it.each([
    [0, [0x00]],
    [1, [0x01]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [16383, [0xff, 0x7f]],
    [16384, [0x80, 0x80, 0x01]],
    [2 ** 31, [0x80, 0x80, 0x80, 0x80, 0x08]],
    [2 ** 32 - 1, [0xff, 0xff, 0xff, 0xff, 0x0f]],
  ])('encodes %i as its shortest LEB128 form and back', (value, bytes) => {
    expect(encode(t.varint, value)).toEqual(bytes);
    expect(decode(t.varint, bytes)).toBe(value);
  });

  it.each([2 ** 32, -1, 1.5, NaN, Infinity])('refuses %d on encode', (value) => {
    expect(() => encode(t.varint, value)).toThrow(EncodeError);
  });

  it('refuses a varint cut short with ERR_SHORT', () => {
    expect(() => decode(t.varint, [0x80, 0x80])).toThrow(
      expect.objectContaining({ code: DecodeErrorCode.Short }),
    );
  });
});

describe('signed and unsigned integers', () => {
  it.each([
    [t.i8, -1, [0xff]],
    [t.i8, -128, [0x80]],
    [t.i8, 127, [0x7f]],
    [t.i16, -1, [0xff, 0xff]],
    [t.i16, -32768, [0x00, 0x80]],
    [t.i16, 32767, [0xff, 0x7f]],
    [t.i32, -1, [0xff, 0xff, 0xff, 0xff]],
    [t.i32, -(2 ** 31), [0x00, 0x00, 0x00, 0x80]],
    [t.i32, 2 ** 31 - 1, [0xff, 0xff, 0xff, 0x7f]],
    [t.u16, 0xbeef, [0xef, 0xbe]],
    [t.u32, 2 ** 32 - 1, [0xff, 0xff, 0xff, 0xff]],
    [t.u32, 2 ** 31, [0x00, 0x00, 0x00, 0x80]],
  ] as const)('writes %o value %d little-endian and reads it back with its sign', (field, value, bytes) => {
    expect(encode(field, value)).toEqual(bytes);
    expect(decode(field, bytes)).toBe(value);
  });

  it.each([
    [t.u8, 256],
    [t.u8, -1],
    [t.i8, 128],
    [t.i8, -129],
    [t.u16, 65536],
    [t.i16, 32768],
    [t.i16, -32769],
    [t.u32, 2 ** 32],
    [t.i32, 2 ** 31],
    [t.i32, -(2 ** 31) - 1],
    [t.u8, 0.5],
  ] as const)('refuses %o value %d on encode', (field, value) => {
    expect(() => encode(field, value)).toThrow(EncodeError);
  });
});

describe('floats', () => {
  it('sends f32 at 32-bit precision', () => {
    expect(roundTrip(t.f32, 0.1)).toBe(Math.fround(0.1));
    expect(roundTrip(t.f32, -0)).toBe(-0);
    expect(roundTrip(t.f32, 3.4028234663852886e38)).toBe(3.4028234663852886e38);
  });

  it('sends f64 exactly', () => {
    expect(roundTrip(t.f64, 1_763_000_000_000.123)).toBe(1_763_000_000_000.123);
    expect(roundTrip(t.f64, Number.MIN_VALUE)).toBe(Number.MIN_VALUE);
  });

  it.each([NaN, Infinity, -Infinity])('refuses %d on encode', (v) => {
    expect(() => encode(t.f32, v)).toThrow(EncodeError);
    expect(() => encode(t.f64, v)).toThrow(EncodeError);
  });

  // A finite double beyond the f32 range becomes an infinity on the wire, which every
  // decoder refuses with ERR_BAD_NUMBER: the sender must refuse it instead.
  it.each([1e39, -1e39, 3.5e38])('refuses %d, finite but beyond the f32 range, on encode', (v) => {
    expect(() => encode(t.f32, v)).toThrow(EncodeError);
  });
});

describe('quantized', () => {
  const q = t.quantized(-100, 100);
  const step = 200 / 65535;

  it('clamps values outside its range to the ends', () => {
    expect(encode(q, -1000)).toEqual([0x00, 0x00]);
    expect(encode(q, 1000)).toEqual([0xff, 0xff]);
    expect(roundTrip(q, -1000)).toBe(-100);
    expect(roundTrip(q, 1000)).toBeCloseTo(100, 10);
  });

  it('decodes to within half a step of any value in range', () => {
    fc.assert(
      fc.property(fc.double({ min: -100, max: 100, noNaN: true }), (v) => {
        expect(Math.abs(roundTrip(q, v) - v)).toBeLessThanOrEqual(step / 2 + 1e-12);
      }),
    );
  });

  it('decodes a value on its grid exactly', () => {
    for (const k of [0, 1, 12345, 32767, 32768, 65534, 65535]) {
      expect(roundTrip(q, quantizedStep(-100, 100, k))).toBe(quantizedStep(-100, 100, k));
    }
  });

  it('refuses NaN on encode', () => {
    expect(() => encode(q, NaN)).toThrow(EncodeError);
  });
});

describe('angle', () => {
  it.each([
    [0, 0],
    [Math.PI / 2, 64],
    [Math.PI, 128],
    [-Math.PI / 2, 192],
    [-TAU, 0],
    [TAU, 0],
    [TAU + Math.PI / 4, 32],
    [101 * Math.PI, 128],
    [TAU - 0.001, 0],
  ])('sends %d radians as step %i', (v, step) => {
    expect(encode(t.angle, v)).toEqual([step]);
    expect(roundTrip(t.angle, v)).toBe(angleStep(step));
  });

  it('decodes into [0, 2π) to within half a step', () => {
    fc.assert(
      fc.property(fc.double({ min: -100, max: 100, noNaN: true }), (v) => {
        const got = roundTrip(t.angle, v);
        expect(got).toBeGreaterThanOrEqual(0);
        expect(got).toBeLessThan(TAU);
        const diff = Math.abs(((((got - v) % TAU) + TAU + Math.PI) % TAU) - Math.PI);
        expect(diff).toBeLessThanOrEqual(TAU / 512 + 1e-9);
      }),
    );
  });

  it.each([NaN, Infinity])('refuses %d on encode', (v) => {
    expect(() => encode(t.angle, v)).toThrow(EncodeError);
  });
});

describe('strings', () => {
  const short = t.string(40);
  const long = t.string(600);

  // Writer: ASCII up to 64 characters is copied by hand, anything else goes through
  // TextEncoder. Reader: ASCII up to 32 bytes is read by hand, anything else through
  // TextDecoder. Each case below crosses one of those lines.
  it.each([
    ['short ASCII (both fast paths)', 'Wyvern'],
    ['ASCII of 33 bytes (fast write, slow read)', 'a'.repeat(33)],
    ['ASCII of 65 characters (slow write, slow read)', 'b'.repeat(65)],
    ['2-byte UTF-8', 'Über'],
    ['3-byte UTF-8 after ASCII', 'check ✓'],
    ['4-byte UTF-8 (a surrogate pair in JS)', '🐉 Wyrm'],
    ['ASCII then non-ASCII past 32 bytes', `${'x'.repeat(31)}é`],
    ['the empty string', ''],
  ])('round-trips %s', (_name, s) => {
    const bytes = encode(s.length > 40 ? long : short, s);
    expect(bytes.slice(s.length > 40 ? 2 : 1)).toEqual(utf8(s));
    expect(roundTrip(s.length > 40 ? long : short, s)).toBe(s);
  });

  // TextDecoder drops a leading U+FEFF as a byte order mark unless told not to; on the wire
  // it is an ordinary character of the string.
  it.each([
    ['short', '\uFEFFWyvern'],
    ['long', `\uFEFF${'x'.repeat(40)}`],
  ])('keeps a leading U+FEFF in a %s string', (_name, s) => {
    expect(roundTrip(long, s)).toBe(s);
  });

  it('prefixes a string with max above 255 by a u16 length', () => {
    expect(encode(long, 'é'.repeat(150)).slice(0, 2)).toEqual([44, 1]);
  });

  it('accepts a string of exactly max bytes and refuses one byte more', () => {
    const four = t.string(4);
    expect(roundTrip(four, 'éé')).toBe('éé');
    expect(roundTrip(four, '🐉')).toBe('🐉');
    expect(() => encode(four, 'éé!')).toThrow(EncodeError);
    expect(() => encode(four, 'abcde')).toThrow(EncodeError);
  });

  it('leaves the writer where it was when it refuses a string', () => {
    const w = new Writer(4);
    w.u8(7);
    expect(() => t.string(4).write(w, 'much too long')).toThrow(EncodeError);
    expect(() => t.string(4).write(w, 'ééé')).toThrow(EncodeError);
    expect(Array.from(w.finish())).toEqual([7]);
  });
});

describe('bytes, lists, optionals, enums and structs', () => {
  it('decodes bytes into a copy, not a view of the payload', () => {
    const payload = Uint8Array.of(2, 0xaa, 0xbb);
    const got = t.bytes(8).read(new Reader(payload));
    payload[1] = 0;
    expect(Array.from(got)).toEqual([0xaa, 0xbb]);
  });

  it('writes an optional as a flag and the value', () => {
    const o = t.optional(t.u16);
    expect(encode(o, undefined)).toEqual([0]);
    expect(encode(o, 0x0102)).toEqual([1, 0x02, 0x01]);
    expect(roundTrip(o, undefined)).toBeUndefined();
  });

  it('writes an enum as the index of its value', () => {
    const e = t.enumOf(['a', 'b', 7] as const);
    expect(encode(e, 7)).toEqual([2]);
    expect(decode(e, [1])).toBe('b');
    expect(() => decode(e, [3])).toThrow(expect.objectContaining({ code: DecodeErrorCode.BadEnum }));
  });

  it('writes a struct as its fields in declaration order, with no header', () => {
    const s = t.struct({ b: t.u8, a: t.u16, 'odd name': t.bool });
    expect(encode(s, { b: 1, a: 0x0302, 'odd name': true })).toEqual([1, 0x02, 0x03, 1]);
  });

  it('counts a list with a u16 when its max is above 255', () => {
    const l = t.list(t.u8, 256);
    expect(encode(l, [9])).toEqual([1, 0, 9]);
    expect(l.maxSize).toBe(2 + 256);
  });
});

// A struct with every field type, nested: the test helpers must cover them all.
const everything = t.struct({
  u8: t.u8,
  i8: t.i8,
  u16: t.u16,
  i16: t.i16,
  u32: t.u32,
  i32: t.i32,
  f32: t.f32,
  f64: t.f64,
  bool: t.bool,
  varint: t.varint,
  angle: t.angle,
  quantized: t.quantized(-50, 50),
  short: t.string(16),
  long: t.string(300),
  bytes: t.bytes(40),
  bigBytes: t.bytes(300),
  list: t.list(t.struct({ x: t.f32, tag: t.enumOf(['a', 'b'] as const) }), 5),
  optional: t.optional(t.struct({ n: t.optional(t.varint) })),
  enum: t.enumOf([1, 2, 3] as const),
  // Records run to the end of the payload, so they come last. Generated values (up to
  // LIST_CAP records of at most 77 bytes) stay below this maxSize.
  records: entityRecords(2000),
});

describe('test helpers cover every field type', () => {
  it('arbitraryFor generates values that round-trip exactly', () => {
    const roomy = new Writer(1 << 16);
    fc.assert(
      fc.property(arbitraryFor(everything), (v) => {
        expect(decode(everything, encode(everything, v, roomy))).toEqual(v);
      }),
      { numRuns: 150 },
    );
  });

  it('sampleFor gives a value that round-trips exactly', () => {
    const v = sampleFor(everything);
    expect(roundTrip(everything, v)).toEqual(v);
  });

  it('maximalFor gives a value whose encoding is exactly maxSize', () => {
    const v = maximalFor(everything);
    expect(encode(everything, v)).toHaveLength(everything.maxSize);
    expect(roundTrip(everything, v)).toEqual(v);
  });
});

describe('struct encoders', () => {
  // Fixed-layout fields are written without a bounds check, into room reserved when the
  // struct starts. A string, list or nested struct written before them moves the position
  // on and can use that room up, so it has to be reserved again after each of them.
  it('write the same bytes whatever room the writer starts with', () => {
    const roomy = new Writer(1 << 16);
    fc.assert(
      fc.property(arbitraryFor(everything), fc.integer({ min: 1, max: 300 }), (v, capacity) => {
        expect(encode(everything, v, new Writer(capacity))).toEqual(encode(everything, v, roomy));
      }),
      { numRuns: 150 },
    );
  });

  it('write a fixed field that follows an empty string into a writer with no spare room', () => {
    const s = t.struct({ name: t.string(16), a: t.u32, b: t.u32 });
    const w = new Writer(1);
    s.write(w, { name: '', a: 0x04030201, b: 0x08070605 });
    expect(Array.from(w.finish())).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('packet write()', () => {
  // Frames are batched into one Writer per client; a refused value must not leave half a
  // frame behind it, or every later frame in the batch would be read as garbage.
  it('leaves a batching writer as it was when it refuses a value', () => {
    const w = new Writer(64);
    Hello.write(w, { protocolVersion: 1, clientKind: 'bot', clientName: 'first' });
    const before = Array.from(w.peek());
    expect(() =>
      Hello.write(w, { protocolVersion: 1, clientKind: 'bot', clientName: 'x'.repeat(40) }),
    ).toThrow(EncodeError);
    expect(Array.from(w.peek())).toEqual(before);
  });

  it('appends a whole frame after the bytes already in the writer', () => {
    const w = new Writer(4);
    w.u8(0xee);
    Hello.write(w, { protocolVersion: 1, clientKind: 'bot', clientName: 'b' });
    const bytes = w.finish();
    expect(bytes[0]).toBe(0xee);
    expect(bytes[1]! | (bytes[2]! << 8)).toBe(bytes.length - 1);
    expect(Hello.decode(bytes.subarray(1 + HEADER_SIZE))).toEqual({
      protocolVersion: 1,
      clientKind: 'bot',
      clientName: 'b',
    });
  });

  it('reports a truncated payload as a DecodeError with a code', () => {
    const frame = Hello.encode({ protocolVersion: 1, clientKind: 'bot', clientName: 'b' });
    expect(() => Hello.decode(frame.subarray(HEADER_SIZE, frame.length - 1))).toThrow(DecodeError);
  });
});
