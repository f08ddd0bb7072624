/**
 * The bots' receive fast path without a server: the in-place WorldUpdate record walker
 * against frames the protocol's own encoder builds, the bot's intake (hot frames read in
 * place, the rest handed on whole, frames split across chunks), the latency match, the
 * bot's own death and respawn, and the movement send policy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, HEADER_SIZE, Writer } from '../../shared/codec/index.js';
import { WyvernClient } from '../../shared/client/client.js';
import { CLIENT_HEARTBEAT_MS, CLIENT_TURN_EPSILON } from '../../shared/game/motion.js';
import { blocked, maxMoveDistance, segmentBlocked } from '../../shared/game/movement.js';
import {
  ChatMessage,
  dequantizeCoord,
  JUMP,
  MOB_ID_BASE,
  MotionRefs,
  MoveAck,
  MoveInput,
  MOVING,
  quantizeAngle,
  quantizeCoord,
  quantizePoints,
  quantizeSpeed,
  AGE,
  RecordKind,
  SPEED,
  WorldUpdate,
  writeRecord,
  type EntityRecord,
  type PayloadOf,
} from '../../shared/protocol/index.js';
import type { ByteTransport } from '../../shared/client/transport.js';
import { Bot } from '../../tools/bots/bot.js';
import { MoveSender } from '../../shared/client/move-sender.js';
import { walkRecords, WORLD_UPDATE_BODY, type RecordVisitor } from '../../tools/bots/records.js';
import { DEFAULT_SWARM_OPTIONS, SwarmState, zeroCounters } from '../../tools/bots/state.js';

type Call = (string | number | boolean)[];

/** A visitor that logs every call. */
function logger(): RecordVisitor & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    move: (id, qx, qy, tag, spawned) => calls.push(['move', id, qx, qy, tag, spawned]),
    path: (id, qx, qy) => calls.push(['path', id, qx, qy]),
    spawn: (id, mob, alive) => calls.push(['spawn', id, mob, alive]),
    despawn: (id) => calls.push(['despawn', id]),
    death: (id) => calls.push(['death', id]),
    respawn: (id, qx, qy) => calls.push(['respawn', id, qx, qy]),
  };
}

/** What the walker should report for `records` (in wire order). */
function expected(records: readonly EntityRecord[]): { calls: Call[]; movement: number } {
  const calls: Call[] = [];
  let movement = 0;
  // The references a moveBy counts from, kept as a client keeps them.
  const refs = new MotionRefs();
  refs.advance(1, 50);
  records.forEach((r, i) => {
    const prev = records[i - 1];
    switch (r.kind) {
      case 'moveBy': {
        movement++;
        const qa = r.angle === undefined ? -1 : quantizeAngle(r.angle);
        const qs = r.speed === undefined ? -1 : quantizeSpeed(r.speed);
        if (refs.moveBy(r.id, r.dx, r.dy, qa, r.moving, qs)) {
          calls.push(['move', r.id, refs.qx, refs.qy, r.moving ? MOVING : 0, false]);
        }
        break;
      }
      case 'move': {
        movement++;
        refs.setRef(
          r.id,
          quantizeCoord(r.x),
          quantizeCoord(r.y),
          quantizeAngle(r.angle),
          r.moving,
          r.speed === undefined ? -1 : quantizeSpeed(r.speed),
          r.age ?? 0,
        );
        const tag =
          RecordKind.Move |
          (r.moving ? MOVING : 0) |
          (r.jump ? JUMP : 0) |
          (r.speed !== undefined ? SPEED : 0) |
          (r.age ? AGE : 0);
        // The motion half of a spawn: the same id right after its spawn, in the same block.
        const spawned = prev?.kind === 'spawn' && prev.id === r.id;
        calls.push(['move', r.id, quantizeCoord(r.x), quantizeCoord(r.y), tag, spawned]);
        break;
      }
      case 'path': {
        movement++;
        const pts = quantizePoints(r.waypoints);
        const qs = r.speed === undefined ? -1 : quantizeSpeed(r.speed);
        refs.setPath(r.id, quantizeCoord(r.x), quantizeCoord(r.y), qs, pts, r.age ?? 0);
        calls.push(['path', r.id, quantizeCoord(r.x), quantizeCoord(r.y)]);
        break;
      }
      case 'pathHere': {
        movement++;
        const pts = quantizePoints(r.waypoints);
        const qs = r.speed === undefined ? -1 : quantizeSpeed(r.speed);
        if (refs.pathHere(r.id, qs, pts, r.age ?? 0)) calls.push(['path', r.id, refs.qx, refs.qy]);
        break;
      }
      case 'spawn':
        refs.spawn(r.id, quantizeSpeed(r.speed));
        calls.push(['spawn', r.id, r.entity === 'mob', r.alive]);
        break;
      case 'despawn':
        refs.forget(r.id);
        calls.push(['despawn', r.id]);
        break;
      case 'death':
        calls.push(['death', r.id]);
        break;
      case 'respawn':
        calls.push(['respawn', r.id, quantizeCoord(r.x), quantizeCoord(r.y)]);
        break;
      case 'health':
        break;
    }
  });
  return { calls, movement };
}

/** Bytes of the movement records, or of the others, as written on the wire (id delta included). */
function recordBytes(records: readonly EntityRecord[], movement: boolean): number {
  let sum = 0;
  let prev = 0;
  records.forEach((r, i) => {
    // Blocks as writeRecords makes them: a new one wherever the id goes down.
    if (i > 0 && r.id < records[i - 1]!.id) prev = 0;
    const w = new Writer(64);
    writeRecord(w, r.id - prev, r);
    prev = r.id;
    const moving = r.kind === 'move' || r.kind === 'path' || r.kind === 'pathHere' || r.kind === 'moveBy';
    if (moving === movement) sum += w.pos;
  });
  return sum;
}

const wolf = MOB_ID_BASE + 2;

/** One of each kind, a two-byte id delta, a spawn followed by its motion, two blocks. */
const SAMPLE: EntityRecord[] = [
  { kind: 'health', id: 9, health: 180, maxHealth: 300 },
  { kind: 'respawn', id: 12, x: 128, y: 192.5, health: 150, maxHealth: 300 },
  {
    kind: 'spawn',
    id: 300,
    entity: 'player',
    template: 0,
    name: 'Über Drache',
    level: 12,
    health: 300,
    maxHealth: 300,
    speed: 120,
    appearance: 3,
    alive: true,
  },
  { kind: 'move', id: 300, x: 1000, y: 2000, angle: 1, moving: true, jump: false, speed: undefined, age: 80 },
  { kind: 'move', id: 301, x: 1000.5, y: 2001, angle: 2, moving: true, jump: false, speed: 88 },
  { kind: 'moveBy', id: 302, dx: 2, dy: -1, angle: 1, moving: true, speed: undefined },
  { kind: 'death', id: wolf - 1, killerId: 9 },
  {
    kind: 'path',
    id: wolf,
    x: 1500,
    y: 2400,
    speed: 52,
    waypoints: [
      { x: 1580, y: 2400 },
      { x: 1580, y: 2480 },
    ],
  },
  { kind: 'despawn', id: wolf + 4, reason: 'corpse' },
  // A new block: the id goes down.
  { kind: 'move', id: 5, x: 10, y: 20, angle: 0, moving: false, jump: true, speed: undefined },
];

function frame(records: readonly EntityRecord[]): Uint8Array {
  return WorldUpdate.encode({ tick: 1, time: 50, records: [...records] });
}

function walk(bytes: Uint8Array, start = WORLD_UPDATE_BODY, end = bytes.length) {
  const v = logger();
  const tally = zeroCounters();
  const refs = new MotionRefs();
  const ok = walkRecords(bytes, start, end, refs, v, tally);
  return { ok, calls: v.calls, tally };
}

describe('in-place WorldUpdate record walker', () => {
  it('reads every kind of record the encoder writes, in order', () => {
    const bytes = frame(SAMPLE);
    const { ok, calls, tally } = walk(bytes);
    const want = expected(SAMPLE);
    expect(ok).toBe(true);
    expect(calls).toEqual(want.calls);
    expect(tally.records).toBe(SAMPLE.length);
    expect(tally.movementRecords).toBe(want.movement);
    expect(tally.otherRecordBytes).toBe(recordBytes(SAMPLE, false));
    expect(tally.movementRecordBytes).toBe(recordBytes(SAMPLE, true));
    // A 2-byte head (tick 1, time 50), then records only: a block costs nothing of its own.
    expect(WORLD_UPDATE_BODY + 2 + tally.movementRecordBytes + tally.otherRecordBytes).toBe(bytes.length);
  });

  it('reads a frame in the middle of a larger buffer without touching its neighbours', () => {
    const one = frame(SAMPLE);
    const buf = new Uint8Array(one.length + 20).fill(0xff);
    buf.set(one, 10);
    const { ok, calls } = walk(buf, 10 + WORLD_UPDATE_BODY, 10 + one.length);
    expect(ok).toBe(true);
    expect(calls).toEqual(expected(SAMPLE).calls);
  });

  it('starts at the head (tick and time) after the frame header', () => {
    expect(WORLD_UPDATE_BODY).toBe(HEADER_SIZE);
  });

  it('takes an empty WorldUpdate (nothing but tick and time)', () => {
    const { ok, calls, tally } = walk(frame([]));
    expect(ok).toBe(true);
    expect(calls).toEqual([]);
    expect(tally.records).toBe(0);
  });

  it('refuses a body cut inside a record and a varint over 5 bytes', () => {
    const bytes = frame(SAMPLE);
    // Every cut that is not between two records leaves a record hanging.
    const recordEnds = new Set<number>();
    for (let n = 0; n < SAMPLE.length; n++) recordEnds.add(frame(SAMPLE.slice(0, n)).length);
    for (let end = WORLD_UPDATE_BODY + 1; end < bytes.length; end++) {
      if (recordEnds.has(end)) continue;
      expect(walk(bytes, WORLD_UPDATE_BODY, end).ok, `cut at ${end}`).toBe(false);
    }
    // After a head of tick 1, time 50.
    const longVarint = Uint8Array.from([1, 50, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 3, 0]);
    expect(walk(longVarint, 0).ok).toBe(false);
  });

  it('agrees with the encoder on random records', () => {
    const coord = fc.integer({ min: 0, max: 65535 }).map(dequantizeCoord);
    const id = fc.integer({ min: 1, max: 0xffffffff });
    const record: fc.Arbitrary<EntityRecord> = fc.oneof(
      fc.record({
        kind: fc.constant('move' as const),
        id,
        x: coord,
        y: coord,
        angle: fc.integer({ min: 0, max: 255 }).map((k) => (k * Math.PI * 2) / 256),
        moving: fc.boolean(),
        jump: fc.boolean(),
        speed: fc.option(
          fc.integer({ min: 0, max: 0xffff }).map((k) => k / 16),
          { nil: undefined },
        ),
      }),
      fc.record({
        kind: fc.constant('path' as const),
        id,
        x: coord,
        y: coord,
        speed: fc.integer({ min: 0, max: 0xffff }).map((k) => k / 16),
        waypoints: fc.array(fc.record({ x: coord, y: coord }), { maxLength: 16 }),
      }),
      fc.record({
        kind: fc.constant('spawn' as const),
        id,
        entity: fc.constantFrom('player' as const, 'mob' as const),
        template: fc.integer({ min: 0, max: 0xffff }),
        name: fc.string({ minLength: 0, maxLength: 5 }),
        level: fc.integer({ min: 0, max: 255 }),
        health: fc.integer({ min: 0, max: 0xffffffff }),
        maxHealth: fc.integer({ min: 0, max: 0xffffffff }),
        speed: fc.integer({ min: 0, max: 0xffff }).map((k) => k / 16),
        appearance: fc.integer({ min: 0, max: 255 }),
        alive: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('despawn' as const),
        id,
        reason: fc.constantFrom('outOfRange' as const, 'left' as const, 'corpse' as const),
      }),
      fc.record({
        kind: fc.constant('health' as const),
        id,
        health: fc.integer({ min: 0, max: 0xffffffff }),
        maxHealth: fc.integer({ min: 0, max: 0xffffffff }),
      }),
      fc.record({ kind: fc.constant('death' as const), id, killerId: id }),
      fc.record({
        kind: fc.constant('respawn' as const),
        id,
        x: coord,
        y: coord,
        health: fc.integer({ min: 0, max: 0xffffffff }),
        maxHealth: fc.integer({ min: 0, max: 0xffffffff }),
      }),
    );
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), (records) => {
        // Ascending ids make one block: the ids the walker reports are the encoder's.
        const sorted = [...records].sort((a, b) => a.id - b.id);
        const { ok, calls, tally } = walk(frame(sorted));
        const want = expected(sorted);
        expect(ok).toBe(true);
        expect(calls).toEqual(want.calls);
        expect(tally.records).toBe(sorted.length);
        expect(tally.movementRecords).toBe(want.movement);
        expect(tally.otherRecordBytes).toBe(recordBytes(sorted, false));
        expect(tally.movementRecordBytes).toBe(recordBytes(sorted, true));
      }),
      { numRuns: 200 },
    );
  });
});

// ------------------------------------------------------------------ the bot's intake

function swarmState(): SwarmState {
  return new SwarmState({ ...DEFAULT_SWARM_OPTIONS, progress: false });
}

/** A bot hooked in front of a fake transport; `delivered` is what reaches the client. */
function hookedBot(s: SwarmState, n: number, entityId: number) {
  const delivered: Uint8Array[] = [];
  const transport: ByteTransport = {
    send: () => {},
    close: () => {},
    onBytes: (b) => delivered.push(b.slice()),
    onClose: () => {},
  };
  const bot = new Bot(n, 'tcp', s);
  bot.entityId = entityId;
  bot.hook(transport);
  s.botsByEntity[entityId] = bot;
  return { bot, delivered, feed: (chunk: Uint8Array) => transport.onBytes(chunk) };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('bot intake', () => {
  it('reads WorldUpdate and MoveAck in place and hands every other frame on whole, in order', () => {
    const s = swarmState();
    const { bot, delivered, feed } = hookedBot(s, 1, 1);
    const chat1 = ChatMessage.encode({ channel: 'say', fromId: 2, from: 'Ann', to: '', text: 'hi' });
    const chat2 = ChatMessage.encode({ channel: 'say', fromId: 3, from: 'Bo', to: '', text: 'yo' });
    const update = frame(SAMPLE);
    const ack = MoveAck.encode({ seq: 4 });
    const stream = concat(chat1, update, ack, chat2);
    // Split inside the WorldUpdate's header and inside the second chat frame.
    const cuts = [chat1.length + 3, chat1.length + update.length + ack.length + 5];
    feed(stream.subarray(0, cuts[0]));
    feed(stream.subarray(cuts[0], cuts[1]));
    feed(stream.subarray(cuts[1]));
    expect(concat(...delivered)).toEqual(concat(chat1, chat2));
    const c = s.counters;
    expect(c.worldUpdates).toBe(1);
    expect(c.worldUpdateBytes).toBe(update.length);
    expect(c.moveAcks).toBe(1);
    expect(c.records).toBe(SAMPLE.length);
    expect(c.badUpdates).toBe(0);
    expect(c.framesIn).toBe(4);
    expect(c.bytesIn).toBe(stream.length);
    // Player 300 spawned into view; the despawn and death of mobs never seen change nothing.
    expect(bot.playersInView).toBe(1);
    expect(bot.mobsInView).toBe(0);
  });

  it('counts a WorldUpdate whose records do not parse, and goes on', () => {
    const s = swarmState();
    const { feed } = hookedBot(s, 1, 1);
    const good = frame(SAMPLE);
    const bad = good.slice(0, good.length - 1);
    // Patch the size so the frame is whole, its last record cut short.
    bad[0] = bad.length & 0xff;
    bad[1] = bad.length >> 8;
    feed(concat(bad, good));
    expect(s.counters.worldUpdates).toBe(2);
    expect(s.counters.badUpdates).toBe(1);
  });

  it("matches another bot's move record to its send and records the latency", () => {
    const s = swarmState();
    const mover = hookedBot(s, 1, 10);
    // Bot 4 measures (one in measureEvery = 4); bot 3 only counts.
    expect(s.options.measureEvery).toBe(4);
    const observer = hookedBot(s, 4, 11);
    const counter = hookedBot(s, 3, 12);
    const x = 1234.56;
    const y = 987.65;
    mover.bot.noteSent(1000, 1000, true, performance.now() - 5_000);
    mover.bot.noteSent(x, y, true, performance.now() - 40);
    const rec = (id: number, moving: boolean, extra: Partial<EntityRecord> = {}): EntityRecord =>
      ({
        kind: 'move',
        id,
        x: Math.fround(x),
        y: Math.fround(y),
        angle: 0,
        moving,
        jump: false,
        speed: undefined,
        ...extra,
      }) as EntityRecord;
    counter.feed(frame([rec(10, true)]));
    expect(s.counters.matched + s.counters.unmatched).toBe(0);
    observer.feed(frame([rec(10, true)]));
    expect(s.counters.matched).toBe(1);
    expect(s.phase.latency.count).toBe(1);
    expect(s.phase.latency.max).toBeGreaterThanOrEqual(39);
    expect(s.phase.latency.max).toBeLessThan(1_000);
    // Standing at the same place was never sent; a jump is never matched; its own is skipped.
    observer.feed(frame([rec(10, false)]));
    expect(s.counters.unmatched).toBe(1);
    observer.feed(frame([rec(10, true, { jump: true })]));
    mover.feed(frame([rec(10, true)]));
    expect(s.counters.matched).toBe(1);
    expect(s.counters.unmatched).toBe(1);
  });

  it('dies and comes back from records about itself', () => {
    const s = swarmState();
    const { bot, feed } = hookedBot(s, 1, 42);
    feed(frame([{ kind: 'death', id: 42, killerId: MOB_ID_BASE + 1 }]));
    expect(bot.dead).toBe(true);
    expect(s.counters.deaths).toBe(1);
    feed(frame([{ kind: 'respawn', id: 42, x: 250, y: 1280, health: 200, maxHealth: 200 }]));
    expect(bot.dead).toBe(false);
    expect(bot.x).toBeCloseTo(250, 1);
    expect(bot.y).toBeCloseTo(1280, 1);
    expect(bot.moving).toBe(false);
    // Someone else's death is not the bot's.
    feed(frame([{ kind: 'death', id: 43, killerId: 0 }]));
    expect(bot.dead).toBe(false);
  });

  it('keeps its view from spawns and despawns, mobs with where they are', () => {
    const s = swarmState();
    const { bot, feed } = hookedBot(s, 1, 1);
    const mob: EntityRecord = {
      kind: 'spawn',
      id: wolf,
      entity: 'mob',
      template: 3,
      name: 'Wolf',
      level: 2,
      health: 80,
      maxHealth: 80,
      speed: 90,
      appearance: 1,
      alive: true,
    };
    feed(
      frame([
        mob,
        { kind: 'move', id: wolf, x: 100, y: 200, angle: 0, moving: false, jump: false, speed: undefined },
      ]),
    );
    expect(bot.mobsInView).toBe(1);
    // A second spawn of what is already seen does not count twice.
    feed(frame([mob]));
    expect(bot.mobsInView).toBe(1);
    feed(frame([{ kind: 'despawn', id: wolf, reason: 'outOfRange' }]));
    expect(bot.mobsInView).toBe(0);
  });
});

// ------------------------------------------------------------------ the send policy

describe('movement send policy', () => {
  it('sends on start, turn, heartbeat and stop, and nothing in between', () => {
    const p = new MoveSender();
    p.reset(0, 100, 100, 0);
    const sends: string[] = [];
    const step = (t: number, x: number, heading: number, moving: boolean) => {
      const s = p.update(t, x, 100, heading, moving, 120);
      if (s) sends.push(`${t}:${p.reason}`);
    };
    step(50, 100, 0, false); // standing still: nothing
    step(100, 100, 0, true); // start
    for (let t = 150; t <= 600; t += 50) step(t, 100 + (t - 100) * 0.12, 0, true);
    step(650, 160, CLIENT_TURN_EPSILON / 2, true); // a wobble below the epsilon: nothing
    step(700, 166, 1, true); // turn
    step(750, 170, 1, true);
    step(800, 175, 1, false); // stop
    step(850, 175, 1, false);
    step(5000, 175, 1, false); // standing: no heartbeat
    // Steps 50 ms apart: a heartbeat at the first step CLIENT_HEARTBEAT_MS after the last send.
    const beats: string[] = [];
    for (let t = 100 + CLIENT_HEARTBEAT_MS; t <= 600; t += Math.ceil(CLIENT_HEARTBEAT_MS / 50) * 50) {
      beats.push(`${t}:heartbeat`);
    }
    expect(sends).toEqual(['100:start', ...beats, '700:turn', '800:stop']);
  });

  it('sends the state it was given', () => {
    const p = new MoveSender();
    p.reset(0, 0, 0, 0);
    expect(p.update(10, 5, 6, 2, true, 120)).toEqual({ x: 5, y: 6, facing: 2, moving: true, speed: 120 });
    expect(p.update(20, 6, 6, 2, false, 120)).toEqual({ x: 6, y: 6, facing: 2, moving: false, speed: 0 });
  });

  it('treats headings across 2π as close', () => {
    const p = new MoveSender();
    p.reset(0, 0, 0, 0);
    p.update(10, 0, 0, Math.PI * 2 - 0.001, true, 120);
    expect(p.update(20, 1, 0, 0.001, true, 120)).toBeUndefined();
  });
});

// ------------------------------------------------------------------ walking, as the server sees it

describe('bot walking', () => {
  it('walks home around a wall and strolls there, every move one the server accepts, sent as state', () => {
    const s = new SwarmState({ ...DEFAULT_SWARM_OPTIONS, progress: false, castChance: 0, chatChance: 0 });
    const wall = { x: 200, y: 0, w: 20, h: 450 };
    s.zoneKnown({
      zone: 'Test',
      x: 0,
      y: 0,
      width: 600,
      height: 600,
      obstacles: [wall],
      neighbours: [],
      cellSize: 64,
      respawnDelay: 500,
    });
    const area = { x: 320, y: 120, w: 160, h: 160 };
    s.area = area;
    const sent: Uint8Array[] = [];
    const transport: ByteTransport = {
      send: (b) => sent.push(b.slice()),
      close: () => {},
      onBytes: () => {},
      onClose: () => {},
    };
    const bot = new Bot(1, 'tcp', s);
    bot.client = new WyvernClient(transport, { requestTimeoutMs: 1 });
    bot.phase = 'inWorld';
    bot.speed = 120;
    bot.stand(0, 80, 300, 0);
    bot.assignHome(area, s.nav!);
    let homeAt = -1;
    for (let t = 0; t <= 40_000; t += 50) {
      bot.tick(t);
      if (bot.atHome && homeAt < 0) homeAt = t;
    }
    expect(homeAt).toBeGreaterThan(0);

    const dec = new FrameDecoder();
    for (const b of sent) dec.push(b);
    const moves: PayloadOf<typeof MoveInput>[] = [];
    for (let f = dec.next(); f; f = dec.next())
      if (f.opcode === MoveInput.opcode) moves.push(MoveInput.decodeFrame(f));
    expect(moves.length).toBeGreaterThan(20);
    expect(s.counters.movesSent).toBe(moves.length);
    expect(s.counters.movesDue).toBe(moves.length);
    let prev = { x: 80, y: 300, clientTime: moves[0]!.clientTime, moving: false };
    let starts = 0;
    let stops = 0;
    for (const m of moves) {
      // The server's checks: no wall at or on the way to the new position, no faster than allowed.
      expect(blocked(m, [wall])).toBe(false);
      expect(segmentBlocked(prev, m, [wall], 0)).toBe(false);
      const dt = m.clientTime - prev.clientTime;
      expect(Math.hypot(m.x - prev.x, m.y - prev.y)).toBeLessThanOrEqual(maxMoveDistance(120, dt));
      // State, not a stream: while walking, at most a heartbeat apart.
      if (prev.moving) expect(dt).toBeLessThanOrEqual(CLIENT_HEARTBEAT_MS + 1e-6);
      if (m.moving && !prev.moving) starts++;
      if (!m.moving && prev.moving) stops++;
      expect(m.seq).toBeGreaterThan(0);
      prev = m;
    }
    // Home, then strolls with pauses: several walks, each started and stopped.
    expect(starts).toBeGreaterThan(3);
    expect(stops).toBeGreaterThanOrEqual(starts - 1);
    // A straight walk sends four states a second, not one per step.
    expect(moves.length).toBeLessThan((40_000 / 1000) * 8);
    bot.client.close();
  });
});
