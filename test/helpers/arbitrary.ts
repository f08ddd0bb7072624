/**
 * fast-check arbitraries built from a field's `spec`, for property tests over every packet.
 * Every generated value survives encode -> decode unchanged (toEqual), so lossy types are
 * generated on their wire grid: f32 values are 32-bit floats, quantized values are steps of
 * (max - min) / 65535 and angles are steps of 2π / 256, computed with the same arithmetic the
 * decoder uses.
 */
import fc from 'fast-check';
import type { Field } from '../../shared/codec/index.js';
import {
  COORD_MAX,
  DespawnReason,
  EntityKind,
  MAX_PATH_POINTS,
  MOB_ID_BASE,
  type EntityRecord,
  type Packet,
  type PayloadOf,
} from '../../shared/protocol/index.js';

/** Lists are generated up to this many items so a run stays fast; maximalFor covers the max. */
export const LIST_CAP = 20;
/** bytes fields are generated up to this length (the longest declared is 512). */
export const BYTES_CAP = 600;

const TAU = Math.PI * 2;

/** The value a quantized(min, max) field decodes step k (0..65535) to. */
export function quantizedStep(min: number, max: number, k: number): number {
  return min + k * ((max - min) / 65535);
}

/** The value an angle field decodes step k (0..255) to. */
export function angleStep(k: number): number {
  return k * (TAU / 256);
}

/** The value a record's coordinate decodes step k (0..65535) to. */
export function coordStep(k: number): number {
  return quantizedStep(0, COORD_MAX, k);
}

/** The value a record's speed decodes step k (0..65535, 1/16 unit per second) to. */
export function speedStep(k: number): number {
  return k / 16;
}

export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** The longest prefix of whole code points that fits in maxBytes of UTF-8. */
export function truncateUtf8(s: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + n > maxBytes) break;
    bytes += n;
    out += ch;
  }
  return out;
}

/**
 * Any code point but a surrogate half, drawn evenly from each UTF-8 length (1 to 4 bytes),
 * and U+FEFF often: decoders tend to drop it as a byte order mark at the start of a string.
 */
const codePoint = fc
  .oneof(
    fc.constant(0xfeff),
    fc.integer({ min: 0, max: 0x7f }),
    fc.integer({ min: 0x80, max: 0x7ff }),
    fc.integer({ min: 0x800, max: 0xd7ff }),
    fc.integer({ min: 0xe000, max: 0xffff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .map((cp) => String.fromCodePoint(cp));

function stringArbitrary(maxBytes: number): fc.Arbitrary<string> {
  // Printable ASCII (the codec's fast paths) and any code point (fast-check's own 'binary'
  // unit would do, but takes seconds to set up), then cut to maxBytes of UTF-8.
  return fc
    .oneof(fc.string({ maxLength: maxBytes }), fc.string({ unit: codePoint, maxLength: maxBytes }))
    .map((s) => truncateUtf8(s, maxBytes));
}

// ------------------------------------------------------------------ entity records

const coordArb = fc.integer({ min: 0, max: 65535 }).map(coordStep);
const angleArb = fc.integer({ min: 0, max: 255 }).map(angleStep);
const speedArb = fc.integer({ min: 0, max: 65535 }).map(speedStep);
const varintArb = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.constantFrom(0, 127, 128, 16383, 16384, 0xffffffff),
);
/**
 * Entity ids: small player ids and mob ids (so runs of ascending and repeated ids, which
 * share a block, are common) and any u32 (deltas of every varint length).
 */
const idArb = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 40 }), weight: 3 },
  { arbitrary: fc.integer({ min: MOB_ID_BASE, max: MOB_ID_BASE + 40 }), weight: 2 },
  { arbitrary: fc.integer({ min: 0, max: 0xffffffff }), weight: 1 },
);
const pointArb = fc.record({ x: coordArb, y: coordArb });

/**
 * One record of any kind on the wire grid, with its keys in the order the decoder builds
 * them (golden files print values as JSON, where key order shows).
 */
const moveArb = fc.record({
  kind: fc.constant('move' as const),
  id: idArb,
  x: coordArb,
  y: coordArb,
  angle: angleArb,
  moving: fc.boolean(),
  jump: fc.boolean(),
  speed: fc.option(speedArb, { nil: undefined }),
});
const stepDeltaArb = fc.oneof(
  fc.integer({ min: -64, max: 63 }),
  fc.integer({ min: -65535, max: 65535 }),
  fc.constantFrom(-65535, -8192, -8193, 8191, 8192, 65535),
);

const pathArb = fc.record({
  kind: fc.constant('path' as const),
  id: idArb,
  x: coordArb,
  y: coordArb,
  speed: fc.option(speedArb, { nil: undefined }),
  waypoints: fc.array(pointArb, { maxLength: MAX_PATH_POINTS }),
});

export const entityRecordArbitrary: fc.Arbitrary<EntityRecord> = fc.oneof(
  moveArb,
  fc
    .tuple(moveArb, fc.integer({ min: 1, max: 0xffffffff }))
    .map(([move, age]): EntityRecord => ({ ...move, age })),
  fc.record({
    kind: fc.constant('moveBy' as const),
    id: idArb,
    dx: stepDeltaArb,
    dy: stepDeltaArb,
    angle: fc.option(angleArb, { nil: undefined }),
    moving: fc.boolean(),
    speed: fc.option(speedArb, { nil: undefined }),
  }),
  fc
    .record({
      kind: fc.constant('moveBy' as const),
      id: idArb,
      dx: stepDeltaArb,
      dy: stepDeltaArb,
      angle: fc.option(angleArb, { nil: undefined }),
      moving: fc.boolean(),
      speed: fc.option(speedArb, { nil: undefined }),
    })
    .chain((r) => fc.integer({ min: 1, max: 0xffffffff }).map((age): EntityRecord => ({ ...r, age }))),
  pathArb,
  pathArb.chain((r) => fc.integer({ min: 1, max: 0xffffffff }).map((age): EntityRecord => ({ ...r, age }))),
  fc.record({
    kind: fc.constant('pathHere' as const),
    id: idArb,
    speed: fc.option(speedArb, { nil: undefined }),
    waypoints: fc.array(pointArb, { maxLength: MAX_PATH_POINTS }),
  }),
  fc.record({
    kind: fc.constant('spawn' as const),
    id: idArb,
    entity: fc.constantFrom(...EntityKind),
    template: fc.integer({ min: 0, max: 0xffff }),
    name: stringArbitrary(16),
    level: fc.integer({ min: 0, max: 0xff }),
    health: varintArb,
    maxHealth: varintArb,
    speed: speedArb,
    appearance: fc.integer({ min: 0, max: 0xff }),
    alive: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('despawn' as const), id: idArb, reason: fc.constantFrom(...DespawnReason) }),
  fc.record({ kind: fc.constant('health' as const), id: idArb, health: varintArb, maxHealth: varintArb }),
  fc.record({ kind: fc.constant('death' as const), id: idArb, killerId: varintArb }),
  fc.record({
    kind: fc.constant('respawn' as const),
    id: idArb,
    x: coordArb,
    y: coordArb,
    health: varintArb,
    maxHealth: varintArb,
  }),
);

/**
 * Records in any order: writeRecords starts a new block wherever an id goes down and
 * delta-codes ids within a block, so every order round-trips.
 */
export function entityRecordsArbitrary(maxLength: number = LIST_CAP): fc.Arbitrary<EntityRecord[]> {
  return fc.array(entityRecordArbitrary, { maxLength });
}

export interface ArbitraryOptions {
  /** Largest generated list length (never above the declared max). */
  readonly listCap?: number;
}

export function arbitraryFor<T>(field: Field<T>, options: ArbitraryOptions = {}): fc.Arbitrary<T> {
  return build(field as Field<unknown>, options.listCap ?? LIST_CAP) as fc.Arbitrary<T>;
}

function build(field: Field<unknown>, listCap: number): fc.Arbitrary<unknown> {
  const s = field.spec;
  switch (s.type) {
    case 'u8':
      return fc.integer({ min: 0, max: 0xff });
    case 'i8':
      return fc.integer({ min: -0x80, max: 0x7f });
    case 'u16':
      return fc.integer({ min: 0, max: 0xffff });
    case 'i16':
      return fc.integer({ min: -0x8000, max: 0x7fff });
    case 'u32':
      return fc.integer({ min: 0, max: 0xffffffff });
    case 'i32':
      return fc.integer({ min: -0x80000000, max: 0x7fffffff });
    case 'f32':
      return fc.float({ noNaN: true, noDefaultInfinity: true });
    case 'f64':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'bool':
      return fc.boolean();
    case 'varint':
      // Every encoded length (1..5 bytes) and its edges, not only what integer() favours.
      return fc.oneof(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.constantFrom(0, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456, 0xffffffff),
      );
    case 'angle':
      return fc.integer({ min: 0, max: 255 }).map(angleStep);
    case 'quantized': {
      const { min, max } = s;
      return fc.integer({ min: 0, max: 65535 }).map((k) => quantizedStep(min, max, k));
    }
    case 'string':
      return stringArbitrary(s.max);
    case 'bytes':
      return fc.uint8Array({ maxLength: Math.min(s.max, BYTES_CAP) });
    case 'list':
      return fc.array(build(s.of, listCap), { maxLength: Math.min(s.max, listCap) });
    case 'optional':
      return fc.option(build(s.of, listCap), { nil: undefined });
    case 'enum':
      return fc.constantFrom(...s.values);
    case 'struct': {
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, f] of Object.entries(s.fields)) model[name] = build(f, listCap);
      return fc.record(model);
    }
    case 'records':
      // listCap records stay far below the field's maxSize (at most 77 bytes each).
      return entityRecordsArbitrary(listCap);
  }
}

/** Payloads for one packet definition. */
export function arbitraryPacket<P extends Packet>(
  def: P,
  options: ArbitraryOptions = {},
): fc.Arbitrary<PayloadOf<P>> {
  return arbitraryFor(def.payload, options) as fc.Arbitrary<PayloadOf<P>>;
}
