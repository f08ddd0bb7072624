import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, HEADER_SIZE } from '../../shared/codec/index.js';
import { byName, byOpcode, clientPackets, packets, serverPackets } from '../../shared/protocol/index.js';
import type { Packet } from '../../shared/protocol/index.js';
import { GOLDEN_DIR, goldenPath, hex, parseGolden, valueJson } from '../../tools/golden.js';
import { samplePacket } from '../helpers/sample.js';

const FIX = 'run `npm run golden` after a deliberate wire change and review the diff';

function readGolden(def: Packet): { text: string; frame: Uint8Array } {
  const text = readFileSync(goldenPath(def), 'utf8');
  return { text, frame: parseGolden(text) };
}

describe('golden vectors', () => {
  for (const def of packets) {
    describe(def.name, () => {
      it('has a vector file', () => {
        expect(existsSync(goldenPath(def)), `${goldenPath(def)} is missing: ${FIX}`).toBe(true);
      });

      it('encodes its sample into exactly the vector', () => {
        const { frame } = readGolden(def);
        expect(hex(def.encode(samplePacket(def))), FIX).toBe(hex(frame));
      });

      it('decodes the vector into its sample', () => {
        const { frame } = readGolden(def);
        const decoder = new FrameDecoder();
        decoder.push(frame);
        const got = decoder.next();
        expect(got?.opcode).toBe(def.opcode);
        expect(decoder.next()).toBeUndefined();
        expect(def.decode(got!.payload)).toEqual(samplePacket(def));
      });

      it('names the packet and its value in its comment lines', () => {
        const { text, frame } = readGolden(def);
        const [title, value] = text.split('\n');
        expect(title).toMatch(
          new RegExp(`^# ${def.name} opcode 0x${def.opcode.toString(16).padStart(4, '0')} `),
        );
        expect(title).toContain(`${frame.length}-byte frame`);
        expect(value).toBe(`# value: ${valueJson(def.decode(frame.subarray(HEADER_SIZE)))}`);
      });
    });
  }

  it('has no vector for a packet that does not exist', () => {
    const names = new Set(packets.map((p) => `${p.name}.hex`));
    const stale = readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.hex') && !names.has(f));
    expect(stale, FIX).toEqual([]);
  });

  it('parses hex with comments and blank lines, and rejects anything else', () => {
    expect(Array.from(parseGolden('# c\n0a ff\n\n 10 \n'))).toEqual([0x0a, 0xff, 0x10]);
    expect(() => parseGolden('0A')).toThrow(/not a lowercase hex byte/);
    expect(() => parseGolden('0af')).toThrow(/not a lowercase hex byte/);
  });
});

describe('registry', () => {
  it('has unique opcodes and names', () => {
    expect(new Set(packets.map((p) => p.opcode)).size).toBe(packets.length);
    expect(new Set(packets.map((p) => p.name)).size).toBe(packets.length);
  });

  it('is sorted by opcode and splits into client and server packets', () => {
    const opcodes = packets.map((p) => p.opcode);
    expect(opcodes).toEqual([...opcodes].sort((a, b) => a - b));
    expect(clientPackets.length + serverPackets.length).toBe(packets.length);
  });

  it('gives every client packet a target and at least one state', () => {
    for (const p of clientPackets) {
      expect(['session', 'zone', 'world'], p.name).toContain(p.target);
      expect(p.states.length, p.name).toBeGreaterThan(0);
    }
  });

  it('gives every server packet a delivery', () => {
    for (const p of serverPackets) expect(['reliable', 'droppable'], p.name).toContain(p.delivery);
  });

  it('gives every packet a doc line', () => {
    for (const p of packets) expect(p.doc.trim().length, p.name).toBeGreaterThan(0);
  });

  it('finds every definition by opcode and by name', () => {
    for (const p of packets) {
      expect(byOpcode(p.opcode)).toBe(p);
      expect(byName(p.name)).toBe(p);
    }
  });

  it('finds nothing for an unused opcode', () => {
    expect(byOpcode(0)).toBeUndefined();
    expect(byOpcode(0xffff)).toBeUndefined();
    expect(byName('NoSuchPacket')).toBeUndefined();
  });
});
