/**
 * Field types of the inner wire (gateway <-> zone host <-> zone host). Every field type of
 * shared/codec/fields.ts is one of these as it is (a `Field<T>` is a `WireField<T>`); the inner
 * wire adds the layouts the client protocol has no use for:
 *
 *   blob(max)            length varint + bytes; read as a view into the message (no copy)
 *   blob16(max)          length u16 + bytes; read as a view; written from bytes, a range or a
 *                        callback that writes them (the length is patched in after)
 *   rest                 the bytes to the end of the message, as a view
 *   array(of, max, n)    count (varint, or u8) + items
 *   maybe(of)            u8 presence (0 or 1) + the item when 1 (`optional`'s layout, any field)
 *   code({name: n})      u8 holding the number declared for the value's name
 *   bits([names])        u8 of flags: bit i set when names[i] is true
 *   num                  a time or amount that may be absent or infinite: tag u8 (0 f64
 *                        follows, 1 +Infinity, 2 -Infinity, 3 none)
 *   when(doc, cond, of)  `of`, present only when `cond` holds of the group's fields before it
 *   group(fields)        the fields in declaration order, no header
 *
 * A group read in place (readInto, for InnerStream.visit) fills one object again and again,
 * and its bytes fields (blob, blob16, rest) as ranges of the message: no allocation per value.
 */
import { DecodeError, DecodeErrorCode, EncodeError } from '../../../shared/codec/errors.js';
import type { FieldSpec } from '../../../shared/codec/fields.js';
import type { Reader } from '../../../shared/codec/reader.js';
import type { Writer } from '../../../shared/codec/writer.js';

export type WireSpec =
  | FieldSpec
  | { readonly type: 'blob'; readonly prefix: 'u16' | 'varint'; readonly max: number }
  | { readonly type: 'rest' }
  | {
      readonly type: 'array';
      readonly count: 'u8' | 'varint';
      readonly of: AnyWireField;
      readonly max: number;
    }
  | { readonly type: 'maybe'; readonly of: AnyWireField }
  | { readonly type: 'code'; readonly codes: Readonly<Record<string, number>> }
  | { readonly type: 'bits'; readonly names: readonly string[] }
  | { readonly type: 'num' }
  | {
      readonly type: 'when';
      readonly doc: string;
      readonly cond: (fieldsBefore: any) => boolean;
      readonly of: AnyWireField;
    }
  | { readonly type: 'group'; readonly fields: WireFields };

/** A field that reads `Out` and writes `In` (they differ where a writer may hand over bytes in more than one form). */
export interface WireField<Out, In = Out> {
  readonly spec: WireSpec;
  write(w: Writer, v: In): void;
  read(r: Reader): Out;
  /**
   * Bytes fields (blob, blob16, rest): reads the bytes as a range of the message into `into`,
   * making no view (a group's readInto uses it).
   */
  readSpan?(r: Reader, into: MutableSpan): void;
}
export type AnyWireField = WireField<any, any>;
export type WireFields = { readonly [name: string]: AnyWireField };
export type OutOf<F> = F extends WireField<infer O, any> ? O : never;
export type InOf<F> = F extends WireField<any, infer I> ? I : never;
export type GroupOut<F extends WireFields> = { -readonly [K in keyof F]: OutOf<F[K]> };
export type GroupIn<F extends WireFields> = { -readonly [K in keyof F]: InOf<F[K]> };
/** A group as readInto leaves it: its bytes fields as ranges of the message, not views. */
export type GroupInPlace<F extends WireFields> = {
  -readonly [K in keyof F]: F[K] extends { readSpan(r: Reader, into: MutableSpan): void }
    ? MutableSpan
    : OutOf<F[K]>;
};

/** A group's field, with the in-place read of its fields. */
export interface GroupField<F extends WireFields> extends WireField<GroupOut<F>, GroupIn<F>> {
  /**
   * Reads the group into `o`, an object this reader keeps and fills again for the next value
   * (make it with `blank`): no object is made per value, and bytes fields are filled in as
   * ranges of the message instead of views.
   */
  readInto(r: Reader, o: GroupInPlace<F>): void;
  /** An object for readInto, its ranges made. */
  blank(): GroupInPlace<F>;
}

/** Bytes `buf[start, end)`, handed to a blob without making a view of them. */
export interface Span {
  readonly buf: Uint8Array;
  readonly start: number;
  readonly end: number;
}
/** A bytes field: read as a view, or (readSpan) as a range into a Span. */
export type BytesField<In> = WireField<Uint8Array, In> & {
  readSpan(r: Reader, into: MutableSpan): void;
};

/** A Span a reader fills in place. */
export interface MutableSpan {
  buf: Uint8Array;
  start: number;
  end: number;
}

/** The next `n` bytes of `r` as a range of its bytes, into `s`; a short message is ERR_SHORT, as Reader.raw says it. */
function spanInto(r: Reader, n: number, s: MutableSpan): void {
  const at = r.pos;
  if (at + n > r.end) {
    throw new DecodeError(
      DecodeErrorCode.Short,
      `need ${n} byte(s) at offset ${at}, payload has ${r.end - at} left`,
    );
  }
  s.buf = r.bytes;
  s.start = at;
  s.end = at + n;
  r.pos = at + n;
}

/** Writes a blob16's bytes straight into the message (a packet's payload by its own codec). */
export type Fill = (w: Writer) => void;

function tooLong(what: string, n: number, max: number): never {
  throw new DecodeError(DecodeErrorCode.BytesTooLong, `${what} of ${n} exceeds ${max}`);
}

/** length varint + bytes, read as a view into the message. */
export function blob(max = 0xffffffff): BytesField<Uint8Array | Span> {
  return {
    spec: { type: 'blob', prefix: 'varint', max },
    write(w, v) {
      if (v instanceof Uint8Array) {
        if (v.length > max) throw new EncodeError(`bytes of length ${v.length} exceed ${max}`);
        w.varint(v.length);
        w.raw(v);
        return;
      }
      const n = v.end - v.start;
      if (n > max) throw new EncodeError(`bytes of length ${n} exceed ${max}`);
      w.varint(n);
      w.rawRange(v.buf, v.start, v.end);
    },
    read(r) {
      const n = r.varint();
      if (n > max) tooLong('bytes', n, max);
      return r.raw(n);
    },
    readSpan(r, into) {
      const n = r.varint();
      if (n > max) tooLong('bytes', n, max);
      spanInto(r, n, into);
    },
  };
}

/** length u16 + bytes, read as a view into the message. */
export function blob16(max = 0xffff): BytesField<Uint8Array | Span | Fill> {
  if (max > 0xffff) throw new Error('a blob16 holds at most 65535 bytes');
  return {
    spec: { type: 'blob', prefix: 'u16', max },
    write(w, v) {
      if (typeof v === 'function') {
        const at = w.pos;
        w.u16(0);
        v(w);
        const n = w.pos - at - 2;
        if (n > max) throw new EncodeError(`bytes of length ${n} exceed ${max}`);
        w.patchU16(at, n);
        return;
      }
      const n = v instanceof Uint8Array ? v.length : v.end - v.start;
      if (n > max) throw new EncodeError(`bytes of length ${n} exceed ${max}`);
      w.u16(n);
      if (v instanceof Uint8Array) w.raw(v);
      else w.rawRange(v.buf, v.start, v.end);
    },
    read(r) {
      const n = r.u16();
      if (n > max) tooLong('bytes', n, max);
      return r.raw(n);
    },
    readSpan(r, into) {
      const n = r.u16();
      if (n > max) tooLong('bytes', n, max);
      spanInto(r, n, into);
    },
  };
}

/** The bytes to the end of the message, as a view. Only a message's last field. */
export const rest: BytesField<Uint8Array> = {
  spec: { type: 'rest' },
  write: (w, v) => w.raw(v),
  read: (r) => r.raw(r.remaining),
  readSpan: (r, into) => spanInto(r, r.remaining, into),
};

/** count (varint, or u8) + items. */
export function array<F extends AnyWireField>(
  of: F,
  max: number,
  count: 'u8' | 'varint' = 'varint',
): WireField<OutOf<F>[], readonly InOf<F>[]> {
  if (count === 'u8' && max > 0xff) throw new Error('a u8 count holds at most 255 items');
  return {
    spec: { type: 'array', count, of, max },
    write(w, v) {
      if (v.length > max) throw new EncodeError(`list of ${v.length} items exceeds ${max}`);
      if (count === 'u8') w.u8(v.length);
      else w.varint(v.length);
      for (let i = 0; i < v.length; i++) of.write(w, v[i]);
    },
    read(r) {
      const n = count === 'u8' ? r.u8() : r.varint();
      if (n > max) throw new DecodeError(DecodeErrorCode.ListTooLong, `list of ${n} items exceeds ${max}`);
      const out = new Array<OutOf<F>>(n);
      for (let i = 0; i < n; i++) out[i] = of.read(r);
      return out;
    },
  };
}

/** u8 presence (0 or 1) + the item when 1. */
export function maybe<F extends AnyWireField>(of: F): WireField<OutOf<F> | undefined, InOf<F> | undefined> {
  return {
    spec: { type: 'maybe', of },
    write(w, v) {
      if (v === undefined) w.u8(0);
      else {
        w.u8(1);
        of.write(w, v);
      }
    },
    read: (r) => (r.bool() ? of.read(r) : undefined),
  };
}

/** A u8 holding the number declared for each name; the value is the name. */
export function code<const C extends Readonly<Record<string, number>>>(
  codes: C,
): WireField<keyof C & string> {
  const names: (keyof C & string)[] = [];
  for (const [name, n] of Object.entries(codes)) {
    if (!Number.isInteger(n) || n < 0 || n > 0xff) throw new Error(`code ${name}: ${n} is not a u8`);
    if (names[n] !== undefined) throw new Error(`code ${name}: ${n} is ${names[n]}'s already`);
    names[n] = name;
  }
  const known = Object.values(codes).join(', ');
  return {
    spec: { type: 'code', codes },
    write(w, v) {
      const n = codes[v];
      if (n === undefined)
        throw new EncodeError(`${String(v)} is not one of ${Object.keys(codes).join(', ')}`);
      w.u8(n);
    },
    read(r) {
      const n = r.u8();
      const name = names[n];
      if (name === undefined)
        throw new DecodeError(DecodeErrorCode.BadEnum, `code ${n} is not one of ${known}`);
      return name;
    },
  };
}

/** A u8 of flags: bit i is names[i]. A set bit no name declares is refused. */
export function bits<const N extends readonly string[]>(names: N): WireField<{ [K in N[number]]: boolean }> {
  if (names.length > 8) throw new Error('bits holds at most 8 flags');
  const all = (1 << names.length) - 1;
  return {
    spec: { type: 'bits', names },
    write(w, v) {
      let b = 0;
      for (let i = 0; i < names.length; i++) if ((v as Record<string, boolean>)[names[i]!]) b |= 1 << i;
      w.u8(b);
    },
    read(r) {
      const b = r.u8();
      if (b & ~all) throw new DecodeError(DecodeErrorCode.BadEnum, `flags ${b} set a bit beyond ${all}`);
      const out: Record<string, boolean> = {};
      for (let i = 0; i < names.length; i++) out[names[i]!] = (b & (1 << i)) !== 0;
      return out as { [K in N[number]]: boolean };
    },
  };
}

const NUM_F64 = 0;
const NUM_PLUS_INFINITY = 1;
const NUM_MINUS_INFINITY = 2;
const NUM_NONE = 3;

/** A time or amount that may be absent (null, undefined, NaN) or infinite. */
export const num: WireField<number | null, number | null | undefined> = {
  spec: { type: 'num' },
  write(w, v) {
    if (v === null || v === undefined || Number.isNaN(v)) w.u8(NUM_NONE);
    else if (v === Infinity) w.u8(NUM_PLUS_INFINITY);
    else if (v === -Infinity) w.u8(NUM_MINUS_INFINITY);
    else {
      w.u8(NUM_F64);
      w.f64(v);
    }
  },
  read(r) {
    const tag = r.u8();
    if (tag === NUM_F64) return r.f64();
    if (tag === NUM_PLUS_INFINITY) return Infinity;
    if (tag === NUM_MINUS_INFINITY) return -Infinity;
    if (tag === NUM_NONE) return null;
    throw new DecodeError(DecodeErrorCode.BadEnum, `number tag ${tag} unknown`);
  },
};

/**
 * `of`, present only when `cond` holds of the group's fields before it (read) or of the whole
 * value (write); absent, it takes no byte and reads as undefined. `doc` says when, for the spec.
 */
export function when<F extends AnyWireField>(
  doc: string,
  cond: (fieldsBefore: any) => boolean,
  of: F,
): WireField<OutOf<F> | undefined, InOf<F> | undefined> {
  const outside = (): never => {
    throw new Error('a `when` field is read and written by the group holding it');
  };
  return { spec: { type: 'when', doc, cond, of }, write: outside, read: outside };
}

/**
 * The fields in order. Its code is generated once per group (as `struct` does), so each
 * field's call site sees one field type and stays monomorphic.
 */
export function group<const F extends WireFields>(fields: F): GroupField<F> {
  const names = Object.keys(fields);
  const types = names.map((n) => fields[n]!);
  const key = (i: number) => JSON.stringify(names[i]);
  const writeBody = types
    .map((t, i) =>
      t.spec.type === 'when'
        ? `if (types[${i}].spec.cond(v)) { const x = v[${key(i)}]; if (x === undefined) absent(${key(i)}); types[${i}].spec.of.write(w, x); }`
        : `types[${i}].write(w, v[${key(i)}]);`,
    )
    .join('\n');
  const readBody = types
    .map((t, i) =>
      t.spec.type === 'when'
        ? `o[${key(i)}] = types[${i}].spec.cond(o) ? types[${i}].spec.of.read(r) : undefined;`
        : `o[${key(i)}] = types[${i}].read(r);`,
    )
    .join('\n');
  const readIntoBody = types
    .map((t, i) => (t.readSpan ? `types[${i}].readSpan(r, o[${key(i)}]);` : readBody.split('\n')[i]))
    .join('\n');
  const absent = (name: string): never => {
    throw new EncodeError(`${name} is required here and absent`);
  };
  const code = new Function(
    'types',
    'absent',
    `return {
      write(w, v) { ${writeBody} },
      read(r) { const o = {}; ${readBody} return o; },
      readInto(r, o) { ${readIntoBody} },
    };`,
  )(types, absent) as Pick<GroupField<F>, 'write' | 'read' | 'readInto'>;
  const blank = (): GroupInPlace<F> => {
    const o: Record<string, unknown> = {};
    for (const [i, name] of names.entries())
      o[name] = types[i]!.readSpan ? { buf: EMPTY, start: 0, end: 0 } : undefined;
    return o as GroupInPlace<F>;
  };
  return {
    spec: { type: 'group', fields },
    write: code.write,
    read: code.read,
    readInto: code.readInto,
    blank,
  };
}

const EMPTY = new Uint8Array(0);

/**
 * One field's layout in the words of docs/CLUSTER.md: integers without a width are varints,
 * `str8` is a u8 length and UTF-8, `num` is the tagged number above.
 */
export function describeWire(name: string, field: AnyWireField): string {
  const s = field.spec;
  switch (s.type) {
    case 'varint':
      return name;
    case 'u8':
    case 'i8':
    case 'u16':
    case 'i16':
    case 'u32':
    case 'i32':
    case 'f32':
    case 'f64':
    case 'bool':
    case 'num':
      return `${name} ${s.type}`;
    case 'angle':
      return `${name} angle u8`;
    case 'quantized':
      return `${name} u16 (quantized ${s.min}..${s.max})`;
    case 'string':
      return `${name} ${s.max <= 0xff ? 'str8' : 'str16'}`;
    case 'bytes':
      return `length ${s.max <= 0xff ? 'u8' : 'u16'} · ${name}`;
    case 'blob':
      return s.prefix === 'u16' ? `length u16 · ${name}` : `length · ${name}`;
    case 'rest':
      return `${name} (to the end)`;
    case 'enum':
      return `${name} u8 (${s.values.map((v, i) => `${i} ${String(v)}`).join(', ')})`;
    case 'code':
      return `${name} u8 (${Object.entries(s.codes)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ')})`;
    case 'bits':
      return `${name} u8 (${s.names.map((k, i) => `${1 << i} ${k}`).join(', ')})`;
    case 'list':
      return `${name}: count ${s.max <= 0xff ? 'u8' : 'u16'}, each (${describeWire('', s.of).trim()})`;
    case 'array':
      return `${name}: count${s.count === 'u8' ? ' u8' : ''}, each (${describeWire('', s.of).trim()})`;
    case 'optional':
    case 'maybe':
      return `${name}: u8 (0 none, 1 · ${describeWire('', s.of).trim()})`;
    case 'when':
      return `(${s.doc}) ${describeWire(name, s.of)}`;
    case 'struct':
    case 'group':
      return name ? `${name} (${describeGroup(s.fields)})` : describeGroup(s.fields);
    case 'records':
      return `${name} (entity records to the end)`;
  }
}

/** A group's fields on one line, ` · ` between them. */
export function describeGroup(fields: WireFields): string {
  return Object.entries(fields)
    .map(([n, f]) => describeWire(n, f))
    .join(' · ');
}
