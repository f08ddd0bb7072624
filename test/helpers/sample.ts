/**
 * Deterministic values per field: `sampleFor` gives one ordinary, non-trivial value (the
 * golden vectors are these values encoded), `maximalFor` gives the value whose encoding
 * takes exactly the field's `maxSize` (for entity records: that many bytes of the largest
 * records, which is what a full WorldUpdate frame carries). Both survive encode -> decode
 * unchanged.
 *
 * `variant` spreads values apart so that two u32 fields of one struct, or two items of one
 * list, do not hold the same bytes (a swapped field then shows up in a golden diff).
 */
import { Writer, type Field } from '../../shared/codec/index.js';
import {
  MAX_PATH_POINTS,
  MOB_ID_BASE,
  writeRecords,
  type EntityRecord,
  type Packet,
  type PayloadOf,
} from '../../shared/protocol/index.js';
import { angleStep, coordStep, quantizedStep, speedStep, truncateUtf8 } from './arbitrary.js';

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
    case 'records':
      return sampleRecords();
  }
}

/**
 * One tick as a client in a meadow might see it, in two blocks (the second starts where
 * the id goes down). A cell's reliable block: a player's health, another's respawn at the
 * graveyard, a wolf killed by the first player, a corpse decaying. Then the player 7 coming
 * into view (its spawn, then its motion reference: walking as it was 120 ms before the
 * frame; delta 0 repeats the id), player 9 turning and walking slower than its spawn speed
 * (a moveBy: 3 and -2 coord steps from where its reference puts it 40 ms before the frame,
 * when its client sent the state), player 10 walking on
 * (a moveBy with the same angle), a wolf on a two-point path, another chasing on from
 * where it is (HERE, ONE waypoint) and a third stopping where it is (HERE, no waypoints).
 * Keys are in decoding order.
 */
export function sampleRecords(): EntityRecord[] {
  const wolf = MOB_ID_BASE + 2;
  return [
    { kind: 'health', id: 9, health: 180, maxHealth: 300 },
    { kind: 'respawn', id: 12, x: coordStep(0x0800), y: coordStep(0x0c00), health: 150, maxHealth: 300 },
    { kind: 'death', id: MOB_ID_BASE + 4, killerId: 9 },
    { kind: 'despawn', id: MOB_ID_BASE + 6, reason: 'corpse' },
    {
      kind: 'spawn',
      id: 7,
      entity: 'player',
      template: 0,
      name: 'Über Drache',
      level: 12,
      health: 300,
      maxHealth: 300,
      speed: speedStep(7 * 16),
      appearance: 3,
      alive: true,
    },
    {
      kind: 'move',
      id: 7,
      x: coordStep(0x1234),
      y: coordStep(0x2345),
      angle: angleStep(64),
      moving: true,
      jump: false,
      speed: undefined,
      age: 120,
    },
    {
      kind: 'moveBy',
      id: 9,
      dx: 3,
      dy: -2,
      angle: angleStep(200),
      moving: true,
      speed: speedStep(88),
      age: 40,
    },
    { kind: 'moveBy', id: 10, dx: 0, dy: 1, angle: undefined, moving: true, speed: undefined },
    {
      kind: 'path',
      id: wolf,
      x: coordStep(0x1500),
      y: coordStep(0x2400),
      speed: speedStep(52),
      waypoints: [
        { x: coordStep(0x1580), y: coordStep(0x2400) },
        { x: coordStep(0x1580), y: coordStep(0x2480) },
      ],
    },
    {
      kind: 'pathHere',
      id: wolf + 1,
      speed: undefined,
      waypoints: [{ x: coordStep(0x1620), y: coordStep(0x2410) }],
    },
    { kind: 'pathHere', id: wolf + 3, speed: undefined, waypoints: [] },
  ];
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
    case 'records':
      return maximalRecords(field.maxSize);
  }
}

// ------------------------------------------------------------------ maximal records

const MAX_ID = 0xffffffff;
/** The largest value of each varint length, 1 to 5 bytes. */
const VARINT_OF_LENGTH = [0, 0x7f, 0x3fff, 0x1fffff, 0xfffffff, 0xffffffff] as const;

/** A health (4..12 bytes) or death (3 bytes) record of exactly `size` bytes, id delta 0. */
function fillerRecord(size: number): EntityRecord {
  if (size === 3) return { kind: 'death', id: MAX_ID, killerId: 0 };
  const a = Math.min(5, size - 3);
  return {
    kind: 'health',
    id: MAX_ID,
    health: VARINT_OF_LENGTH[a]!,
    maxHealth: VARINT_OF_LENGTH[size - 2 - a]!,
  };
}

/**
 * Records whose encoding is exactly `budget` bytes: one block, all on the largest id (a
 * 5-byte delta first, then deltas of 0), opening with the largest spawn and the largest
 * move, then paths of MAX_PATH_POINTS waypoints (the largest record), then health and
 * death records sized to use up the rest. Throws for the budgets that cannot be met so:
 * 1 to 48, 50 and 51 bytes (the real one, a WorldUpdate's, is the frame limit).
 */
export function maximalRecords(budget: number): EntityRecord[] {
  if (budget === 0) return [];
  const far = coordStep(65535);
  const head: EntityRecord[] = [
    {
      kind: 'spawn',
      id: MAX_ID,
      entity: 'mob',
      template: 0xffff,
      name: maximalString(16),
      level: 0xff,
      health: MAX_ID,
      maxHealth: MAX_ID,
      speed: speedStep(65535),
      appearance: 0xff,
      alive: true,
    },
    {
      kind: 'move',
      id: MAX_ID,
      x: far,
      y: far,
      angle: angleStep(255),
      moving: true,
      jump: true,
      speed: speedStep(65535),
    },
  ];
  const path: EntityRecord = {
    kind: 'path',
    id: MAX_ID,
    x: far,
    y: far,
    speed: speedStep(65535),
    waypoints: Array.from({ length: MAX_PATH_POINTS }, () => ({ x: far, y: far })),
  };
  const sizeOf = (records: EntityRecord[]) => {
    const w = new Writer(256);
    writeRecords(w, records);
    return w.pos;
  };
  // A path after the head has a 1-byte delta, not 5 (no block counts: a block costs nothing).
  const headSize = sizeOf(head);
  const pathSize = sizeOf([path]) - 4;
  let rest = budget - headSize;
  if (rest >= 0 && rest !== 1 && rest !== 2) {
    const paths = rest < 3 ? 0 : Math.floor((rest - 3) / pathSize);
    rest -= paths * pathSize;
    const records = [...head, ...Array<EntityRecord>(paths).fill(path)];
    for (let left = Math.ceil(rest / 12); left > 0; left--) {
      const size = Math.floor(rest / left);
      records.push(fillerRecord(size));
      rest -= size;
    }
    if (sizeOf(records) === budget) return records;
  }
  throw new Error(`no entity records encode to exactly ${budget} bytes`);
}

export function samplePacket<P extends Packet>(def: P): PayloadOf<P> {
  return sampleFor(def.payload) as PayloadOf<P>;
}

export function maximalPacket<P extends Packet>(def: P): PayloadOf<P> {
  return maximalFor(def.payload) as PayloadOf<P>;
}
