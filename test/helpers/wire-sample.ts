/**
 * One ordinary, non-trivial value for each field of the inner wire (server/cluster/inner):
 * the golden vectors of test/cluster/golden/ are these values encoded. Field types of the
 * client protocol take their value from `sampleFor`; `variant` spreads values apart as there.
 */
import type { Field } from '../../shared/codec/fields.js';
import type { AnyWireField, WireFields } from '../../server/cluster/inner/fields.js';
import type { InnerBody, InnerRecord } from '../../server/cluster/inner/define.js';
import { sampleFor } from './sample.js';

const LIST_SAMPLE_LENGTH = 2;
const BYTES_SAMPLE_LENGTH = 8;

export function sampleWire(field: AnyWireField, v = 0): unknown {
  const s = field.spec;
  switch (s.type) {
    case 'group':
      return sampleGroup(s.fields, v);
    case 'array':
      // 17 apart: items differ in the parity of their first field too (a code, a bool).
      return Array.from({ length: Math.min(s.max, LIST_SAMPLE_LENGTH) }, (_, i) =>
        sampleWire(s.of, v + 17 * i),
      );
    case 'maybe':
      return sampleWire(s.of, v);
    case 'code': {
      const names = Object.keys(s.codes);
      return names[(1 + v) % names.length];
    }
    case 'bits':
      return Object.fromEntries(s.names.map((name, i) => [name, (v + i) % 2 === 0]));
    case 'num':
      return [1_763_000_000_000.5 + v, Infinity, -Infinity, null][v % 4];
    case 'blob':
    case 'rest': {
      const out = new Uint8Array(BYTES_SAMPLE_LENGTH);
      for (let i = 0; i < out.length; i++) out[i] = (0xa0 + v + i * 0x11) & 0xff;
      return out;
    }
    case 'when':
      throw new Error('a `when` field is sampled by the group holding it');
    default:
      return sampleFor(field as Field<unknown>, v);
  }
}

function sampleGroup(fields: WireFields, v: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [i, [name, f]] of Object.entries(fields).entries()) {
    const s = f.spec;
    out[name] =
      s.type === 'when' ? (s.cond(out) ? sampleWire(s.of, v + i) : undefined) : sampleWire(f, v + i);
  }
  return out;
}

/** A record's value: `session` and its fields. */
export function sampleRecord(rec: InnerRecord): Record<string, unknown> {
  return sampleWire(rec.body) as Record<string, unknown>;
}

/** A body's value: its declared example, or one made from its field types. */
export function sampleBody(body: InnerBody): Record<string, unknown> {
  return (
    (body.example as Record<string, unknown> | undefined) ?? (sampleWire(body) as Record<string, unknown>)
  );
}
