/**
 * Field types: each one knows its wire layout, its largest encoding and how to read and
 * write itself. Packet definitions are built from these, and so are the generated spec,
 * the golden vectors and the property tests (through `spec`).
 *
 * Wire layouts (all little-endian):
 *   u8 i8 u16 i16 u32 i32 f32 f64   fixed width; f32/f64 must be finite
 *   bool                            u8, 0 or 1
 *   varint                          unsigned LEB128, 1-5 bytes, shortest form, <= 2^32-1
 *   string(max)                     length (u8 if max <= 255, else u16) + UTF-8 bytes
 *   bytes(max)                      length (u8 if max <= 255, else u16) + bytes
 *   list(of, max)                   count  (u8 if max <= 255, else u16) + items
 *   optional(of)                    u8 presence (0 or 1) + item when 1
 *   enum(values)                    u8 index into the declared values
 *   quantized(min, max)             u16: round((v - min) / (max - min) * 65535), clamped
 *   angle                           u8: the angle in [0, 2π) in 256 steps
 *   struct(fields)                  the fields in declaration order, no header
 *   records                         blocks of entity records to the end of the payload
 */
import { DecodeError, DecodeErrorCode, EncodeError } from './errors.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

export type FieldSpec =
  | {
      readonly type:
        'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64' | 'bool' | 'varint' | 'angle';
    }
  | { readonly type: 'string'; readonly max: number }
  | { readonly type: 'bytes'; readonly max: number }
  | { readonly type: 'list'; readonly of: Field<unknown>; readonly max: number }
  | { readonly type: 'optional'; readonly of: Field<unknown> }
  | { readonly type: 'enum'; readonly values: readonly (string | number)[] }
  | { readonly type: 'quantized'; readonly min: number; readonly max: number }
  | { readonly type: 'struct'; readonly fields: Fields }
  /** Entity records to the end of the payload (shared/protocol/records.ts owns the layout). */
  | { readonly type: 'records' };

export interface Field<T> {
  readonly spec: FieldSpec;
  /** The largest number of bytes an encoding can take. */
  readonly maxSize: number;
  write(w: Writer, v: T): void;
  read(r: Reader): T;
  /** Source snippets a struct inlines instead of calling write/read (see `struct`). */
  readonly inline?: Inline;
}

/**
 * Inline code for a fixed-layout field, spliced into a struct's generated encoder and
 * decoder. In scope: `b` (Uint8Array), `p` (position, advanced by the snippet), `dv`
 * (DataView over b's buffer, index `base + p`), `E` (the helpers below) and `F` (this field).
 * `write(x)` encodes the local `x`; `read(x)` assigns the decoded value to the local `x`
 * after checking `end`. The snippets must behave exactly like `write`/`read`.
 */
export interface Inline {
  write(x: string): string;
  read(x: string): string;
  /** Whether the snippet uses `dv`. */
  readonly floats?: boolean;
}

/** Helpers the generated code calls on its cold paths. */
const E = {
  range(type: string, v: unknown): never {
    throw new EncodeError(`${type} out of range: ${String(v)}`);
  },
  notFinite(type: string, v: unknown): never {
    throw new EncodeError(`${type} must be finite: ${String(v)}`);
  },
  short(n: number, at: number, end: number): never {
    throw new DecodeError(
      DecodeErrorCode.Short,
      `need ${n} byte(s) at offset ${at}, payload has ${end - at} left`,
    );
  },
  decodeNotFinite(v: number): never {
    throw new DecodeError(DecodeErrorCode.BadNumber, `non-finite number ${v}`);
  },
  badBool(v: number): never {
    throw new DecodeError(DecodeErrorCode.BadBool, `bool byte ${v} is not 0 or 1`);
  },
  badEnum(i: number, n: number): never {
    throw new DecodeError(DecodeErrorCode.BadEnum, `enum index ${i} is not below ${n}`);
  },
  badEnumValue(v: unknown, values: readonly unknown[]): never {
    throw new EncodeError(`${String(v)} is not one of ${values.join(', ')}`);
  },
  /** A varint whose first byte (>= 0x80) was just read: rereads it on the careful path. */
  varintTail(r: Reader): number {
    r.pos -= 1;
    return r.varint();
  },
};

function floatInline(type: string, size: 4 | 8, method: 'Float32' | 'Float64'): Inline {
  return {
    floats: true,
    // An f64 beyond f32's range would go out as Infinity, which every decoder refuses.
    write: (x) => {
      const checked = size === 4 ? `Math.fround(${x})` : x;
      return `if (${checked} - ${checked} !== 0) E.notFinite('${type}', ${x}); dv.set${method}(p, ${x}, true); p += ${size};`;
    },
    read: (x) =>
      `${need(size)} ${x} = dv.get${method}(base + p, true); if (${x} - ${x} !== 0) E.decodeNotFinite(${x}); p += ${size};`,
  };
}

const need = (n: number) => `if (p + ${n} > end) E.short(${n}, p, end);`;

/** An integer field whose range check is one expression on x. */
function intInline(type: string, size: 1 | 2 | 4, valid: string, decoded: string): Inline {
  const stores = ['b[p] = $;', 'b[p + 1] = $ >>> 8;', 'b[p + 2] = $ >>> 16;', 'b[p + 3] = $ >>> 24;'];
  const loads = [`b[p]`, `(b[p + 1] << 8)`, `(b[p + 2] << 16)`, `(b[p + 3] << 24)`];
  return {
    write: (x) =>
      `if (!(${valid.replaceAll('$', x)})) E.range('${type}', ${x}); ` +
      stores
        .slice(0, size)
        .map((st) => st.replaceAll('$', x))
        .join(' ') +
      ` p += ${size};`,
    read: (x) =>
      `${need(size)} ${x} = ${decoded.replace('RAW', loads.slice(0, size).join(' | '))}; p += ${size};`,
  };
}

export type Fields = { readonly [name: string]: Field<any> };
export type Infer<F> = F extends Field<infer T> ? T : never;
export type InferFields<F extends Fields> = { -readonly [K in keyof F]: Infer<F[K]> };

function prefixBytes(max: number): 1 | 2 {
  return max <= 0xff ? 1 : 2;
}

function checkInt(v: number, min: number, max: number, type: string): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new EncodeError(`${type} out of range: ${v}`);
  return v;
}

function checkFinite(v: number, type: string): number {
  if (!Number.isFinite(v)) throw new EncodeError(`${type} must be finite: ${v}`);
  return v;
}

export const u8: Field<number> = {
  spec: { type: 'u8' },
  maxSize: 1,
  inline: intInline('u8', 1, '($ & 0xff) === $', 'RAW'),
  write: (w, v) => w.u8(checkInt(v, 0, 0xff, 'u8')),
  read: (r) => r.u8(),
};
export const i8: Field<number> = {
  spec: { type: 'i8' },
  maxSize: 1,
  inline: intInline('i8', 1, '(($ << 24) >> 24) === $', '((RAW) << 24) >> 24'),
  write: (w, v) => w.i8(checkInt(v, -0x80, 0x7f, 'i8')),
  read: (r) => r.i8(),
};
export const u16: Field<number> = {
  spec: { type: 'u16' },
  maxSize: 2,
  inline: intInline('u16', 2, '($ & 0xffff) === $', 'RAW'),
  write: (w, v) => w.u16(checkInt(v, 0, 0xffff, 'u16')),
  read: (r) => r.u16(),
};
export const i16: Field<number> = {
  spec: { type: 'i16' },
  maxSize: 2,
  inline: intInline('i16', 2, '(($ << 16) >> 16) === $', '((RAW) << 16) >> 16'),
  write: (w, v) => w.i16(checkInt(v, -0x8000, 0x7fff, 'i16')),
  read: (r) => r.i16(),
};
export const u32: Field<number> = {
  spec: { type: 'u32' },
  maxSize: 4,
  inline: intInline('u32', 4, '$ >>> 0 === $', '(RAW) >>> 0'),
  write: (w, v) => w.u32(checkInt(v, 0, 0xffffffff, 'u32')),
  read: (r) => r.u32(),
};
export const i32: Field<number> = {
  spec: { type: 'i32' },
  maxSize: 4,
  inline: intInline('i32', 4, '($ | 0) === $', 'RAW'),
  write: (w, v) => w.i32(checkInt(v, -0x80000000, 0x7fffffff, 'i32')),
  read: (r) => r.i32(),
};
export const f32: Field<number> = {
  spec: { type: 'f32' },
  maxSize: 4,
  inline: floatInline('f32', 4, 'Float32'),
  write: (w, v) => {
    checkFinite(Math.fround(v), 'f32');
    w.f32(v);
  },
  read: (r) => r.f32(),
};
export const f64: Field<number> = {
  spec: { type: 'f64' },
  maxSize: 8,
  inline: floatInline('f64', 8, 'Float64'),
  write: (w, v) => w.f64(checkFinite(v, 'f64')),
  read: (r) => r.f64(),
};
export const bool: Field<boolean> = {
  spec: { type: 'bool' },
  maxSize: 1,
  inline: {
    write: (x) => `b[p++] = ${x} ? 1 : 0;`,
    read: (x) => `${need(1)} ${x} = b[p++]; if (${x} > 1) E.badBool(${x}); ${x} = ${x} === 1;`,
  },
  write: (w, v) => w.u8(v ? 1 : 0),
  read: (r) => r.bool(),
};
export const varint: Field<number> = {
  spec: { type: 'varint' },
  maxSize: 5,
  inline: {
    write: (x) =>
      `if (!(${x} >= 0 && ${x} <= 0xffffffff && Math.floor(${x}) === ${x})) E.range('varint', ${x}); ` +
      `if (${x} < 0x80) { b[p++] = ${x}; } else if (${x} < 0x4000) { b[p++] = (${x} & 0x7f) | 0x80; b[p++] = ${x} >>> 7; } ` +
      `else { let y = ${x}; while (y >= 0x80) { b[p++] = (y & 0x7f) | 0x80; y >>>= 7; } b[p++] = y; }`,
    read: (x) =>
      `${need(1)} ${x} = b[p++]; if (${x} >= 0x80) { r.pos = p; ${x} = E.varintTail(r); p = r.pos; }`,
  },
  write: (w, v) => w.varint(v),
  read: (r) => r.varint(),
};

const TAU = Math.PI * 2;
const TAU_SRC = String(TAU);
const STEP_SRC = String(TAU / 256);
/** A heading in radians, sent in 256 steps (1.4° each); decodes into [0, 2π). */
export const angle: Field<number> = {
  spec: { type: 'angle' },
  maxSize: 1,
  inline: {
    write: (x) =>
      `if (${x} - ${x} !== 0) E.notFinite('angle', ${x}); { const t = ${x} / ${TAU_SRC}; b[p++] = Math.round((t - Math.floor(t)) * 256) & 0xff; }`,
    read: (x) => `${need(1)} ${x} = b[p++] * ${STEP_SRC};`,
  },
  write: (w, v) => {
    checkFinite(v, 'angle');
    // Turns, wrapped into [0, 1) without `%`, which is slow on doubles.
    const turns = v / TAU;
    w.u8(Math.round((turns - Math.floor(turns)) * 256) & 0xff);
  },
  read: (r) => r.u8() * (TAU / 256),
};

export function string(max: number): Field<string> {
  const prefix = prefixBytes(max);
  return {
    spec: { type: 'string', max },
    maxSize: prefix + max,
    write: (w, v) => w.string(v, max, prefix),
    read: (r) => r.string(max, prefix),
  };
}

export function bytes(max: number): Field<Uint8Array> {
  const prefix = prefixBytes(max);
  return {
    spec: { type: 'bytes', max },
    maxSize: prefix + max,
    write: (w, v) => {
      if (v.length > max) throw new EncodeError(`bytes of length ${v.length} exceed ${max}`);
      if (prefix === 1) w.u8(v.length);
      else w.u16(v.length);
      w.raw(v);
    },
    read: (r) => {
      const len = prefix === 1 ? r.u8() : r.u16();
      if (len > max)
        throw new DecodeError(DecodeErrorCode.BytesTooLong, `bytes of length ${len} exceed ${max}`);
      // A copy that owns its bytes: Buffer.prototype.slice would return a view of the socket chunk.
      return new Uint8Array(r.raw(len));
    },
  };
}

export function list<T>(of: Field<T>, max: number): Field<T[]> {
  const prefix = prefixBytes(max);
  return {
    spec: { type: 'list', of: of as Field<unknown>, max },
    maxSize: prefix + max * of.maxSize,
    write: (w, v) => {
      if (v.length > max) throw new EncodeError(`list of ${v.length} items exceeds ${max}`);
      if (prefix === 1) w.u8(v.length);
      else w.u16(v.length);
      for (let i = 0; i < v.length; i++) of.write(w, v[i]!);
    },
    read: (r) => {
      const n = prefix === 1 ? r.u8() : r.u16();
      if (n > max) throw new DecodeError(DecodeErrorCode.ListTooLong, `list of ${n} items exceeds ${max}`);
      const out = new Array<T>(n);
      for (let i = 0; i < n; i++) out[i] = of.read(r);
      return out;
    },
  };
}

export function optional<T>(of: Field<T>): Field<T | undefined> {
  return {
    spec: { type: 'optional', of: of as Field<unknown> },
    maxSize: 1 + of.maxSize,
    write: (w, v) => {
      if (v === undefined) {
        w.u8(0);
      } else {
        w.u8(1);
        of.write(w, v);
      }
    },
    read: (r) => (r.bool() ? of.read(r) : undefined),
  };
}

/** One of a fixed list of values, sent as its u8 index. Append new values; never reorder. */
export function enumOf<const V extends readonly (string | number)[]>(values: V): Field<V[number]> {
  if (values.length === 0 || values.length > 256) throw new Error('an enum has 1..256 values');
  const index = new Map<V[number], number>(values.map((v, i) => [v, i]));
  const cases = values.map((v, i) => `case ${JSON.stringify(v)}: b[p++] = ${i}; break;`).join(' ');
  return {
    spec: { type: 'enum', values },
    maxSize: 1,
    inline: {
      write: (x) => `switch (${x}) { ${cases} default: E.badEnumValue(${x}, F.spec.values); }`,
      read: (x) =>
        `${need(1)} ${x} = b[p++]; if (${x} >= ${values.length}) E.badEnum(${x}, ${values.length}); ${x} = F.spec.values[${x}];`,
    },
    write: (w, v) => {
      const i = index.get(v);
      if (i === undefined) throw new EncodeError(`${String(v)} is not one of ${values.join(', ')}`);
      w.u8(i);
    },
    read: (r) => {
      const i = r.u8();
      if (i >= values.length) {
        throw new DecodeError(DecodeErrorCode.BadEnum, `enum index ${i} is not below ${values.length}`);
      }
      return values[i] as V[number];
    },
  };
}

/**
 * A number in [min, max] sent as a u16 step (resolution (max - min) / 65535). Values
 * outside the range are clamped; the decoded value is the nearest step, not the original.
 */
export function quantized(min: number, max: number): Field<number> {
  const scale = 65535 / (max - min);
  const step = (max - min) / 65535;
  return {
    spec: { type: 'quantized', min, max },
    maxSize: 2,
    inline: {
      write: (x) =>
        `if (${x} - ${x} !== 0) E.notFinite('quantized', ${x}); ` +
        `{ let q = Math.round((${x} - ${min}) * ${scale}); q = q < 0 ? 0 : q > 65535 ? 65535 : q; b[p] = q; b[p + 1] = q >>> 8; p += 2; }`,
      read: (x) => `${need(2)} ${x} = ${min} + (b[p] | (b[p + 1] << 8)) * ${step}; p += 2;`,
    },
    write: (w, v) => {
      checkFinite(v, 'quantized');
      const q = Math.round((v - min) * scale);
      w.u16(q < 0 ? 0 : q > 65535 ? 65535 : q);
    },
    read: (r) => min + r.u16() * step,
  };
}

/** A struct's field, which can also decode into an object it is given. */
export interface StructField<T> extends Field<T> {
  /** Reads the fields into `o` (which keeps its own properties) and returns it: no object of its own. */
  readInto<O extends object>(r: Reader, o: O): O & T;
}

export function struct<F extends Fields>(fields: F): StructField<InferFields<F>> {
  const names = Object.keys(fields);
  const types = names.map((n) => fields[n]!);
  let maxSize = 0;
  let inlineMax = 0;
  for (const t of types) {
    maxSize += t.maxSize;
    if (t.inline) inlineMax += t.maxSize;
  }
  const floats = types.some((t) => t.inline?.floats);
  // Room the fixed fields following each variable-size field need, re-reserved after it.
  const inlineAfter = types.map((_, i) => {
    let n = 0;
    for (let j = i + 1; j < types.length && types[j]!.inline; j++) n += types[j]!.maxSize;
    return n;
  });
  const key = (n: string) => JSON.stringify(n);
  // Generated once per struct. Fixed-layout fields are spliced in as code working on local
  // `b`/`p`; the rest (strings, lists, nested structs) are called, syncing the position
  // around the call. Constant property names keep V8's inline caches monomorphic.
  const writeBody = types
    .map((t, i) => {
      const x = `v${i}`;
      const load = `const ${x} = v[${key(names[i]!)}];`;
      if (t.inline) return `${load} { const F = types[${i}]; ${t.inline.write(x)} }`;
      // The variable-size field may have used the room reserved for the fixed fields after it.
      const room = inlineAfter[i]! > 0 ? `w.ensure(${inlineAfter[i]});` : '';
      return `${load} w.pos = p; types[${i}].write(w, ${x}); ${room} b = w.buf; dv = w.view; p = w.pos;`;
    })
    .join('\n');
  const readBody = types
    .map((t, i) => {
      const x = `v${i}`;
      if (t.inline) return `let ${x}; { const F = types[${i}]; ${t.inline.read(x)} }`;
      return `r.pos = p; const ${x} = types[${i}].read(r); p = r.pos;`;
    })
    .join('\n');
  const write = new Function(
    'types',
    'E',
    `return function writeStruct(w, v) {
      w.ensure(${inlineMax});
      let b = w.buf; let dv = w.view; let p = w.pos;
      ${writeBody}
      w.pos = p;
    };`,
  )(types, E) as Field<InferFields<F>>['write'];
  const read = new Function(
    'types',
    'E',
    `return function readStruct(r) {
      const b = r.bytes; const end = r.end; let p = r.pos;
      ${floats ? 'const dv = r.dataView(); const base = r.viewBase;' : ''}
      ${readBody}
      r.pos = p;
      return { ${names.map((n, i) => `${key(n)}: v${i}`).join(', ')} };
    };`,
  )(types, E) as Field<InferFields<F>>['read'];
  const readInto = new Function(
    'types',
    'E',
    `return function readStructInto(r, o) {
      const b = r.bytes; const end = r.end; let p = r.pos;
      ${floats ? 'const dv = r.dataView(); const base = r.viewBase;' : ''}
      ${readBody}
      r.pos = p;
      ${names.map((n, i) => `o[${key(n)}] = v${i};`).join(' ')}
      return o;
    };`,
  )(types, E) as StructField<InferFields<F>>['readInto'];
  return { spec: { type: 'struct', fields }, maxSize, write, read, readInto };
}

/** A human-readable wire type, used by the generated protocol spec. */
export function describe(field: Field<unknown>): string {
  const s = field.spec;
  switch (s.type) {
    case 'string':
      return `string(max ${s.max} bytes, ${prefixBytes(s.max) === 1 ? 'u8' : 'u16'} length)`;
    case 'bytes':
      return `bytes(max ${s.max}, ${prefixBytes(s.max) === 1 ? 'u8' : 'u16'} length)`;
    case 'list':
      return `list(max ${s.max}, ${prefixBytes(s.max) === 1 ? 'u8' : 'u16'} count) of ${describe(s.of)}`;
    case 'optional':
      return `optional(u8 flag) ${describe(s.of)}`;
    case 'enum':
      return `enum u8 {${s.values.map((v, i) => `${i}=${JSON.stringify(v)}`).join(', ')}}`;
    case 'quantized':
      return `quantized u16 [${s.min}, ${s.max}]`;
    case 'angle':
      return 'angle u8 (2π/256)';
    case 'struct':
      return `{ ${Object.entries(s.fields)
        .map(([k, f]) => `${k}: ${describe(f)}`)
        .join('; ')} }`;
    default:
      return s.type;
  }
}
