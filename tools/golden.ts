/**
 * Writes the golden vectors: test/protocol/golden/<PacketName>.hex for every packet, the
 * whole frame of `def.encode(sampleFor(def.payload))`. Run `npm run golden` after a wire
 * change and review the hex diff; test/protocol/golden.test.ts fails until they match.
 *
 * File layout (text, UTF-8, LF):
 *   # <Name> opcode 0x<hex> <dir>: <n>-byte frame = 6-byte header + <n-6>-byte payload
 *   # value: <the payload as one line of JSON; bytes fields as lowercase hex strings>
 *   <the frame as lowercase hex, 16 bytes per line, bytes separated by one space>
 * Lines starting with `#` are comments; every other line is hex.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HEADER_SIZE } from '../shared/codec/index.js';
import { packets, type Packet } from '../shared/protocol/index.js';
import { samplePacket } from '../test/helpers/sample.js';

export const GOLDEN_DIR = fileURLToPath(new URL('../test/protocol/golden/', import.meta.url));
const BYTES_PER_LINE = 16;

export function goldenPath(def: Packet): string {
  return join(GOLDEN_DIR, `${def.name}.hex`);
}

export function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export function opcodeHex(opcode: number): string {
  return `0x${opcode.toString(16).padStart(4, '0')}`;
}

/** One line of JSON for a decoded payload; Uint8Array fields become lowercase hex strings. */
export function valueJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Uint8Array ? hex(v) : v));
}

export function goldenFrame(def: Packet): Uint8Array {
  return def.encode(samplePacket(def));
}

export function formatGolden(def: Packet, frame: Uint8Array = goldenFrame(def)): string {
  const lines = [
    `# ${def.name} opcode ${opcodeHex(def.opcode)} ${def.dir}: ${frame.length}-byte frame = ` +
      `${HEADER_SIZE}-byte header + ${frame.length - HEADER_SIZE}-byte payload`,
    `# value: ${valueJson(samplePacket(def))}`,
  ];
  for (let at = 0; at < frame.length; at += BYTES_PER_LINE) {
    const row = frame.subarray(at, at + BYTES_PER_LINE);
    lines.push(Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' '));
  }
  return lines.join('\n') + '\n';
}

/** The frame bytes of a golden file; throws on anything that is not a comment or hex bytes. */
export function parseGolden(text: string): Uint8Array {
  const out: number[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    for (const pair of trimmed.split(/\s+/)) {
      if (!/^[0-9a-f]{2}$/.test(pair))
        throw new Error(`line ${i + 1}: "${pair}" is not a lowercase hex byte`);
      out.push(parseInt(pair, 16));
    }
  }
  return Uint8Array.from(out);
}

function main(): void {
  mkdirSync(GOLDEN_DIR, { recursive: true });
  const wanted = new Set(packets.map((p) => `${p.name}.hex`));
  // A renamed or removed packet must not leave its old vector behind.
  for (const file of readdirSync(GOLDEN_DIR)) {
    if (file.endsWith('.hex') && !wanted.has(file)) rmSync(join(GOLDEN_DIR, file));
  }
  for (const def of packets) writeFileSync(goldenPath(def), formatGolden(def));
  console.log(`wrote ${packets.length} golden vectors to ${GOLDEN_DIR}`);
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) main();
