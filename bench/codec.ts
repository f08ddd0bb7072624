/**
 * The codec on the path the server takes, against JSON and msgpack doing the same work.
 *
 * Wire path (what the replication writer and the client do for one client's tick):
 *   encode: into the connection's reused Writer, open a WorldUpdate frame (header, tick,
 *           time), copy in the blocks of every changed cell the client sees and its spawn
 *           blocks (each pre-encoded once per tick and shared by every observer: here encoded
 *           once, outside the timed loop), write the client's own despawn block, close the
 *           frame (size, opcode, CRC-16 over the assembled payload), then encode its event
 *           frames (CombatEvent, ChatMessage, MoveAck) straight into the same Writer
 *   decode: the client's FrameDecoder (CRC checked) and each packet's decodeFrame, the
 *           WorldUpdate's records decoded to objects
 * JSON / msgpack path: per client, JSON.stringify of the same records and events (object form)
 * + TextEncoder (msgpack: encode), then TextDecoder + JSON.parse (msgpack: decode).
 *
 * Two batches: "busy" (100 movement records from 20 cells, 5 spawns, health, a death,
 * despawns, 6 event frames: a crowded view's tick) and "quiet" (6 movement records from 3
 * cells, 2 event frames: a typical tick at ~50 in view with movement as state).
 * The shared per-cell encode (once per tick, not per client) is timed on its own.
 *
 * Writes bench/results/codec.json. Not a test: figures vary with the machine; ratios travel.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { decode as unpack, encode as pack } from '@msgpack/msgpack';
import { crc16, FrameDecoder, HEADER_SIZE, Writer } from '../shared/codec/index.js';
import {
  byOpcode,
  ChatMessage,
  CombatEvent,
  dequantizeCoord,
  markBase,
  MOB_ID_BASE,
  MoveAck,
  quantizeCoord,
  WorldUpdate,
  writeRecord,
  type EntityRecord,
  type Packet,
  type PayloadOf,
} from '../shared/protocol/index.js';

type Msg = { p: Packet; v: any };

interface Batch {
  name: string;
  /** Pre-encoded blocks (cells' and spawns'), in the order they are copied. */
  shared: EntityRecord[][];
  /** The client's own block (its view's despawns), encoded per client. */
  own: EntityRecord[];
  events: Msg[];
}

/** A coordinate the quantized wire form carries exactly (so decoded values compare equal). */
const q = (v: number): number => dequantizeCoord(quantizeCoord(v));
const angle = (k: number): number => (k * Math.PI * 2) / 256;

/** A walker's absolute state: how a spawn places it, or a jump. */
function playerMove(id: number, i: number): EntityRecord {
  return {
    kind: 'move',
    id,
    x: q(500 + i * 17.3),
    y: q(700 + i * 9.1),
    angle: angle((i * 37) % 256),
    moving: i % 8 !== 0,
    jump: false,
    speed: i % 10 === 3 ? 60 : undefined,
  };
}

/**
 * A walker's new state as the server sends most of them: a moveBy a step or two from its
 * reference, as it was when its client sent it (age), turning now and then.
 */
function playerMoveBy(id: number, i: number): EntityRecord {
  return {
    kind: 'moveBy',
    id,
    dx: (i % 5) - 2,
    dy: (i % 3) - 1,
    angle: i % 4 === 0 ? angle((i * 37) % 256) : undefined,
    moving: i % 8 !== 0,
    speed: undefined,
    age: 10 + ((i * 13) % 60),
  };
}

/** A mob's path from where it stands (its spawn's motion): absolute, two legs. */
function mobPath(id: number, i: number): EntityRecord {
  const x = q(900 + i * 11);
  const y = q(1200 - i * 7);
  return {
    kind: 'path',
    id,
    x,
    y,
    speed: 80,
    waypoints: [
      { x: q(x + 40), y },
      { x: q(x + 40), y: q(y + 40) },
    ],
  };
}

/** A mob's new path as the server sends most of them: on from where it is, one waypoint (or a stop). */
function mobPathHere(id: number, i: number): EntityRecord {
  return {
    kind: 'pathHere',
    id,
    speed: undefined,
    waypoints: i % 3 === 0 ? [] : [{ x: q(900 + i * 11), y: q(1200 - i * 7) }],
  };
}

function spawn(id: number, i: number): EntityRecord[] {
  const mob = id >= MOB_ID_BASE;
  return [
    {
      kind: 'spawn',
      id,
      entity: mob ? 'mob' : 'player',
      template: mob ? 3 : 0,
      name: mob ? 'Grey Wolf' : `Botxyz${i}`,
      level: 5 + i,
      health: 180,
      maxHealth: 200,
      speed: mob ? 80 : 120,
      appearance: 2,
      alive: true,
    },
    mob ? mobPath(id, i) : playerMove(id, i),
  ];
}

function events(n: number): Msg[] {
  const out: Msg[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      p: CombatEvent,
      v: {
        sourceId: 7,
        targetId: MOB_ID_BASE + i,
        spellId: 2,
        kind: 'damage',
        amount: 40 + i,
        crit: i === 2,
      } satisfies PayloadOf<typeof CombatEvent>,
    });
  }
  return out;
}

function busyBatch(): Batch {
  const shared: EntityRecord[][] = [];
  let i = 0;
  for (let cell = 0; cell < 20; cell++) {
    // A cell's reliable block (a few cells: health, a death, a corpse gone)...
    if (cell % 5 === 0) {
      const reliable: EntityRecord[] = [
        { kind: 'health', id: MOB_ID_BASE + cell * 10, health: 140 - cell, maxHealth: 200 },
      ];
      if (cell === 5) reliable.push({ kind: 'death', id: MOB_ID_BASE + cell * 10 + 1, killerId: 7 });
      if (cell === 10) reliable.push({ kind: 'despawn', id: MOB_ID_BASE + cell * 10 + 2, reason: 'corpse' });
      shared.push(reliable);
    }
    // ...and its motion block: four walkers' new states and a mob's new path (or stop).
    const motion: EntityRecord[] = [];
    for (let k = 0; k < 4; k++) motion.push(playerMoveBy(1 + cell * 40 + k * 9, i++));
    motion.push(mobPathHere(MOB_ID_BASE + cell * 10 + 5, i++));
    shared.push(motion);
  }
  for (let s = 0; s < 5; s++) shared.push(spawn(s < 3 ? 2000 + s : MOB_ID_BASE + 900 + s, s));
  return {
    name: 'busy',
    shared,
    own: [
      { kind: 'despawn', id: 1500, reason: 'outOfRange' },
      { kind: 'despawn', id: MOB_ID_BASE + 800, reason: 'outOfRange' },
    ],
    events: [
      ...events(4),
      {
        p: ChatMessage,
        v: { channel: 'say', fromId: 9, from: 'Botabc', to: '', text: 'bot 9 here' },
      },
      { p: MoveAck, v: { seq: 123_456 } },
    ],
  };
}

function quietBatch(): Batch {
  const shared: EntityRecord[][] = [];
  let i = 0;
  for (let cell = 0; cell < 3; cell++) {
    shared.push([playerMoveBy(1 + cell * 40, i++), playerMoveBy(1 + cell * 40 + 13, i++)]);
  }
  return { name: 'quiet', shared, own: [], events: [...events(1), { p: MoveAck, v: { seq: 123_456 } }] };
}

const TICK = 123_456;
const TIME = 1_763_000_000_000.5;
const WORLD_UPDATE = WorldUpdate.opcode;

/** One block as the replication writer encodes it: ids ascending, the first marked BASE (no count). */
function writeBlock(w: Writer, records: readonly EntityRecord[]): void {
  let prev = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const start = w.pos;
    writeRecord(w, r.id - prev, r);
    if (i === 0) markBase(w.buf, start);
    prev = r.id;
  }
}

interface Prepared {
  batch: Batch;
  /** The tick's shared encodings (scratch buffer and block bounds). */
  scratch: Writer;
  blocks: { start: number; end: number }[];
  out: Writer;
  /** The client's one decoder (per connection). */
  decoder: FrameDecoder;
  records: number;
  movement: number;
  frames: number;
  /** The same batch in object form for JSON and msgpack. */
  plain: { tick: number; time: number; records: EntityRecord[]; events: unknown[] };
}

/** The shared part of a tick: every cell's and spawn's block, encoded once. */
function encodeShared(batch: Batch, scratch: Writer): { start: number; end: number }[] {
  scratch.reset();
  return batch.shared.map((records) => {
    const start = scratch.pos;
    writeBlock(scratch, records);
    return { start, end: scratch.pos };
  });
}

function prepare(batch: Batch): Prepared {
  const scratch = new Writer(16 * 1024);
  const blocks = encodeShared(batch, scratch);
  const records = [...batch.shared.flat(), ...batch.own];
  const movement = records.filter(
    (r) => r.kind === 'move' || r.kind === 'moveBy' || r.kind === 'path' || r.kind === 'pathHere',
  ).length;
  return {
    batch,
    scratch,
    blocks,
    out: new Writer(16 * 1024),
    decoder: new FrameDecoder(),
    records: records.length,
    movement,
    frames: 1 + batch.events.length,
    plain: {
      tick: TICK,
      time: TIME,
      records,
      events: batch.events.map((m) => ({ type: m.p.name, ...m.v })),
    },
  };
}

/** One client's tick on the wire: the bytes the connection would send (a view, valid until the next call). */
function wireEncode(p: Prepared): Uint8Array {
  const out = p.out;
  out.reset();
  const start = out.pos;
  out.ensure(HEADER_SIZE + 10);
  out.pos += HEADER_SIZE;
  // The head counts on from the client's previous WorldUpdate: one tick, 50 ms.
  out.varint(1);
  out.varint(50);
  const src = p.scratch.buf;
  for (const b of p.blocks) {
    const n = b.end - b.start;
    out.ensure(n);
    out.buf.set(src.subarray(b.start, b.end), out.pos);
    out.pos += n;
  }
  if (p.batch.own.length > 0) writeBlock(out, p.batch.own);
  const b = out.buf;
  const size = out.pos - start;
  const crc = crc16(b, start + HEADER_SIZE, out.pos);
  b[start] = size;
  b[start + 1] = size >>> 8;
  b[start + 2] = WORLD_UPDATE & 0xff;
  b[start + 3] = WORLD_UPDATE >>> 8;
  b[start + 4] = crc;
  b[start + 5] = crc >>> 8;
  for (const m of p.batch.events) m.p.write(out, m.v);
  return out.peek();
}

function wireDecode(p: Prepared, bytes: Uint8Array): number {
  const dec = p.decoder;
  dec.push(bytes);
  let records = 0;
  let frames = 0;
  for (let f = dec.next(); f; f = dec.next()) {
    const v = byOpcode(f.opcode)!.decodeFrame(f) as { records?: unknown[] };
    if (f.opcode === WORLD_UPDATE) records += v.records!.length;
    frames++;
  }
  if (frames !== p.frames || records !== p.records) throw new Error('lost frames or records');
  return bytes.length;
}

const te = new TextEncoder();
const td = new TextDecoder();

function jsonEncode(p: Prepared): Uint8Array {
  return te.encode(JSON.stringify(p.plain));
}

function jsonDecode(p: Prepared, bytes: Uint8Array): number {
  const back = JSON.parse(td.decode(bytes)) as Prepared['plain'];
  if (back.records.length !== p.records || back.events.length !== p.frames - 1)
    throw new Error('lost messages');
  return bytes.length;
}

function msgpackDecode(p: Prepared, bytes: Uint8Array): number {
  const back = unpack(bytes) as Prepared['plain'];
  if (back.records.length !== p.records || back.events.length !== p.frames - 1)
    throw new Error('lost messages');
  return bytes.length;
}

type Codec = 'wire' | 'json' | 'msgpack';
const CODECS: readonly Codec[] = ['wire', 'json', 'msgpack'];

function paths(p: Prepared): Record<Codec, { encode: () => Uint8Array; roundTrip: () => number }> {
  // Fixed encodings for the decode-only rates.
  return {
    wire: { encode: () => wireEncode(p), roundTrip: () => wireDecode(p, wireEncode(p)) },
    json: { encode: () => jsonEncode(p), roundTrip: () => jsonDecode(p, jsonEncode(p)) },
    msgpack: { encode: () => pack(p.plain), roundTrip: () => msgpackDecode(p, pack(p.plain)) },
  };
}

/**
 * Runs the functions in interleaved rounds, so a machine whose load changes during the run
 * skews them alike; each one's median rate (calls per second).
 */
function rates(fns: Record<string, () => unknown>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(fns)) {
    out[name] = [];
    for (let i = 0; i < 2000; i++) fn(); // warm up
  }
  for (let round = 0; round < 9; round++) {
    for (const [name, fn] of Object.entries(fns)) {
      let n = 0;
      const start = performance.now();
      let now = start;
      while (now - start < 120) {
        for (let i = 0; i < 50; i++) fn();
        n += 50;
        now = performance.now();
      }
      out[name]!.push((n * 1000) / (now - start));
    }
  }
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const round2 = (v: number): number => Math.round(v * 100) / 100;

interface Measured {
  /** Encode + decode of one client's tick, per second. */
  opsPerSec: number;
  /** Encode alone (the server's side), per second. */
  encodeOpsPerSec: number;
  bytes: number;
}

function measureBatch(batch: Batch) {
  const p = prepare(batch);
  const fns = paths(p);
  const bytes = {
    wire: wireDecode(p, wireEncode(p)),
    json: jsonEncode(p).length,
    msgpack: pack(p.plain).length,
  };
  const fnsByName: Record<string, () => unknown> = {};
  for (const c of CODECS) {
    fnsByName[c] = fns[c].roundTrip;
    fnsByName[`${c}-encode`] = fns[c].encode;
  }
  const r = rates(fnsByName);
  const ratio = (a: string, b: string) => median(r[a]!.map((x, i) => x / r[b]![i]!));
  const m = (c: Codec): Measured => ({
    opsPerSec: Math.round(median(r[c]!)),
    encodeOpsPerSec: Math.round(median(r[`${c}-encode`]!)),
    bytes: bytes[c],
  });
  // The shared part, once per tick whoever sees it: every cell's and spawn's block encoded.
  const shared = rates({ shared: () => encodeShared(batch, p.scratch) }).shared!;
  return {
    batch: {
      name: batch.name,
      records: p.records,
      movementRecords: p.movement,
      cellAndSpawnBlocks: batch.shared.length,
      eventFrames: batch.events.length,
      frames: p.frames,
    },
    wire: m('wire'),
    json: m('json'),
    msgpack: m('msgpack'),
    speedupVsJson: round2(ratio('wire', 'json')),
    bytesRatioVsJson: +(bytes.wire / bytes.json).toFixed(3),
    speedupVsMsgpack: round2(ratio('wire', 'msgpack')),
    bytesRatioVsMsgpack: +(bytes.wire / bytes.msgpack).toFixed(3),
    encodeSpeedupVsJson: round2(ratio('wire-encode', 'json-encode')),
    encodeSpeedupVsMsgpack: round2(ratio('wire-encode', 'msgpack-encode')),
    /** Wire bytes of the whole batch (headers and event frames included) per record. */
    wireBytesPerRecord: round2(bytes.wire / p.records),
    sharedEncodeUsPerTick: round2(1e6 / median(shared)),
  };
}

const PATH =
  'wire: one client tick as the server builds it (WorldUpdate frame assembled by byte copies of per-cell and ' +
  'spawn blocks pre-encoded once per tick, the client-own despawn block, frame header and CRC-16 over the ' +
  'assembled payload, then event frames encoded into the same Writer) and as the client decodes it ' +
  '(FrameDecoder with CRC check, decodeFrame of each packet, records to objects); json / msgpack: per client, ' +
  'JSON.stringify + TextEncoder / msgpack encode of the same records and events, then TextDecoder + JSON.parse / ' +
  'msgpack decode. The shared per-cell encode is not in the per-client figures (sharedEncodeUsPerTick).';

const busy = measureBatch(busyBatch());
const quiet = measureBatch(quietBatch());

const result = {
  date: new Date().toISOString(),
  node: process.version,
  path: PATH,
  ...busy,
  quiet,
};

const row = (name: string, m: Measured) =>
  `${name.padEnd(8)} ${String(m.opsPerSec).padStart(10)} round trips/s ${String(m.encodeOpsPerSec).padStart(10)} encodes/s ${String(m.bytes).padStart(6)} bytes`;
for (const r of [busy, quiet]) {
  const b = r.batch;
  console.log(
    `\n${b.name}: one client's tick = ${b.records} records (${b.movementRecords} movement) from ${b.cellAndSpawnBlocks} shared blocks + ${b.eventFrames} event frames`,
  );
  console.log(row('wire', r.wire));
  console.log(row('json', r.json));
  console.log(row('msgpack', r.msgpack));
  console.log(
    `wire vs JSON: ${r.speedupVsJson}x faster (encode alone ${r.encodeSpeedupVsJson}x), ${r.bytesRatioVsJson} of the bytes (target >= 10x, <= 0.25)`,
  );
  console.log(
    `wire vs msgpack: ${r.speedupVsMsgpack}x faster (encode alone ${r.encodeSpeedupVsMsgpack}x), ${r.bytesRatioVsMsgpack} of the bytes`,
  );
  console.log(
    `shared per-tick encode of the blocks: ${r.sharedEncodeUsPerTick} µs (once, whoever sees them)`,
  );
}
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/codec.json', import.meta.url), JSON.stringify(result, null, 2) + '\n');
