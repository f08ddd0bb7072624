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
import {
  CharacterList,
  ChatSend,
  DeleteCharacter,
  EntitySpawn,
  ErrorPacket,
  Hello,
  LoginOk,
  MoveInput,
  packets,
  Ping,
  Register,
  ZoneInfo,
} from '../../shared/protocol/index.js';
import type { Packet } from '../../shared/protocol/index.js';
import { samplePacket } from '../helpers/sample.js';

// ---------------------------------------------------------------------------------------
// Builders

function bytes(...parts: (number | readonly number[] | Uint8Array)[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else out.push(...p);
  }
  return Uint8Array.from(out);
}

const ascii = (s: string) => Array.from(new TextEncoder().encode(s));
const u16le = (v: number) => [v & 0xff, v >>> 8];
const f32le = (v: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, v, true);
  return Array.from(b);
};
const f64le = (v: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, v, true);
  return Array.from(b);
};

/** The error decoding throws; fails the test when decoding succeeds. */
function decodeFailure(def: Packet, payload: Uint8Array): DecodeError {
  try {
    def.decode(payload);
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw new Error(`expected a DecodeError, got ${String(e)}`, { cause: e });
  }
  throw new Error(`${def.name} decoded a malformed payload`);
}

function readFailure(field: Field<unknown>, payload: Uint8Array): DecodeError {
  try {
    field.read(new Reader(payload));
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw new Error(`expected a DecodeError, got ${String(e)}`, { cause: e });
  }
  throw new Error('decoded a malformed payload');
}

// ---------------------------------------------------------------------------------------

describe('malformed payloads get specific decode errors', () => {
  it('refuses a list count above its max with ERR_LIST_TOO_LONG (u8 count)', () => {
    const e = decodeFailure(CharacterList, bytes(9));
    expect(e.code).toBe(DecodeErrorCode.ListTooLong);
  });

  it('refuses a list count above its max with ERR_LIST_TOO_LONG (u16 count)', () => {
    const e = decodeFailure(ZoneInfo, bytes(6, ascii('Meadow'), f32le(100), f32le(100), u16le(2049)));
    expect(e.code).toBe(DecodeErrorCode.ListTooLong);
  });

  it('refuses a string longer than its max with ERR_STRING_TOO_LONG', () => {
    const e = decodeFailure(Hello, bytes(u16le(1), 0, 33, ascii('x'.repeat(33))));
    expect(e.code).toBe(DecodeErrorCode.StringTooLong);
  });

  it('refuses a u16-prefixed string longer than its max with ERR_STRING_TOO_LONG', () => {
    const e = readFailure(t.string(300), bytes(u16le(301), new Uint8Array(301)));
    expect(e.code).toBe(DecodeErrorCode.StringTooLong);
  });

  it('refuses an enum index past the last value with ERR_BAD_ENUM', () => {
    const e = decodeFailure(Hello, bytes(u16le(1), 3, 0));
    expect(e.code).toBe(DecodeErrorCode.BadEnum);
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an invalid lead byte', [0xff]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded surrogate half', [0xed, 0xa0, 0x80]],
    ['a truncated 3-byte sequence', [0xe2, 0x9c]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('refuses %s in a short string with ERR_BAD_UTF8', (_name, bad) => {
    const text = [...ascii('ok '), ...bad];
    const e = decodeFailure(Hello, bytes(u16le(1), 0, text.length, text));
    expect(e.code).toBe(DecodeErrorCode.BadUtf8);
  });

  it('refuses invalid UTF-8 in a string past the ASCII fast path with ERR_BAD_UTF8', () => {
    const text = [...ascii('a'.repeat(40)), 0xc3];
    const e = decodeFailure(ChatSend, bytes(0, text.length, text));
    expect(e.code).toBe(DecodeErrorCode.BadUtf8);
  });

  it('refuses a bool byte of 2 with ERR_BAD_BOOL', () => {
    const e = decodeFailure(ErrorPacket, bytes(0, 0, u16le(0), 2));
    expect(e.code).toBe(DecodeErrorCode.BadBool);
  });

  it('refuses an optional flag of 2 with ERR_BAD_BOOL', () => {
    const e = readFailure(t.optional(t.u8), bytes(2, 7));
    expect(e.code).toBe(DecodeErrorCode.BadBool);
  });

  it.each([
    ['a non-shortest zero', [0x80, 0x00]],
    ['a non-shortest one', [0x81, 0x80, 0x00]],
    ['six bytes', [0x80, 0x80, 0x80, 0x80, 0x80, 0x01]],
    ['five bytes with the continuation bit still set', [0xff, 0xff, 0xff, 0xff, 0x8f]],
    ['2^32', [0x80, 0x80, 0x80, 0x80, 0x10]],
  ])('refuses a varint of %s with ERR_BAD_VARINT', (_name, varint) => {
    const e = decodeFailure(DeleteCharacter, bytes(varint));
    expect(e.code).toBe(DecodeErrorCode.BadVarint);
  });

  it('accepts the largest varint, 2^32 - 1', () => {
    expect(DeleteCharacter.decode(bytes(0xff, 0xff, 0xff, 0xff, 0x0f))).toEqual({ characterId: 0xffffffff });
  });

  it.each([
    ['NaN', NaN],
    ['+infinity', Infinity],
    ['-infinity', -Infinity],
  ])('refuses an f32 of %s with ERR_BAD_NUMBER', (_name, v) => {
    const e = decodeFailure(MoveInput, bytes(0, 0, 0, 0, f32le(v), f32le(0), 0, f64le(0)));
    expect(e.code).toBe(DecodeErrorCode.BadNumber);
  });

  it('refuses an f32 NaN with any payload bits (not only the canonical one)', () => {
    const e = decodeFailure(MoveInput, bytes(0, 0, 0, 0, [0x01, 0x00, 0x80, 0xff], f32le(0), 0, f64le(0)));
    expect(e.code).toBe(DecodeErrorCode.BadNumber);
  });

  it('refuses an f64 NaN with ERR_BAD_NUMBER', () => {
    const e = decodeFailure(Ping, bytes(1, 0, 0, 0, f64le(NaN)));
    expect(e.code).toBe(DecodeErrorCode.BadNumber);
  });

  it('refuses bytes longer than their max with ERR_BYTES_TOO_LONG (u8 length)', () => {
    const e = decodeFailure(LoginOk, bytes(1, 0xaa, 1, 5, ascii('alice'), 33, new Uint8Array(33)));
    expect(e.code).toBe(DecodeErrorCode.BytesTooLong);
  });

  it('refuses bytes longer than their max with ERR_BYTES_TOO_LONG (u16 length)', () => {
    const e = decodeFailure(Register, bytes(5, ascii('alice'), 1, 0xaa, u16le(513), new Uint8Array(513)));
    expect(e.code).toBe(DecodeErrorCode.BytesTooLong);
  });

  it('refuses a too-long list before reading its items, so a huge count costs nothing', () => {
    // 0xffff items claimed, none sent: the count alone decides.
    const e = decodeFailure(ZoneInfo, bytes(0, f32le(1), f32le(1), u16le(0xffff)));
    expect(e.code).toBe(DecodeErrorCode.ListTooLong);
  });
});

// ---------------------------------------------------------------------------------------
// Every checked spot of every packet, found by walking the sample value: a valid encoding
// up to that spot, then one hostile prefix, and nothing after it. The decoder must name
// the problem from the prefix alone (reading on would give ERR_SHORT instead).

interface Hostile {
  readonly at: string;
  readonly payload: Uint8Array;
  readonly code: DecodeErrorCode;
}

function hostilePayloads(def: Packet): Hostile[] {
  const out: Hostile[] = [];
  const w = new Writer();
  const add = (at: string, code: DecodeErrorCode, tail: readonly number[]) => {
    out.push({ at, code, payload: bytes(w.peek(), tail) });
  };
  /** A count or length of n in the prefix width a max implies. */
  const prefix = (max: number, n: number) => (max <= 0xff ? [n] : u16le(n));
  const fits = (max: number) => max + 1 <= (max <= 0xff ? 0xff : 0xffff);

  const walk = (field: Field<unknown>, value: unknown, at: string): void => {
    const s = field.spec;
    switch (s.type) {
      case 'struct':
        for (const [name, f] of Object.entries(s.fields)) {
          walk(f, (value as Record<string, unknown>)[name], at ? `${at}.${name}` : name);
        }
        return;
      case 'list': {
        if (fits(s.max)) add(at, DecodeErrorCode.ListTooLong, prefix(s.max, s.max + 1));
        const items = value as unknown[];
        w.raw(Uint8Array.from(prefix(s.max, items.length)));
        items.forEach((item, i) => walk(s.of, item, `${at}[${i}]`));
        return;
      }
      case 'optional':
        add(at, DecodeErrorCode.BadBool, [2]);
        if (value === undefined) {
          w.u8(0);
        } else {
          w.u8(1);
          walk(s.of, value, at);
        }
        return;
      case 'string':
        if (fits(s.max)) add(at, DecodeErrorCode.StringTooLong, prefix(s.max, s.max + 1));
        add(at, DecodeErrorCode.BadUtf8, [...prefix(s.max, 1), 0xff]);
        break;
      case 'bytes':
        if (fits(s.max)) add(at, DecodeErrorCode.BytesTooLong, prefix(s.max, s.max + 1));
        break;
      case 'enum':
        if (s.values.length < 256) add(at, DecodeErrorCode.BadEnum, [s.values.length]);
        break;
      case 'bool':
        add(at, DecodeErrorCode.BadBool, [2]);
        break;
      case 'varint':
        add(at, DecodeErrorCode.BadVarint, [0x80, 0x00]);
        add(at, DecodeErrorCode.BadVarint, [0x80, 0x80, 0x80, 0x80, 0x10]);
        break;
      case 'f32':
        add(at, DecodeErrorCode.BadNumber, f32le(NaN));
        add(at, DecodeErrorCode.BadNumber, f32le(-Infinity));
        break;
      case 'f64':
        add(at, DecodeErrorCode.BadNumber, f64le(NaN));
        add(at, DecodeErrorCode.BadNumber, f64le(Infinity));
        break;
      default:
        // Fixed-width integers, angles and quantized values have no invalid encodings.
        break;
    }
    field.write(w, value);
  };
  walk(def.payload as Field<unknown>, samplePacket(def), '');
  return out;
}

describe('every checked spot of every packet refuses hostile bytes with its own code', () => {
  for (const def of packets) {
    const cases = hostilePayloads(def);
    if (cases.length === 0) continue;
    it(`${def.name} (${cases.length} hostile payloads)`, () => {
      const wrong: string[] = [];
      for (const c of cases) {
        let got: string;
        try {
          def.decode(c.payload);
          got = 'decoded';
        } catch (e) {
          got = e instanceof DecodeError ? e.code : `${String(e)} (not a DecodeError)`;
        }
        if (got !== c.code) wrong.push(`${c.at}: expected ${c.code}, got ${got}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});

// ---------------------------------------------------------------------------------------

describe('values that cannot be sent are refused with EncodeError', () => {
  const hello = (over: Partial<Parameters<typeof Hello.encode>[0]>) => ({
    protocolVersion: 1,
    clientKind: 'native' as const,
    clientName: 'Wyvern',
    ...over,
  });

  it.each([
    ['u16 above 65535', { protocolVersion: 0x10000 }],
    ['negative u16', { protocolVersion: -1 }],
    ['fractional u16', { protocolVersion: 1.5 }],
    ['NaN u16', { protocolVersion: NaN }],
  ])('refuses a %s', (_name, over) => {
    expect(() => Hello.encode(hello(over))).toThrow(EncodeError);
  });

  it('refuses an enum value that is not declared', () => {
    expect(() => Hello.encode(hello({ clientKind: 'robot' as never }))).toThrow(EncodeError);
  });

  it('refuses a string longer than its max in ASCII', () => {
    expect(() => Hello.encode(hello({ clientName: 'x'.repeat(33) }))).toThrow(EncodeError);
  });

  it('refuses a string that fits in characters but not in UTF-8 bytes', () => {
    const name = 'é'.repeat(17); // 17 characters, 34 bytes, max 32
    expect(() => Hello.encode(hello({ clientName: name }))).toThrow(EncodeError);
  });

  it('refuses a list with more items than its max', () => {
    const character = { id: 1, name: 'Wyvern', level: 1, zone: 'Meadow', appearance: 0 };
    expect(() => CharacterList.encode({ characters: Array(9).fill(character) })).toThrow(EncodeError);
  });

  it('refuses bytes longer than their max', () => {
    const value = { M2: new Uint8Array(64), accountId: 1, account: 'alice', resumeToken: new Uint8Array(33) };
    expect(() => LoginOk.encode(value)).toThrow(EncodeError);
  });

  it.each([
    ['u8 256', { level: 256 }],
    ['u32 2^32', { health: 2 ** 32 }],
    ['negative u32', { health: -1 }],
    ['varint 2^32', { id: 2 ** 32 }],
    ['negative varint', { id: -1 }],
    ['f32 NaN', { x: NaN }],
    ['f32 infinity', { y: Infinity }],
    ['angle NaN', { facing: NaN }],
  ])('refuses an out-of-range %s', (_name, over) => {
    const value = { ...samplePacket(EntitySpawn), ...over };
    expect(() => EntitySpawn.encode(value)).toThrow(EncodeError);
  });

  it('encodes normally again after a refused value', () => {
    expect(() => Hello.encode(hello({ clientName: 'x'.repeat(40) }))).toThrow(EncodeError);
    const frame = Hello.encode(hello({}));
    expect(Hello.decode(frame.subarray(HEADER_SIZE))).toEqual(hello({}));
  });
});
