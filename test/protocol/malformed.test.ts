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
import fc from 'fast-check';
import {
  AGE,
  ALIVE,
  BASE,
  CharacterList,
  ChatSend,
  DeleteCharacter,
  dequantizeCoord,
  EnterWorld,
  ErrorPacket,
  Hello,
  HERE,
  JUMP,
  LoginOk,
  MAX_PATH_POINTS,
  MOVING,
  MoveInput,
  ONE,
  packets,
  Ping,
  RecordKind,
  Register,
  SAME_ANGLE,
  SPEED,
  WorldUpdate,
  markBase,
  writeRecord,
  writeRecords,
  ZoneInfo,
} from '../../shared/protocol/index.js';
import type { EntityRecord, Packet } from '../../shared/protocol/index.js';
import { entityRecordsArbitrary } from '../helpers/arbitrary.js';
import { sampleRecords, samplePacket } from '../helpers/sample.js';
import { splitBlocks } from './blocks.js';

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
/** Unsigned LEB128, shortest form. */
const varint = (v: number) => {
  const out: number[] = [];
  for (; v >= 0x80; v = Math.floor(v / 128)) out.push((v % 128) | 0x80);
  out.push(v);
  return out;
};
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
    const e = decodeFailure(
      ZoneInfo,
      bytes(6, ascii('Meadow'), f32le(0), f32le(0), f32le(100), f32le(100), u16le(2049)),
    );
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
    const e = decodeFailure(MoveInput, bytes(0, 0, 0, 0, f32le(v), f32le(0), 0, 1, f32le(0), f64le(0)));
    expect(e.code).toBe(DecodeErrorCode.BadNumber);
  });

  it('refuses an f32 NaN with any payload bits (not only the canonical one)', () => {
    const e = decodeFailure(
      MoveInput,
      bytes(0, 0, 0, 0, [0x01, 0x00, 0x80, 0xff], f32le(0), 0, 1, f32le(0), f64le(0)),
    );
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
    const e = decodeFailure(ZoneInfo, bytes(0, f32le(0), f32le(0), f32le(1), f32le(1), u16le(0xffff)));
    expect(e.code).toBe(DecodeErrorCode.ListTooLong);
  });
});

// ---------------------------------------------------------------------------------------
// WorldUpdate's entity records (shared/protocol/records.ts): records to the end of the
// payload, each `idDelta varint · tag u8 · fields` (a tag with BASE starts a block).

/** tick varint · time varint: what comes before the records. */
const HEAD = [...varint(7), ...varint(1000)];
/** A coordinate, a speed: any u16 is valid. */
const C = u16le(0x1234);
/** A record of each kind with a valid body after its tag (id delta and tag not included). */
const BODY: Record<keyof typeof RecordKind, number[]> = {
  Move: [...C, ...C, 64],
  Path: [...C, ...C, 1, ...C, ...C],
  Spawn: [1, ...u16le(3), 4, ...ascii('Wolf'), 5, ...varint(300), ...varint(300), ...C, 0],
  Despawn: [2],
  Health: [...varint(150), ...varint(300)],
  Death: [...varint(9)],
  Respawn: [...C, ...C, ...varint(150), ...varint(300)],
  MoveBy: [...varint(3), ...varint(4), 64],
};
const KINDS = Object.keys(RecordKind) as (keyof typeof RecordKind)[];

/** A WorldUpdate payload holding these records (the bytes of whole records). */
function update(...records: (number | readonly number[] | Uint8Array)[]): Uint8Array {
  return bytes(HEAD, ...records);
}

function recordsBytes(records: readonly EntityRecord[]): Uint8Array {
  const w = new Writer();
  writeRecords(w, records);
  return w.finish();
}

describe('WorldUpdate refuses malformed entity records with specific decode errors', () => {
  it('accepts one record of every kind, so the cases below break only what they name', () => {
    for (const kind of KINDS) {
      const got = WorldUpdate.decode(update(5, RecordKind[kind], BODY[kind]));
      expect(
        got.records.map((r) => [r.kind, r.id]),
        kind,
      ).toEqual([[kind[0]!.toLowerCase() + kind.slice(1), 5]]);
    }
  });

  it('reads the kind from the low 3 bits: BASE (0x08) changes only where the id counts from', () => {
    for (const kind of KINDS) {
      const got = WorldUpdate.decode(
        update(9, RecordKind.Death, BODY.Death, 5, RecordKind[kind] | BASE, BODY[kind]),
      );
      expect(
        got.records.map((r) => [r.kind, r.id]),
        kind,
      ).toEqual([
        ['death', 9],
        [kind[0]!.toLowerCase() + kind.slice(1), 5],
      ]);
    }
  });

  /** Every flag bit each kind refuses: move, moveBy and path use four, spawn one, the rest none. */
  const ALLOWED: Partial<Record<keyof typeof RecordKind, number>> = {
    Move: MOVING | JUMP | SPEED | AGE,
    MoveBy: MOVING | SAME_ANGLE | SPEED | AGE,
    Path: HERE | ONE | SPEED | AGE,
    Spawn: ALIVE,
  };
  const badFlags = KINDS.flatMap((kind) => {
    const allowed = ALLOWED[kind] ?? 0;
    return [0x10, 0x20, 0x40, 0x80]
      .filter((bit) => (bit & allowed) === 0)
      .map((bit) => [kind, `0x${bit.toString(16)}`, RecordKind[kind] | bit] as const);
  });

  it.each(badFlags)(
    'refuses a %s record with flag %s with ERR_BAD_ENUM, from its tag alone',
    (_k, _f, tag) => {
      expect(decodeFailure(WorldUpdate, update(5, tag)).code).toBe(DecodeErrorCode.BadEnum);
    },
  );

  it('accepts every flag a kind defines', () => {
    const moveTag = RecordKind.Move | MOVING | JUMP | SPEED | AGE;
    expect(WorldUpdate.decode(update(5, moveTag, BODY.Move, C, varint(300))).records[0]).toMatchObject({
      moving: true,
      jump: true,
      speed: 0x1234 / 16,
      age: 300,
    });
    const byTag = RecordKind.MoveBy | MOVING | SAME_ANGLE | SPEED | AGE;
    expect(WorldUpdate.decode(update(5, byTag, varint(5), varint(6), C, varint(40))).records[0]).toEqual({
      kind: 'moveBy',
      id: 5,
      dx: -3,
      dy: 3,
      angle: undefined,
      moving: true,
      speed: 0x1234 / 16,
      age: 40,
    });
    expect(WorldUpdate.decode(update(5, RecordKind.Path | SPEED, C, C, C, 0)).records[0]).toMatchObject({
      speed: 0x1234 / 16,
    });
    const hereTag = RecordKind.Path | HERE | ONE | SPEED | AGE;
    expect(WorldUpdate.decode(update(5, hereTag, C, C, C, varint(70))).records[0]).toEqual({
      kind: 'pathHere',
      id: 5,
      speed: 0x1234 / 16,
      waypoints: [{ x: dequantizeCoord(0x1234), y: dequantizeCoord(0x1234) }],
      age: 70,
    });
    expect(WorldUpdate.decode(update(5, RecordKind.Spawn | ALIVE, BODY.Spawn)).records[0]).toMatchObject({
      alive: true,
    });
  });

  it('accepts a payload of just the head: an empty update', () => {
    expect(WorldUpdate.decode(update()).records).toEqual([]);
  });

  it(`refuses a path of ${MAX_PATH_POINTS + 1} waypoints with ERR_LIST_TOO_LONG, before reading them`, () => {
    for (const n of [MAX_PATH_POINTS + 1, 255]) {
      const e = decodeFailure(WorldUpdate, update(5, RecordKind.Path, C, C, n));
      expect(e.code, `${n} waypoints`).toBe(DecodeErrorCode.ListTooLong);
    }
    const full = Array.from({ length: MAX_PATH_POINTS }, () => [...C, ...C]).flat();
    const path = WorldUpdate.decode(update(5, RecordKind.Path, C, C, MAX_PATH_POINTS, full)).records[0];
    expect(path).toMatchObject({ kind: 'path' });
    expect((path as Extract<EntityRecord, { kind: 'path' }>).waypoints).toHaveLength(MAX_PATH_POINTS);
  });

  it('refuses an id that id deltas carry past 2^32 - 1 with ERR_BAD_VARINT', () => {
    const death = (delta: number) => [...varint(delta), RecordKind.Death, ...BODY.Death];
    // 2^32 - 1 itself, and a repeat of it (delta 0), are fine.
    const top = WorldUpdate.decode(update(death(0xffffffff), death(0)));
    expect(top.records.map((r) => r.id)).toEqual([0xffffffff, 0xffffffff]);
    expect(decodeFailure(WorldUpdate, update(death(0xffffffff), death(1))).code).toBe(
      DecodeErrorCode.BadVarint,
    );
    expect(decodeFailure(WorldUpdate, update(death(0x80000000), death(0x80000000))).code).toBe(
      DecodeErrorCode.BadVarint,
    );
    // The overflow is found at the record's tag (which says where the id counts from), before its fields.
    expect(decodeFailure(WorldUpdate, update(death(0xffffffff), varint(1), RecordKind.Death)).code).toBe(
      DecodeErrorCode.BadVarint,
    );
  });

  it('starts ids again from 0 in every block (BASE), so blocks never overflow each other', () => {
    const death = (delta: number, tag = 0) => [...varint(delta), RecordKind.Death | tag, ...BODY.Death];
    const got = WorldUpdate.decode(update(death(0xffffffff), death(1, BASE)));
    expect(got.records.map((r) => r.id)).toEqual([0xffffffff, 1]);
  });

  it('refuses a non-shortest id delta with ERR_BAD_VARINT', () => {
    expect(decodeFailure(WorldUpdate, update(0x85, 0x00)).code).toBe(DecodeErrorCode.BadVarint);
  });

  it.each<[string, number[], DecodeErrorCode]>([
    ['an entity kind of 2', [5, RecordKind.Spawn, 2], DecodeErrorCode.BadEnum],
    ['a name of 17 bytes', [5, RecordKind.Spawn, 1, ...u16le(3), 17], DecodeErrorCode.StringTooLong],
    [
      'a name of invalid UTF-8',
      [5, RecordKind.Spawn, 1, ...u16le(3), 2, 0xc3, 0x28],
      DecodeErrorCode.BadUtf8,
    ],
    ['a non-shortest health', [5, RecordKind.Health, 0x80, 0x00], DecodeErrorCode.BadVarint],
    [
      'a health above 2^32 - 1',
      [5, RecordKind.Health, 0x80, 0x80, 0x80, 0x80, 0x10],
      DecodeErrorCode.BadVarint,
    ],
    ['a despawn reason of 3', [5, RecordKind.Despawn, 3], DecodeErrorCode.BadEnum],
    ['a non-shortest killer', [5, RecordKind.Death, 0x80, 0x00], DecodeErrorCode.BadVarint],
  ])('refuses %s with its code', (_name, body, code) => {
    expect(decodeFailure(WorldUpdate, update(body)).code).toBe(code);
  });

  it('refuses a truncated multi-block body with ERR_SHORT at every length but between records', () => {
    const records = sampleRecords();
    expect(splitBlocks(records).length).toBeGreaterThan(1);
    const full = update(recordsBytes(records));
    // Between records the shorter payload is whole: it holds the records before the cut.
    const whole = new Map<number, EntityRecord[]>();
    for (let n = 0; n < records.length; n++) {
      whole.set(update(recordsBytes(records.slice(0, n))).length, records.slice(0, n));
    }
    const wrong: string[] = [];
    for (let len = 0; len < full.length; len++) {
      const cut = full.subarray(0, len);
      const expected = whole.get(len);
      if (expected !== undefined) {
        expect(WorldUpdate.decode(cut).records, `length ${len}`).toEqual(expected);
        continue;
      }
      let got: string;
      try {
        WorldUpdate.decode(cut);
        got = 'decoded';
      } catch (e) {
        got = e instanceof DecodeError ? e.code : `${String(e)} (not a DecodeError)`;
      }
      if (got !== DecodeErrorCode.Short) wrong.push(`length ${len}: ${got}`);
    }
    expect(wrong).toEqual([]);
  });

  it('throws nothing but DecodeError on random bytes after the head', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (body) => {
        try {
          WorldUpdate.decode(update(body));
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('throws nothing but DecodeError on valid records with corrupted bytes', () => {
    fc.assert(
      fc.property(
        entityRecordsArbitrary(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        (records, flips) => {
          const body = recordsBytes(records);
          if (body.length === 0) return;
          for (const [at, mask] of flips) body[at % body.length]! ^= mask;
          try {
            WorldUpdate.decode(update(body));
          } catch (e) {
            if (!(e instanceof DecodeError)) throw e;
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------
// Every checked spot of every packet, found by walking the sample value: a valid encoding
// up to that spot, then one hostile prefix, and nothing after it. The decoder must name
// the problem from the prefix alone (reading on would give ERR_SHORT instead).

const kindName = (r: EntityRecord) =>
  (r.kind === 'pathHere' ? 'Path' : r.kind[0]!.toUpperCase() + r.kind.slice(1)) as keyof typeof RecordKind;

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
      case 'records':
        walkRecords(value as EntityRecord[], at);
        return;
      default:
        // Fixed-width integers, angles and quantized values have no invalid encodings.
        break;
    }
    field.write(w, value);
  };
  /** Each record's id delta and tag (records.ts checks the fields). */
  const walkRecords = (records: EntityRecord[], at: string): void => {
    let i = 0;
    for (const block of splitBlocks(records)) {
      let prev = 0;
      for (const r of block) {
        const where = `${at}[${i++}]`;
        const kind = RecordKind[kindName(r)];
        add(where, DecodeErrorCode.BadVarint, [0x80, 0x00]);
        // An id past 2^32 - 1: counted on from the previous one (no BASE), or a delta past it.
        add(where, DecodeErrorCode.BadVarint, [...varint(2 ** 32 - prev), kind]);
        // 0x80 is AGE on a move, moveBy or path; every other kind refuses it.
        if (r.kind !== 'move' && r.kind !== 'moveBy' && r.kind !== 'path' && r.kind !== 'pathHere')
          add(where, DecodeErrorCode.BadEnum, [...varint(r.id - prev), 0x80 | kind]);
        const start = w.pos;
        writeRecord(w, r.id - prev, r);
        if (r === block[0]) markBase(w.buf, start);
        prev = r.id;
      }
    }
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
    const value = {
      M2: new Uint8Array(64),
      accountId: 1,
      account: 'alice',
      resumeToken: new Uint8Array(33),
      deviceToken: new Uint8Array(0),
    };
    expect(() => LoginOk.encode(value)).toThrow(EncodeError);
  });

  it.each([
    ['u8 256', { level: 256 }],
    ['u32 2^32', { health: 2 ** 32 }],
    ['negative u32', { health: -1 }],
    ['varint 2^32', { entityId: 2 ** 32 }],
    ['negative varint', { entityId: -1 }],
    ['f32 NaN', { x: NaN }],
    ['f32 infinity', { y: Infinity }],
    ['angle NaN', { facing: NaN }],
  ])('refuses an out-of-range %s', (_name, over) => {
    const value = { ...samplePacket(EnterWorld), ...over };
    expect(() => EnterWorld.encode(value)).toThrow(EncodeError);
  });

  const move: EntityRecord = {
    kind: 'move',
    id: 5,
    x: 10,
    y: 20,
    angle: 0,
    moving: true,
    jump: false,
    speed: undefined,
  };
  const spawn = sampleRecords().find((r) => r.kind === 'spawn')!;
  it.each<[string, EntityRecord]>([
    ['an id of 2^32 (first of its block)', { ...move, id: 2 ** 32 }],
    ['a negative id', { ...move, id: -1 }],
    ['a fractional id', { ...move, id: 1.5 }],
    ['a NaN coordinate', { ...move, x: NaN }],
    ['an infinite coordinate', { ...move, y: -Infinity }],
    ['a NaN angle', { ...move, angle: NaN }],
    ['a NaN speed', { ...move, speed: NaN }],
    [
      `a path of ${MAX_PATH_POINTS + 1} waypoints`,
      {
        kind: 'path',
        id: 5,
        x: 0,
        y: 0,
        speed: 1,
        waypoints: Array(MAX_PATH_POINTS + 1).fill({ x: 0, y: 0 }),
      },
    ],
    ['a name of 17 bytes', { ...spawn, name: 'é'.repeat(8) + 'x' }],
    ['a health of 2^32', { kind: 'health', id: 5, health: 2 ** 32, maxHealth: 1 }],
    ['a negative killer', { kind: 'death', id: 5, killerId: -1 }],
  ])('refuses an entity record with %s', (_name, record) => {
    expect(() => WorldUpdate.encode({ tick: 1, time: 0, records: [record, move] })).toThrow(EncodeError);
  });

  // Values that would go out as bytes that decode to something else, or that the decoder refuses.
  describe('entity record values the encoder refuses', () => {
    const refused = (record: EntityRecord) => () =>
      expect(() => WorldUpdate.encode({ tick: 1, time: 0, records: [move, record] })).toThrow(EncodeError);
    it('an id above 2^32 - 1 reached by a delta (the decoder refuses it)', refused({ ...move, id: 2 ** 32 }));
    it('a spawn level of 256 (written as 0)', refused({ ...spawn, level: 256 }));
    it('a spawn template of 65536 (written as 0)', refused({ ...spawn, template: 0x10000 }));
    it('a spawn appearance of -1 (written as 255)', refused({ ...spawn, appearance: -1 }));
    it(
      'a spawn entity kind that is not declared (written as player)',
      refused({ ...spawn, entity: 'robot' as never }),
    );
    it(
      'a despawn reason that is not declared (written as 255, refused by the decoder)',
      refused({ kind: 'despawn', id: 6, reason: 'gone' as never }),
    );
  });

  it('encodes normally again after a refused value', () => {
    expect(() => Hello.encode(hello({ clientName: 'x'.repeat(40) }))).toThrow(EncodeError);
    const frame = Hello.encode(hello({}));
    expect(Hello.decode(frame.subarray(HEADER_SIZE))).toEqual(hello({}));
  });
});
