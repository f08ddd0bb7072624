import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EncodeError, HEADER_SIZE, MAX_FRAME_SIZE, Reader, Writer } from '../../shared/codec/index.js';
import {
  ALIVE,
  BASE,
  characterName,
  COORD_MAX,
  dequantizeCoord,
  JUMP,
  markBase,
  MAX_PATH_POINTS,
  MOVING,
  packets,
  quantizeAngle,
  quantizeCoord,
  quantizeSpeed,
  readRecords,
  RecordKind,
  SPEED,
  WORLD_UPDATE_HEAD_MAX,
  WorldUpdate,
  writeRecord,
  writeRecordBody,
  writeRecords,
} from '../../shared/protocol/index.js';
import type { EntityRecord, MoveRecord } from '../../shared/protocol/index.js';
import { angleStep, coordStep, entityRecordsArbitrary, speedStep } from '../helpers/arbitrary.js';
import { maximalRecords, sampleRecords } from '../helpers/sample.js';
import { recordsFieldOf, splitBlocks } from './blocks.js';

// ---------------------------------------------------------------------------------------
// Builders

function encode(records: readonly EntityRecord[]): number[] {
  const w = new Writer(8);
  writeRecords(w, records);
  return Array.from(w.finish());
}

function decode(bytes: readonly number[] | Uint8Array): EntityRecord[] {
  const r = new Reader(Uint8Array.from(bytes));
  const out = readRecords(r);
  expect(r.remaining, 'bytes left after the records').toBe(0);
  return out;
}

/** The bytes of one record written with this id delta. */
function recordBytes(record: EntityRecord, idDelta = 1): number[] {
  const w = new Writer(8);
  writeRecord(w, idDelta, record);
  return Array.from(w.finish());
}

/** The same bytes with BASE set: the first record of a block. */
function based(bytes: number[]): number[] {
  const out = Uint8Array.from(bytes);
  markBase(out, 0);
  return Array.from(out);
}

function move(over: Partial<MoveRecord> = {}): MoveRecord {
  return {
    kind: 'move',
    id: 1,
    x: coordStep(100),
    y: coordStep(200),
    angle: angleStep(3),
    moving: false,
    jump: false,
    speed: undefined,
    ...over,
  };
}

const death = (id: number, killerId = 0): EntityRecord => ({ kind: 'death', id, killerId });

// ---------------------------------------------------------------------------------------

describe('entity records', () => {
  it('round-trip any records in any order exactly', () => {
    fc.assert(
      fc.property(entityRecordsArbitrary(40), (records) => {
        expect(decode(encode(records))).toEqual(records);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trip a record written with any id delta as that id, first in its block', () => {
    fc.assert(
      fc.property(entityRecordsArbitrary(1), (records) => {
        for (const r of records) expect(decode(based(recordBytes(r, r.id)))).toEqual([r]);
      }),
    );
  });

  it('round-trip a frame filled to the limit', () => {
    const records = maximalRecords(WorldUpdate.fields.records.maxSize);
    // The largest head (two 5-byte varints) and the largest records.
    const frame = WorldUpdate.encode({ tick: 0xffffffff, time: 0xffffffff, records });
    expect(frame.length).toBe(MAX_FRAME_SIZE);
    expect(WorldUpdate.decode(frame.subarray(HEADER_SIZE)).records).toEqual(records);
  });

  it('refuse on encode what would not fit a frame (the server starts another frame)', () => {
    const records = maximalRecords(WorldUpdate.fields.records.maxSize);
    expect(() =>
      WorldUpdate.encode({ tick: 0xffffffff, time: 0xffffffff, records: [...records, death(0xffffffff)] }),
    ).toThrow(EncodeError);
  });

  it('take a whole WorldUpdate payload but its head: records are the last field', () => {
    expect(WORLD_UPDATE_HEAD_MAX).toBe(WorldUpdate.fields.tick.maxSize + WorldUpdate.fields.time.maxSize);
    expect(WorldUpdate.fields.records.maxSize).toBe(MAX_FRAME_SIZE - HEADER_SIZE - WORLD_UPDATE_HEAD_MAX);
    for (const def of packets) {
      const name = recordsFieldOf(def);
      if (name === undefined) continue;
      expect(Object.keys(def.fields).at(-1), `${def.name}: records read to the end of the payload`).toBe(
        name,
      );
    }
  });
});

describe('record blocks', () => {
  it('delta-code ids within a block, ascending, from 0', () => {
    const bytes = encode([death(3), death(10), death(300)]);
    const D = RecordKind.Death;
    // prettier-ignore
    expect(bytes).toEqual([
      3, D | BASE, 0,   // id 3, a block starts (BASE): from 0; killer 0
      7, D, 0,          // id 10 = 3 + 7
      0xa2, 0x02, D, 0, // id 300 = 10 + 290, a 2-byte varint
    ]);
  });

  it('start a new block where an id goes down, its ids again from 0', () => {
    const bytes = encode([death(10), death(12), death(3), death(5), death(1)]);
    const D = RecordKind.Death;
    const B = D | BASE;
    // prettier-ignore
    expect(bytes).toEqual([
      10, B, 0, 2, D, 0, // ids 10, 12
      3, B, 0, 2, D, 0,  // ids 3, 5
      1, B, 0,           // id 1
    ]);
    expect(decode(bytes).map((r) => r.id)).toEqual([10, 12, 3, 5, 1]);
  });

  it('repeat an entity with a delta of 0: its spawn, then its motion', () => {
    const spawn = sampleRecords().find((r) => r.kind === 'spawn')!;
    const standing = move({ id: spawn.id });
    const bytes = encode([spawn, standing]);
    const spawnBytes = recordBytes(spawn, spawn.id);
    expect(bytes).toEqual([...based(spawnBytes), ...recordBytes(standing, 0)]);
    expect(bytes[spawnBytes.length]).toBe(0);
    expect(decode(bytes)).toEqual([spawn, standing]);
  });

  it('are as many as the id descents plus one', () => {
    fc.assert(
      fc.property(entityRecordsArbitrary(30), (records) => {
        const descents = records.filter((r, i) => i > 0 && r.id < records[i - 1]!.id).length;
        const blocks = splitBlocks(records);
        expect(blocks).toHaveLength(records.length === 0 ? 0 : descents + 1);
        // Each block is its records back to back, the first with BASE.
        const bytes = blocks.flatMap((b) =>
          b.flatMap((r, i) => (i === 0 ? based(recordBytes(r, r.id)) : recordBytes(r, r.id - b[i - 1]!.id))),
        );
        expect(encode(records)).toEqual(bytes);
      }),
      { numRuns: 200 },
    );
  });

  it('are what writeRecordBody writes, the first marked BASE, as the server writes them', () => {
    const w = new Writer(8);
    writeRecordBody.health(w, 9, 180, 300);
    markBase(w.buf, 0);
    writeRecordBody.move(w, 3, coordStep(5), coordStep(6), angleStep(7), true, false, speedStep(40));
    writeRecordBody.despawn(w, 0, 'outOfRange');
    expect(decode(w.finish())).toEqual([
      { kind: 'health', id: 9, health: 180, maxHealth: 300 },
      move({
        id: 12,
        x: coordStep(5),
        y: coordStep(6),
        angle: angleStep(7),
        moving: true,
        speed: speedStep(40),
      }),
      { kind: 'despawn', id: 12, reason: 'outOfRange' },
    ]);
  });

  // The server encodes each interest cell's blocks once per tick and copies the bytes to
  // every observer of the cell: that works because blocks share no state.
  it('decode, concatenated from independent encodings, as the concatenation of their records', () => {
    fc.assert(
      fc.property(
        fc.array(entityRecordsArbitrary(8), { maxLength: 6 }),
        fc.nat(),
        fc.nat(),
        (cells, tick, time) => {
          const parts = cells.map(encode);
          expect(decode(parts.flat())).toEqual(cells.flat());
          const w = new Writer(64);
          w.varint(tick);
          w.varint(time);
          for (const p of parts) w.raw(Uint8Array.from(p));
          expect(WorldUpdate.decode(w.finish())).toEqual({ tick, time, records: cells.flat() });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('record ids without BASE', () => {
  it('count on from the previous record, whatever block it was in; the payload starts from 0', () => {
    const D = RecordKind.Death;
    // No BASE anywhere: 5, then 5 + 2, then 7 + 1.
    expect(decode([5, D, 0, 2, D, 0, 1, D, 0]).map((r) => r.id)).toEqual([5, 7, 8]);
    // BASE restarts from 0; the next counts on from it.
    expect(decode([5, D, 0, 2, D | BASE, 0, 1, D, 0]).map((r) => r.id)).toEqual([5, 2, 3]);
  });
});

describe('record byte costs', () => {
  it('a move is 7 bytes with a 1-byte id delta: delta, tag, x u16, y u16, angle u8', () => {
    expect(recordBytes(move())).toHaveLength(7);
    expect(recordBytes(move({ moving: true }))).toHaveLength(7);
    expect(recordBytes(move({ moving: true, jump: true }))).toHaveLength(7);
  });

  it('a move is 2 bytes more with SPEED (a walking speed other than the spawn speed)', () => {
    const bytes = recordBytes(move({ moving: true, speed: speedStep(88) }));
    expect(bytes).toHaveLength(9);
    expect(bytes.slice(-2)).toEqual([88, 0]);
  });

  it('a block of walking entities costs 7 bytes each and nothing for the block', () => {
    const walkers = Array.from({ length: 100 }, (_, i) => move({ id: 1 + i, moving: true }));
    expect(encode(walkers)).toHaveLength(7 * 100);
  });

  it('puts the kind in the low 3 bits of the tag, BASE in bit 3 and the flags in the high nibble', () => {
    expect(based(recordBytes(move()))[1]).toBe(RecordKind.Move | BASE);
    const tag = (r: EntityRecord) => recordBytes(r)[1];
    expect(tag(move())).toBe(RecordKind.Move);
    expect(tag(move({ moving: true }))).toBe(RecordKind.Move | MOVING);
    expect(tag(move({ jump: true }))).toBe(RecordKind.Move | JUMP);
    expect(tag(move({ moving: true, jump: true, speed: 1 }))).toBe(RecordKind.Move | MOVING | JUMP | SPEED);
    const spawn = sampleRecords().find((r) => r.kind === 'spawn')!;
    expect(tag(spawn)).toBe(RecordKind.Spawn | ALIVE);
    expect(tag({ ...spawn, alive: false })).toBe(RecordKind.Spawn);
  });

  it('sizes every other kind as its layout says', () => {
    const path = (n: number): EntityRecord => ({
      kind: 'path',
      id: 1,
      x: 0,
      y: 0,
      speed: 1,
      waypoints: Array<{ x: number; y: number }>(n).fill({ x: 0, y: 0 }),
    });
    expect(recordBytes(path(0))).toHaveLength(9);
    expect(recordBytes(path(MAX_PATH_POINTS))).toHaveLength(9 + 4 * MAX_PATH_POINTS);
    expect(recordBytes({ kind: 'despawn', id: 1, reason: 'left' })).toHaveLength(3);
    expect(recordBytes(death(1, 9))).toHaveLength(3);
    expect(recordBytes({ kind: 'health', id: 1, health: 100, maxHealth: 100 })).toHaveLength(4);
    expect(recordBytes({ kind: 'respawn', id: 1, x: 0, y: 0, health: 100, maxHealth: 100 })).toHaveLength(8);
    const spawn = sampleRecords().find((r) => r.kind === 'spawn')!;
    // delta, tag, entity, template u16, name (u8 length + bytes), level, 2 + 2 health, speed u16, appearance
    expect(recordBytes({ ...spawn, name: 'Wolf', health: 100, maxHealth: 100 })).toHaveLength(
      1 + 1 + 1 + 2 + 5 + 1 + 2 + 2 + 1,
    );
  });
});

describe('spawn names', () => {
  // PROTOCOL.md states the limit from characterName; records.ts keeps its own copy.
  it('hold a character name: up to its max in UTF-8 bytes, and no more', () => {
    const max = characterName.spec.type === 'string' ? characterName.spec.max : 0;
    const spawn = sampleRecords().find((r) => r.kind === 'spawn')!;
    const longest = { ...spawn, name: 'é'.repeat(max / 2) };
    expect(decode(encode([longest]))).toEqual([longest]);
    expect(() => encode([{ ...spawn, name: `${longest.name}x` }])).toThrow(EncodeError);
  });
});

describe('record quantization', () => {
  it('puts coordinates on u16 steps of COORD_MAX / 65535, clamped to the zone', () => {
    expect(quantizeCoord(0)).toBe(0);
    expect(quantizeCoord(COORD_MAX)).toBe(65535);
    expect(quantizeCoord(-5)).toBe(0);
    expect(quantizeCoord(COORD_MAX + 5)).toBe(65535);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), (k) => {
        expect(quantizeCoord(coordStep(k))).toBe(k);
        expect(dequantizeCoord(k)).toBe(coordStep(k));
      }),
    );
    fc.assert(
      fc.property(fc.double({ min: 0, max: COORD_MAX, noNaN: true }), (v) => {
        expect(Math.abs(dequantizeCoord(quantizeCoord(v)) - v)).toBeLessThanOrEqual(
          COORD_MAX / 65535 / 2 + 1e-9,
        );
      }),
    );
  });

  it('wraps angles into 256 steps of a turn', () => {
    expect(quantizeAngle(0)).toBe(0);
    expect(quantizeAngle(Math.PI)).toBe(128);
    expect(quantizeAngle(-Math.PI / 2)).toBe(192);
    expect(quantizeAngle(2 * Math.PI)).toBe(0);
    expect(quantizeAngle(2 * Math.PI - 0.001)).toBe(0);
    expect(quantizeAngle(5 * Math.PI)).toBe(128);
  });

  it('puts speeds on 1/16 steps within a u16, clamped', () => {
    expect(quantizeSpeed(5.5)).toBe(88);
    expect(quantizeSpeed(-1)).toBe(0);
    expect(quantizeSpeed(1e9)).toBe(0xffff);
    const decoded = decode(encode([move({ moving: true, speed: 5.53 })]))[0] as MoveRecord;
    expect(decoded.speed).toBe(speedStep(88));
  });

  it('decodes a move without SPEED with speed undefined: the spawn speed applies', () => {
    expect(decode(encode([move({ moving: true })]))[0]).toMatchObject({ moving: true, speed: undefined });
  });
});
