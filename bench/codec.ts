/**
 * A server tick's batch for one client (100 EntityMove, a few spawns and combat events),
 * encoded to frames and decoded back, against the same data as JSON and as msgpack.
 * Writes bench/results/codec.json. Not a test: figures vary with the machine; ratios travel.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { decode as unpack, encode as pack } from '@msgpack/msgpack';
import { FrameDecoder, Writer } from '../shared/codec/index.js';
import {
  byOpcode,
  CombatEvent,
  EntityMove,
  EntitySpawn,
  HealthUpdate,
  WorldTick,
} from '../shared/protocol/index.js';
import type { Packet, PayloadOf } from '../shared/protocol/index.js';

type Msg = { p: Packet; v: any };

function batch(): Msg[] {
  const out: Msg[] = [
    {
      p: WorldTick,
      v: { tick: 123456, serverTime: 1_763_000_000_000.5 } satisfies PayloadOf<typeof WorldTick>,
    },
  ];
  for (let i = 0; i < 5; i++) {
    out.push({
      p: EntitySpawn,
      v: {
        id: (1 << 20) + i * 37,
        kind: 'mob',
        template: 3,
        name: `Grey Wolf`,
        level: 5 + i,
        health: 180,
        maxHealth: 200,
        x: 1024.5 + i,
        y: 987.25 - i,
        facing: 1.5,
        speed: 80,
        appearance: 2,
        alive: true,
      } satisfies PayloadOf<typeof EntitySpawn>,
    });
  }
  for (let i = 0; i < 100; i++) {
    // Positions on the 1/16 grid the quantized coord carries exactly.
    out.push({
      p: EntityMove,
      v: { id: 1 + i * 3, x: 500 + i * 1.0625, y: 700 + i * 0.5, facing: (i % 256) * ((Math.PI * 2) / 256) },
    });
  }
  for (let i = 0; i < 4; i++) {
    out.push({
      p: CombatEvent,
      v: { sourceId: 7, targetId: (1 << 20) + i, spellId: 2, kind: 'damage', amount: 40 + i, crit: i === 2 },
    });
    out.push({ p: HealthUpdate, v: { id: (1 << 20) + i, health: 140 - i, maxHealth: 200 } });
  }
  return out;
}

const msgs = batch();
const writer = new Writer(8192);

function wireRoundTrip(): number {
  writer.reset();
  for (const m of msgs) m.p.write(writer, m.v);
  const bytes = writer.peek();
  const dec = new FrameDecoder();
  dec.push(bytes);
  let n = 0;
  for (let f = dec.next(); f; f = dec.next()) {
    byOpcode(f.opcode)!.decodeFrame(f);
    n++;
  }
  if (n !== msgs.length) throw new Error('lost frames');
  return bytes.length;
}

const jsonMsgs = msgs.map((m) => ({ type: m.p.name, ...m.v }));
const te = new TextEncoder();
const td = new TextDecoder();
function jsonRoundTrip(): number {
  const bytes = te.encode(JSON.stringify(jsonMsgs));
  const back = JSON.parse(td.decode(bytes)) as unknown[];
  if (back.length !== msgs.length) throw new Error('lost messages');
  return bytes.length;
}

function msgpackRoundTrip(): number {
  const bytes = pack(jsonMsgs);
  const back = unpack(bytes) as unknown[];
  if (back.length !== msgs.length) throw new Error('lost messages');
  return bytes.length;
}

interface Measured {
  opsPerSec: number;
  bytes: number;
}

/**
 * Runs the three codecs in interleaved rounds, so a machine whose load changes during the
 * run skews all three alike; reports each one's median rate and the median of the
 * per-round ratios.
 */
function measureAll(fns: Record<'wire' | 'json' | 'msgpack', () => number>) {
  const rates: Record<string, number[]> = { wire: [], json: [], msgpack: [] };
  const bytes: Record<string, number> = {};
  for (const [name, fn] of Object.entries(fns)) for (let i = 0; i < 2000; i++) bytes[name] = fn(); // warm up
  for (let round = 0; round < 9; round++) {
    for (const [name, fn] of Object.entries(fns)) {
      let n = 0;
      const start = performance.now();
      let now = start;
      while (now - start < 150) {
        for (let i = 0; i < 50; i++) fn();
        n += 50;
        now = performance.now();
      }
      rates[name]!.push((n * 1000) / (now - start));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const ratio = (a: string, b: string) => median(rates[a]!.map((r, i) => r / rates[b]![i]!));
  const m = (name: string): Measured => ({
    opsPerSec: Math.round(median(rates[name]!)),
    bytes: bytes[name]!,
  });
  return {
    wire: m('wire'),
    json: m('json'),
    msgpack: m('msgpack'),
    speedupVsJson: ratio('wire', 'json'),
    speedupVsMsgpack: ratio('wire', 'msgpack'),
  };
}

const { wire, json, msgpack, speedupVsJson, speedupVsMsgpack } = measureAll({
  wire: wireRoundTrip,
  json: jsonRoundTrip,
  msgpack: msgpackRoundTrip,
});

const result = {
  date: new Date().toISOString(),
  node: process.version,
  batch: { packets: msgs.length, entityMoves: 100 },
  wire,
  json,
  msgpack,
  speedupVsJson: +speedupVsJson.toFixed(2),
  bytesRatioVsJson: +(wire.bytes / json.bytes).toFixed(3),
  speedupVsMsgpack: +speedupVsMsgpack.toFixed(2),
  bytesRatioVsMsgpack: +(wire.bytes / msgpack.bytes).toFixed(3),
};

const row = (name: string, m: Measured) =>
  `${name.padEnd(8)} ${String(m.opsPerSec).padStart(10)} batches/s  ${String(m.bytes).padStart(6)} bytes`;
console.log(`one tick's batch for one client: ${msgs.length} packets (encode + decode)`);
console.log(row('wire', wire));
console.log(row('json', json));
console.log(row('msgpack', msgpack));
console.log(
  `wire vs JSON: ${result.speedupVsJson}x faster, ${result.bytesRatioVsJson} of the bytes (target >= 10x, <= 0.25)`,
);
console.log(
  `wire vs msgpack: ${result.speedupVsMsgpack}x faster, ${result.bytesRatioVsMsgpack} of the bytes`,
);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/codec.json', import.meta.url), JSON.stringify(result, null, 2) + '\n');
