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
  | { readonly type: 'struct'; readonly fields: Fields };

export interface Field<T> {
  readonly spec: FieldSpec;
  /** The largest number of bytes an encoding can take. */
  readonly maxSize: number;
  write(w: Writer, v: T): void;
  read(r: Reader): T;
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
  write: (w, v) => w.u8(checkInt(v, 0, 0xff, 'u8')),
  read: (r) => r.u8(),
};
export const i8: Field<number> = {
  spec: { type: 'i8' },
  maxSize: 1,
  write: (w, v) => w.i8(checkInt(v, -0x80, 0x7f, 'i8')),
  read: (r) => r.i8(),
};
export const u16: Field<number> = {
  spec: { type: 'u16' },
  maxSize: 2,
  write: (w, v) => w.u16(checkInt(v, 0, 0xffff, 'u16')),
  read: (r) => r.u16(),
};
export const i16: Field<number> = {
  spec: { type: 'i16' },
  maxSize: 2,
  write: (w, v) => w.i16(checkInt(v, -0x8000, 0x7fff, 'i16')),
  read: (r) => r.i16(),
};
export const u32: Field<number> = {
  spec: { type: 'u32' },
  maxSize: 4,
  write: (w, v) => w.u32(checkInt(v, 0, 0xffffffff, 'u32')),
  read: (r) => r.u32(),
};
export const i32: Field<number> = {
  spec: { type: 'i32' },
  maxSize: 4,
  write: (w, v) => w.i32(checkInt(v, -0x80000000, 0x7fffffff, 'i32')),
  read: (r) => r.i32(),
};
export const f32: Field<number> = {
  spec: { type: 'f32' },
  maxSize: 4,
  write: (w, v) => w.f32(checkFinite(v, 'f32')),
  read: (r) => r.f32(),
};
export const f64: Field<number> = {
  spec: { type: 'f64' },
  maxSize: 8,
  write: (w, v) => w.f64(checkFinite(v, 'f64')),
  read: (r) => r.f64(),
};
export const bool: Field<boolean> = {
  spec: { type: 'bool' },
  maxSize: 1,
  write: (w, v) => w.u8(v ? 1 : 0),
  read: (r) => r.bool(),
};
export const varint: Field<number> = {
  spec: { type: 'varint' },
  maxSize: 5,
  write: (w, v) => w.varint(v),
  read: (r) => r.varint(),
};

const TAU = Math.PI * 2;
/** A heading in radians, sent in 256 steps (1.4° each); decodes into [0, 2π). */
export const angle: Field<number> = {
  spec: { type: 'angle' },
  maxSize: 1,
  write: (w, v) => {
    checkFinite(v, 'angle');
    w.u8(Math.round((((v % TAU) + TAU) % TAU) * (256 / TAU)) & 0xff);
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
      return r.raw(len).slice();
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
  return {
    spec: { type: 'enum', values },
    maxSize: 1,
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
    write: (w, v) => {
      checkFinite(v, 'quantized');
      const q = Math.round((v - min) * scale);
      w.u16(q < 0 ? 0 : q > 65535 ? 65535 : q);
    },
    read: (r) => min + r.u16() * step,
  };
}

export function struct<F extends Fields>(fields: F): Field<InferFields<F>> {
  const names = Object.keys(fields);
  const types = names.map((n) => fields[n]!);
  let maxSize = 0;
  for (const t of types) maxSize += t.maxSize;
  // Generated once per struct: constant property names and one call site per field keep
  // V8's inline caches monomorphic, which is what makes a small packet cost tens of ns.
  const key = (n: string) => JSON.stringify(n);
  const write = new Function(
    'types',
    `${types.map((_, i) => `const f${i} = types[${i}];`).join('\n')}
    return function writeStruct(w, v) {
      ${names.map((n, i) => `f${i}.write(w, v[${key(n)}]);`).join('\n')}
    };`,
  )(types) as Field<InferFields<F>>['write'];
  const read = new Function(
    'types',
    `${types.map((_, i) => `const f${i} = types[${i}];`).join('\n')}
    return function readStruct(r) {
      ${names.map((_, i) => `const v${i} = f${i}.read(r);`).join('\n')}
      return { ${names.map((n, i) => `${key(n)}: v${i}`).join(', ')} };
    };`,
  )(types) as Field<InferFields<F>>['read'];
  return { spec: { type: 'struct', fields }, maxSize, write, read };
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
