/**
 * The inner wire's declarations as codecs: every record and body round-trips any value its
 * fields allow, and hostile bytes (a trailing byte, an oversized count, an unknown code, flag
 * or number tag) are refused with a DecodeError and its code, never another exception.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError, DecodeErrorCode, EncodeError } from '../../shared/codec/errors.js';
import { u8, varint } from '../../shared/codec/fields.js';
import { Reader } from '../../shared/codec/reader.js';
import { Writer } from '../../shared/codec/writer.js';
import { Ghost } from '../../server/cluster/border-wire.js';
import { defineBody, defineRecord, defineStream } from '../../server/cluster/inner/define.js';
import { array, bits, blob16, code, group, num, when } from '../../server/cluster/inner/fields.js';
import { innerWire } from '../../server/cluster/wire.js';
import { sampleWire } from '../helpers/wire-sample.js';
import { wireArbitrary } from '../helpers/wire-arbitrary.js';

const RUNS = 150;

function decodeError(run: () => unknown): DecodeError {
  try {
    run();
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  throw new Error('decoded without complaint');
}

describe('every inner message', () => {
  for (const body of innerWire.bodies) {
    it(`${body.name}: any value round-trips`, () => {
      fc.assert(
        fc.property(wireArbitrary(body), (value) => {
          const bytes = body.encode(value as never);
          expect(body.decode(bytes)).toEqual(value);
        }),
        { numRuns: RUNS },
      );
    });
  }

  for (const stream of innerWire.streams) {
    for (const rec of stream.records) {
      it(`${stream.name}.${rec.name}: any record round-trips, behind its head`, () => {
        fc.assert(
          fc.property(
            wireArbitrary(stream.headField),
            fc.array(wireArbitrary(rec.body), { maxLength: 3 }),
            (head, records) => {
              const w = new Writer(16);
              stream.begin(w, head as never);
              for (const r of records) rec.write(w, r as never);
              const got: unknown[] = [];
              const handlers = Object.fromEntries(
                stream.records.map((x) => [x.name, (r: unknown, h: unknown) => got.push([h, x.name, r])]),
              );
              stream.read(w.finish(), handlers as never);
              expect(got).toEqual(records.map((r) => [head, rec.name, r]));
            },
          ),
          { numRuns: RUNS },
        );
      });
    }
  }

  for (const body of innerWire.bodies.filter(
    (b) => !Object.values(b.fields).some((f) => f.spec.type === 'rest'),
  )) {
    it(`${body.name}: one byte past its end is refused (ERR_OVERLONG)`, () => {
      const bytes = body.encode(sampleWire(body) as never);
      expect(decodeError(() => body.decode(Uint8Array.of(...bytes, 0))).code).toBe(DecodeErrorCode.Overlong);
    });
  }
});

describe('field types of the inner wire', () => {
  const read = <T>(field: { read(r: Reader): T }, ...bytes: number[]) =>
    field.read(new Reader(Uint8Array.from(bytes)));

  it('refuses a count above the declared max, reading and writing', () => {
    const f = array(varint, 3);
    expect(decodeError(() => read(f, 4, 1, 2, 3, 4)).code).toBe(DecodeErrorCode.ListTooLong);
    expect(() => f.write(new Writer(), [1, 2, 3, 4])).toThrow(EncodeError);
    expect(read(f, 3, 1, 2, 3)).toEqual([1, 2, 3]);
  });

  it('reads a code as its name and refuses a number no name has', () => {
    const f = code({ taken: 1, refused: 2 });
    expect(read(f, 2)).toBe('refused');
    expect(decodeError(() => read(f, 0)).code).toBe(DecodeErrorCode.BadEnum);
    expect(() => f.write(new Writer(), 'maybe' as never)).toThrow(EncodeError);
    expect(() => code({ a: 1, b: 1 })).toThrow(/a's already/);
  });

  it('reads flags by name and refuses a bit no name has', () => {
    const f = bits(['alive', 'moving', 'route']);
    expect(read(f, 0b101)).toEqual({ alive: true, moving: false, route: true });
    expect(decodeError(() => read(f, 0b1000)).code).toBe(DecodeErrorCode.BadEnum);
  });

  it('carries a number that may be absent or infinite, and refuses a tag it does not know', () => {
    const w = new Writer();
    for (const v of [12.5, Infinity, -Infinity, null, undefined, NaN]) num.write(w, v);
    const r = new Reader(w.finish());
    expect([1, 2, 3, 4, 5, 6].map(() => num.read(r))).toEqual([12.5, Infinity, -Infinity, null, null, null]);
    expect(decodeError(() => read(num, 4)).code).toBe(DecodeErrorCode.BadEnum);
  });

  it('reads a conditional field only when its condition holds of the fields before it', () => {
    const f = group({ kind: u8, extra: when('kind 1', (v: { kind: number }) => v.kind === 1, varint) });
    expect(read(f, 0)).toEqual({ kind: 0, extra: undefined });
    expect(read(f, 1, 7)).toEqual({ kind: 1, extra: 7 });
    expect(() => f.write(new Writer(), { kind: 1, extra: undefined })).toThrow(/extra is required/);
    const w = new Writer();
    f.write(w, { kind: 0, extra: 9 });
    expect([...w.finish()]).toEqual([0]);
  });

  it('refuses to send a player of a strip without its motion state', () => {
    const ghost = sampleWire(Ghost) as Record<string, unknown>;
    const bad = { ...ghost, kind: 'player', sent: undefined };
    expect(() => Ghost.write(new Writer(), bad as never)).toThrow(/sent is required/);
  });

  it('patches a written-in-place blob16 with its length, and refuses one past its max', () => {
    const f = blob16(4);
    const w = new Writer();
    f.write(w, (out) => out.raw(Uint8Array.of(1, 2, 3)));
    expect([...w.finish()]).toEqual([3, 0, 1, 2, 3]);
    expect(() => f.write(new Writer(), (out) => out.raw(new Uint8Array(5)))).toThrow(EncodeError);
    expect(decodeError(() => read(f, 5, 0, 1, 2, 3, 4, 5)).code).toBe(DecodeErrorCode.BytesTooLong);
  });
});

describe('declaring', () => {
  it('refuses two records of one kind in a message, a kind out of range and a field called session', () => {
    const a = defineRecord({ kind: 1, name: 'A', dir: 'g2z', doc: 'a', fields: {} });
    const b = defineRecord({ kind: 1, name: 'B', dir: 'g2z', doc: 'b', fields: {} });
    expect(() =>
      defineStream({ name: 'S', routes: [], subjects: [], doc: 's', head: {}, records: [a, b] }),
    ).toThrow(/kind 1 is A's already/);
    expect(() => defineRecord({ kind: 0, name: 'C', dir: 'g2z', doc: 'c', fields: {} })).toThrow(/1\.\.255/);
    expect(() =>
      defineRecord({ kind: 2, name: 'D', dir: 'g2z', doc: 'd', fields: { session: varint } }),
    ).toThrow(/session/);
  });

  it('makes a body whose decode wants the whole message', () => {
    const body = defineBody({ name: 'B', dir: 'z2z', subject: 'nowhere', doc: 'b', fields: { n: varint } });
    expect(body.decode(body.encode({ n: 300 }))).toEqual({ n: 300 });
    expect(decodeError(() => body.decode(Uint8Array.of(0x80))).code).toBe(DecodeErrorCode.Short);
  });
});
