/**
 * The bots and the client read WorldUpdate records alike: on the same frames the bots' walk
 * (numbers only, through the SDK's visitRecords) reports what the client's decode and
 * MotionRefs.resolve make of them, keeps the same motion references, and refuses the same
 * malformed records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError, HEADER_SIZE, Reader } from '../../shared/codec/index.js';
import {
  MOB_ID_BASE,
  MotionRefs,
  RecordDetail,
  WorldUpdate,
  quantizeCoord,
  readRecords,
  visitRecords,
  type EntityRecord,
  type RecordVisitor as WireVisitor,
} from '../../shared/protocol/index.js';
import { walkRecords, type RecordVisitor } from '../../tools/bots/records.js';
import { zeroCounters } from '../../tools/bots/state.js';
import { entityRecordsArbitrary } from '../helpers/arbitrary.js';

type Call = (string | number | boolean)[];

function logger(): RecordVisitor & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    move: (id) => calls.push(['motion', id]),
    path: (id) => calls.push(['motion', id]),
    spawn: (id, mob, alive) => calls.push(['spawn', id, mob, alive]),
    despawn: (id) => calls.push(['despawn', id]),
    death: (id) => calls.push(['death', id]),
    respawn: (id, qx, qy) => calls.push(['respawn', id, qx, qy]),
  };
}

/** What the bot should hear of the client's resolved records (health is not its business). */
function clientCalls(records: readonly EntityRecord[]): Call[] {
  const calls: Call[] = [];
  for (const r of records) {
    if (r.kind === 'move' || r.kind === 'path') calls.push(['motion', r.id]);
    else if (r.kind === 'spawn') calls.push(['spawn', r.id, r.entity === 'mob', r.alive]);
    else if (r.kind === 'despawn' || r.kind === 'death') calls.push([r.kind, r.id]);
    else if (r.kind === 'respawn') calls.push(['respawn', r.id, quantizeCoord(r.x), quantizeCoord(r.y)]);
  }
  return calls;
}

/** The references a MotionRefs keeps (its scratch fields left out). */
function references(refs: MotionRefs): unknown {
  const kept = refs as unknown as {
    tick: number;
    time: number;
    small: unknown[];
    large: Map<number, unknown>;
  };
  return { tick: kept.tick, time: kept.time, small: kept.small, large: kept.large };
}

/** A few entities, players and mobs, so that records meet the references earlier ones left. */
const fewEntities = (records: EntityRecord[]): EntityRecord[] =>
  records.map((r) => ({ ...r, id: (r.id % 3 === 0 ? MOB_ID_BASE : 0) + 1 + (r.id % 6) }));

const frames = fc.array(entityRecordsArbitrary(24).map(fewEntities), { minLength: 1, maxLength: 8 });

describe('the bots and the client reading WorldUpdate records', () => {
  it('report the same records and keep the same motion references, frame after frame', () => {
    fc.assert(
      fc.property(frames, (batch) => {
        const clientRefs = new MotionRefs();
        const botRefs = new MotionRefs();
        for (const records of batch) {
          const frame = WorldUpdate.encode({ tick: 1, time: 50, records });
          const update = WorldUpdate.decode(frame.subarray(HEADER_SIZE));
          const decoded = update.records.length;
          clientRefs.resolve(update);
          const v = logger();
          const tally = zeroCounters();
          expect(walkRecords(frame, HEADER_SIZE, frame.length, botRefs, v, tally, true)).toBe(true);
          expect(tally.records).toBe(decoded);
          expect(v.calls).toEqual(clientCalls(update.records));
          expect(references(botRefs)).toEqual(references(clientRefs));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('read the same numbers whether or not names and waypoints are asked for', () => {
    fc.assert(
      fc.property(entityRecordsArbitrary(30), (records) => {
        const frame = WorldUpdate.encode({ tick: 1, time: 50, records });
        const seen = (detail: number): Call[] => {
          const calls: Call[] = [];
          const log =
            (kind: string) =>
            (...args: unknown[]) =>
              calls.push([kind, ...(args as Call)]);
          const v: WireVisitor = {
            move: log('move'),
            moveBy: log('moveBy'),
            path: (id, qx, qy, qs, n, pts, age) =>
              calls.push(['path', id, qx, qy, qs, n, age, n > 0 && pts.length === 2 * n ? 'points' : 'none']),
            spawn: (id, alive, entity, template, name, ...rest) =>
              calls.push(['spawn', id, alive, entity, template, name === '' ? 'none' : 'name', ...rest]),
            despawn: log('despawn'),
            health: log('health'),
            death: log('death'),
            respawn: log('respawn'),
          };
          const r = new Reader(frame, HEADER_SIZE);
          r.varint();
          r.varint();
          visitRecords(r, v, detail);
          expect(r.pos).toBe(frame.length);
          return calls;
        };
        const all = seen(RecordDetail.All);
        const numbers = seen(RecordDetail.Numbers);
        const strip = (c: Call) => c.map((x) => (x === 'points' || x === 'name' ? 'none' : x));
        expect(numbers.map(strip)).toEqual(all.map(strip));
        expect(numbers.every((c) => !c.includes('points') && !c.includes('name'))).toBe(true);
        // The full decode is one visitor of the same reading.
        const r = new Reader(frame, HEADER_SIZE);
        r.varint();
        r.varint();
        expect(readRecords(r)).toEqual(WorldUpdate.decode(frame.subarray(HEADER_SIZE)).records);
      }),
      { numRuns: 100 },
    );
  });

  // After a head of tick 1, time 50: each body breaks one rule of the layout.
  const malformed: [string, number[], string][] = [
    ['a spawn with a flag other than ALIVE', [1, 0x22, 0, 0, 0, 1, 65, 1, 1, 1, 0, 0, 0], 'ERR_BAD_ENUM'],
    ['a despawn reason beyond corpse', [1, 0x03, 3], 'ERR_BAD_ENUM'],
    ['a health record with flags', [1, 0x14, 1, 1], 'ERR_BAD_ENUM'],
    [
      'a path of 17 waypoints',
      [1, 0x01, 0, 0, 0, 0, 17, ...new Array<number>(68).fill(1)],
      'ERR_LIST_TOO_LONG',
    ],
    ['an id delta not in its shortest form', [0x81, 0x00, 0x04, 1, 1], 'ERR_BAD_VARINT'],
    ['an id beyond u32', [0xff, 0xff, 0xff, 0xff, 0x0f, 0x0c, 1, 1, 1, 0x04, 1, 1], 'ERR_BAD_VARINT'],
  ];

  for (const [what, body, code] of malformed) {
    it(`both refuse ${what}`, () => {
      const payload = Uint8Array.from([1, 50, ...body]);
      let thrown: unknown;
      try {
        WorldUpdate.decode(payload);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(DecodeError);
      expect((thrown as DecodeError).code).toBe(code);
      const ok = walkRecords(payload, 0, payload.length, new MotionRefs(), logger(), zeroCounters(), false);
      expect(ok).toBe(false);
    });
  }
});
