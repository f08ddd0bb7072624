/**
 * Deterministic values per field: `sampleFor` gives one ordinary, non-trivial value (the
 * golden vectors are these values encoded), `maximalFor` gives the value whose encoding
 * takes exactly the field's `maxSize`. Both survive encode -> decode unchanged.
 *
 * `variant` spreads values apart so that two u32 fields of one struct, or two items of one
 * list, do not hold the same bytes (a swapped field then shows up in a golden diff).
 */
import type { Field } from '../../shared/codec/index.js';
import type { Packet, PayloadOf } from '../../shared/protocol/index.js';
import { angleStep, quantizedStep, truncateUtf8 } from './arbitrary.js';

/** ASCII, 2-byte and 3-byte UTF-8: each fits the shortest string field (16 bytes). */
const SAMPLE_STRINGS = ['Wyvern', 'Über Drache', 'Wyrm ✓'] as const;
const LIST_SAMPLE_LENGTH = 2;
const BYTES_SAMPLE_LENGTH = 8;

export function sampleFor<T>(field: Field<T>, variant = 0): T {
  return sample(field as Field<unknown>, variant) as T;
}

function sample(field: Field<unknown>, v: number): unknown {
  const s = field.spec;
  switch (s.type) {
    case 'u8':
      return (0x2a + v) % 0x100;
    case 'i8':
      return -1 - ((0x29 + v) % 0x80);
    case 'u16':
      return (0x1234 + v) % 0x10000;
    case 'i16':
      return -1 - ((0x1233 + v) % 0x8000);
    case 'u32':
      return (0x12345678 + v) >>> 0;
    case 'i32':
      return -1 - ((0x1234566 + v) % 0x80000000);
    case 'f32':
      return 1234.5 + v * 0.25;
    case 'f64':
      return 1_763_000_000_000.5 + v;
    case 'bool':
      return v % 2 === 0;
    case 'varint':
      // 300 is the smallest value that needs two bytes and has a non-zero low group.
      return 300 + v;
    case 'angle':
      return angleStep((64 + v) % 256);
    case 'quantized':
      return quantizedStep(s.min, s.max, (0x1234 + v) % 0x10000);
    case 'string':
      return truncateUtf8(SAMPLE_STRINGS[v % SAMPLE_STRINGS.length]!, s.max);
    case 'bytes': {
      const out = new Uint8Array(Math.min(s.max, BYTES_SAMPLE_LENGTH));
      for (let i = 0; i < out.length; i++) out[i] = (0xa0 + v + i * 0x11) & 0xff;
      return out;
    }
    case 'list':
      return Array.from({ length: Math.min(s.max, LIST_SAMPLE_LENGTH) }, (_, i) => sample(s.of, v + 16 * i));
    case 'optional':
      return sample(s.of, v);
    case 'enum':
      return s.values[(1 + v) % s.values.length];
    case 'struct':
      return Object.fromEntries(Object.entries(s.fields).map(([name, f], i) => [name, sample(f, v + i)]));
  }
}

/** A string of exactly maxBytes UTF-8 bytes, mostly 4-byte code points. */
function maximalString(maxBytes: number): string {
  const tail = ['', 'x', 'é', '✓'][maxBytes % 4]!;
  return '🐉'.repeat(Math.floor(maxBytes / 4)) + tail;
}

export function maximalFor<T>(field: Field<T>): T {
  return maximal(field as Field<unknown>) as T;
}

function maximal(field: Field<unknown>): unknown {
  const s = field.spec;
  switch (s.type) {
    case 'u8':
      return 0xff;
    case 'i8':
      return -0x80;
    case 'u16':
      return 0xffff;
    case 'i16':
      return -0x8000;
    case 'u32':
      return 0xffffffff;
    case 'i32':
      return -0x80000000;
    case 'f32':
      // The largest finite f32, negated.
      return -3.4028234663852886e38;
    case 'f64':
      return -Number.MAX_VALUE;
    case 'bool':
      return true;
    case 'varint':
      return 0xffffffff;
    case 'angle':
      return angleStep(255);
    case 'quantized':
      return quantizedStep(s.min, s.max, 65535);
    case 'string':
      return maximalString(s.max);
    case 'bytes':
      return new Uint8Array(s.max).fill(0xff);
    case 'list':
      return Array.from({ length: s.max }, () => maximal(s.of));
    case 'optional':
      return maximal(s.of);
    case 'enum':
      return s.values[s.values.length - 1];
    case 'struct':
      return Object.fromEntries(Object.entries(s.fields).map(([name, f]) => [name, maximal(f)]));
  }
}

export function samplePacket<P extends Packet>(def: P): PayloadOf<P> {
  return sampleFor(def.payload) as PayloadOf<P>;
}

export function maximalPacket<P extends Packet>(def: P): PayloadOf<P> {
  return maximalFor(def.payload) as PayloadOf<P>;
}
