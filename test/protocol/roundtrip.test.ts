import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  crc16,
  DecodeError,
  DecodeErrorCode,
  Frame,
  FrameDecoder,
  HEADER_SIZE,
  Writer,
} from '../../shared/codec/index.js';
import { packets, type Packet } from '../../shared/protocol/index.js';
import { arbitraryPacket } from '../helpers/arbitrary.js';
import { maximalPacket, samplePacket } from '../helpers/sample.js';
import { recordsFieldOf, wholeBlockPrefixes } from './blocks.js';

const RUNS = 50;
const TRUNCATION_RUNS = 15;

function label(def: Packet): string {
  return `${def.name} (0x${def.opcode.toString(16).padStart(4, '0')})`;
}

function payloadOf(frame: Uint8Array): Uint8Array {
  return frame.subarray(HEADER_SIZE);
}

function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The error decoding throws, or undefined when it returns. */
function decodeError(
  def: Packet,
  payload: Uint8Array,
  run: () => unknown = () => def.decode(payload),
): unknown {
  try {
    run();
    return undefined;
  } catch (e) {
    return e;
  }
}

describe('every packet round-trips generated payloads', () => {
  for (const def of packets) {
    it(label(def), () => {
      fc.assert(
        fc.property(arbitraryPacket(def), (value) => {
          const frame = def.encode(value);
          const size = frame[0]! | (frame[1]! << 8);
          expect(size).toBe(frame.length);
          expect(frame[2]! | (frame[3]! << 8)).toBe(def.opcode);
          expect(frame[4]! | (frame[5]! << 8)).toBe(crc16(frame, HEADER_SIZE));
          expect(frame.length - HEADER_SIZE).toBeLessThanOrEqual(def.maxSize);
          expect(def.decode(payloadOf(frame))).toEqual(value);
          const decoder = new FrameDecoder();
          decoder.push(frame);
          expect(def.decodeFrame(decoder.next()!)).toEqual(value);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

// For WorldUpdate the largest value is a frame filled to the limit with entity records
// (test/helpers/sample.ts maximalRecords): the server starts another frame when one is full.
describe('every packet at its largest encodes to exactly maxSize bytes', () => {
  for (const def of packets) {
    it(label(def), () => {
      const value = maximalPacket(def);
      const frame = def.encode(value);
      expect(frame.length - HEADER_SIZE).toBe(def.maxSize);
      expect(def.decode(payloadOf(frame))).toEqual(value);
    });
  }
});

// Entity records run to the end of the payload in self-contained blocks, so a WorldUpdate
// cut between two blocks is a whole, shorter WorldUpdate (a frame's size and CRC are what
// guard against a cut on the wire); cut anywhere else, it is short.
describe('every packet refuses a truncated payload with ERR_SHORT at every length (but between entity records)', () => {
  for (const def of packets) {
    it(label(def), () => {
      fc.assert(
        fc.property(arbitraryPacket(def), (value) => {
          const payload = payloadOf(def.encode(value));
          const wrong: string[] = [];
          const decoded: [number, unknown][] = [];
          for (let len = 0; len < payload.length; len++) {
            const e = decodeError(def, payload.subarray(0, len), () =>
              decoded.push([len, def.decode(payload.subarray(0, len))]),
            );
            if (e !== undefined && (!(e instanceof DecodeError) || e.code !== DecodeErrorCode.Short)) {
              wrong.push(
                `length ${len}: ${e instanceof Error ? `${e.name} ${String((e as DecodeError).code)}` : String(e)}`,
              );
            }
          }
          expect(wrong).toEqual([]);
          expect(decoded, 'lengths that decoded').toEqual([...wholeBlockPrefixes(def, value)]);
        }),
        { numRuns: TRUNCATION_RUNS },
      );
    });
  }
});

describe('every packet decodes a frame in place exactly as its payload', () => {
  for (const def of packets) {
    it(label(def), () => {
      fc.assert(
        fc.property(arbitraryPacket(def), fc.nat(40), fc.nat(40), (value, before, after) => {
          // The frame sits in a larger buffer, as it does in a FrameDecoder's.
          const frame = def.encode(value);
          const bytes = new Uint8Array(before + frame.length + after).fill(0xee);
          bytes.set(frame, before);
          const start = before + HEADER_SIZE;
          const end = before + frame.length;
          expect(def.decodeFrame(new Frame(def.opcode, bytes, start, end))).toEqual(value);
          const wrong: number[] = [];
          const decoded: [number, unknown][] = [];
          for (let cut = start; cut < end; cut++) {
            const e = decodeError(def, bytes, () =>
              decoded.push([cut - start, def.decodeFrame(new Frame(def.opcode, bytes, start, cut))]),
            );
            if (e !== undefined && (!(e instanceof DecodeError) || e.code !== DecodeErrorCode.Short))
              wrong.push(cut - start);
          }
          expect(wrong, 'payload lengths that gave another error than ERR_SHORT').toEqual([]);
          expect(decoded, 'payload lengths that decoded').toEqual([...wholeBlockPrefixes(def, value)]);
        }),
        { numRuns: TRUNCATION_RUNS },
      );
    });
  }
});

describe('every packet writes the same frame into a writer of any starting capacity', () => {
  for (const def of packets) {
    it(label(def), () => {
      const value = samplePacket(def);
      const frame = def.encode(value);
      const wrong: number[] = [];
      for (let capacity = 1; capacity <= frame.length + 1; capacity++) {
        const w = new Writer(capacity);
        try {
          def.write(w, value);
          if (hexOf(w.finish()) !== hexOf(frame)) wrong.push(capacity);
        } catch {
          wrong.push(capacity);
        }
      }
      expect(wrong, 'starting capacities that gave another frame or threw').toEqual([]);
    });
  }
});

describe('every packet refuses one trailing byte with ERR_OVERLONG', () => {
  for (const def of packets.filter((p) => recordsFieldOf(p) === undefined)) {
    it(label(def), () => {
      fc.assert(
        fc.property(arbitraryPacket(def), fc.integer({ min: 0, max: 255 }), (value, extra) => {
          const payload = payloadOf(def.encode(value));
          const longer = new Uint8Array(payload.length + 1);
          longer.set(payload);
          longer[payload.length] = extra;
          const e = decodeError(def, longer);
          expect(e).toBeInstanceOf(DecodeError);
          expect((e as DecodeError).code).toBe(DecodeErrorCode.Overlong);
        }),
        { numRuns: TRUNCATION_RUNS },
      );
    });
  }
});

// A records field reads records to the end, so a byte after it is another record's id delta
// (or a varint cut short): a record that ends before its tag.
describe('a packet ending in entity records refuses one trailing byte as a broken record', () => {
  for (const def of packets.filter((p) => recordsFieldOf(p) !== undefined)) {
    it(label(def), () => {
      fc.assert(
        fc.property(arbitraryPacket(def), fc.integer({ min: 0, max: 255 }), (value, extra) => {
          const payload = payloadOf(def.encode(value));
          const longer = new Uint8Array(payload.length + 1);
          longer.set(payload);
          longer[payload.length] = extra;
          const e = decodeError(def, longer);
          expect(e).toBeInstanceOf(DecodeError);
          expect((e as DecodeError).code).toBe(DecodeErrorCode.Short);
        }),
        { numRuns: TRUNCATION_RUNS },
      );
    });
  }
});
