/**
 * The replication writer in memory, no sockets: the world steps, the outbox writes into
 * memory connections, and what each client would receive is decoded again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, HEADER_SIZE } from '../../shared/codec/frame.js';
import {
  BASE,
  byOpcode,
  EnterWorld,
  MotionRefs,
  WorldUpdate,
  readRecords,
  type EntityRecord,
} from '../../shared/protocol/index.js';
import { Reader } from '../../shared/codec/reader.js';
import { MOTION_ERROR_UNITS } from '../../shared/game/motion.js';
import { Outbox } from '../../server/outbox/outbox.js';
import { FlushScheduler } from '../../server/transport/flush.js';
import { MemoryConnection } from '../../server/transport/memory.js';
import { decodeStrip, encodeStrip } from '../../server/cluster/border-wire.js';
import { stripStates } from '../../server/world/ghosts.js';
import { walkedTo } from '../../server/world/walkers.js';
import {
  createWorld,
  joinPlayer,
  loadWorldData,
  mulberry32,
  type Player,
  type WorldInput,
  type ZoneData,
} from '../../server/world/index.js';
import { clearRow, mobAt, player, tick, world } from '../world/builders.js';

interface Client {
  readonly p: Player;
  readonly conn: MemoryConnection;
}

function connection(soft = 64 * 1024): MemoryConnection {
  return new MemoryConnection({
    limits: { softLimit: soft, hardLimit: 1 << 24 },
    scheduler: new FlushScheduler(() => {}),
  });
}

function setup(positions: readonly [number, number][], soft?: number, w = world()) {
  const outbox = new Outbox();
  let session = 1;
  const clients: Client[] = positions.map(([x, y]) => {
    const { playerId } = joinPlayer(w, session++, player({ x, y }));
    const conn = connection(soft);
    outbox.add(w.players.get(playerId)!, conn);
    return { p: w.players.get(playerId)!, conn };
  });
  const step = (inputs: WorldInput[] = []) => {
    const now = w.now + 50;
    const events = tick(w, inputs, now);
    outbox.deliver(events, w, w.tick, now);
    for (const c of clients) c.conn.flush();
  };
  // The first step builds every view.
  step();
  return { w, outbox, clients, step };
}

function walk(p: Player, x: number, y: number, seq: number, clientTime: number, moving = true): WorldInput {
  const facing = Math.atan2(y - p.y, x - p.x);
  return { type: 'move', entityId: p.id, seq, x, y, facing, moving, speed: p.speed, clientTime };
}

/** The frames of one write, by packet name, WorldUpdates decoded. */
function frames(bytes: Uint8Array): { name: string; records?: EntityRecord[] }[] {
  const d = new FrameDecoder();
  d.push(bytes);
  const out: { name: string; records?: EntityRecord[] }[] = [];
  for (let f = d.next(); f; f = d.next()) {
    const def = byOpcode(f.opcode)!;
    if (def === WorldUpdate) out.push({ name: def.name, records: WorldUpdate.decodeFrame(f).records });
    else out.push({ name: def.name });
  }
  return out;
}

function lastWrite(c: Client): Uint8Array {
  return c.conn.writes.at(-1) ?? new Uint8Array();
}

type Received = { name: string; records?: EntityRecord[] }[];
const receivedBy = new WeakMap<Client, { refs: MotionRefs; writes: Received[] }>();

/** Every write a client got, decoded in order as a client does (heads and moveBy records resolved). */
function received(c: Client): Received[] {
  let st = receivedBy.get(c);
  if (!st) receivedBy.set(c, (st = { refs: new MotionRefs(), writes: [] }));
  for (let i = st.writes.length; i < c.conn.writes.length; i++) {
    const d = new FrameDecoder();
    d.push(c.conn.writes[i]!);
    const out: Received = [];
    for (let f = d.next(); f; f = d.next()) {
      const def = byOpcode(f.opcode)!;
      if (def === EnterWorld) {
        const enter = EnterWorld.decodeFrame(f);
        st.refs.enter(enter.tick, enter.serverTime);
      }
      if (def === WorldUpdate) {
        const update = WorldUpdate.decodeFrame(f);
        st.refs.resolve(update);
        out.push({ name: def.name, records: update.records });
      } else out.push({ name: def.name });
    }
    st.writes.push(out);
  }
  return st.writes;
}

function lastRecords(c: Client): EntityRecord[] {
  return (received(c).at(-1) ?? []).flatMap((f) => f.records ?? []);
}

describe('replication writer', () => {
  it('opens each client batch with one WorldUpdate and writes it in one write', () => {
    const { clients, step } = setup([
      [300, 300],
      [320, 300],
      [300, 330],
    ]);
    const [a] = clients as [Client, Client, Client];
    const before = clients.map((c) => c.conn.writes.length);
    step([walk(a.p, 306, 300, 1, 50)]);
    clients.forEach((c, i) => {
      expect(c.conn.writes.length).toBe(before[i]! + 1);
      const fs = received(c).at(-1)!;
      expect(fs[0]!.name).toBe('WorldUpdate');
      expect(fs.filter((f) => f.name === 'WorldUpdate')).toHaveLength(1);
    });
    // The walker's start reaches the others as one move record; the walker gets its MoveAck after.
    for (const c of clients.slice(1)) {
      expect(lastRecords(c)).toContainEqual(
        expect.objectContaining({ kind: 'move', id: a.p.id, moving: true }),
      );
    }
    expect(
      received(a)
        .at(-1)!
        .map((f) => f.name),
    ).toEqual(['WorldUpdate', 'MoveAck']);
  });

  it('gives a client that sees another player a WorldUpdate every tick, empty when nothing changed, and one that sees none nothing', () => {
    const { w, clients, step } = setup([
      [300, 300],
      [320, 300],
      [300, 900],
    ]);
    const [a, b, far] = clients as [Client, Client, Client];
    step([walk(a.p, 300, 300, 1, w.now + 50)]);
    expect(a.p.moving).toBe(true);
    const before = clients.map((c) => c.conn.writes.length);
    // A walks on straight: no new state of it for a while (its next heartbeat is not yet
    // overdue), yet B (and A) hear every tick.
    for (let i = 0; i < 3; i++) step();
    expect(b.conn.writes.length - before[1]!).toBe(3);
    for (const write of received(b).slice(-3)) {
      expect(write.map((f) => f.name)).toEqual(['WorldUpdate']);
      expect(write[0]!.records).toEqual([]);
    }
    // Far away, no other player in view: nothing is sent.
    expect(far.conn.writes.length).toBe(before[2]);
  });

  it("keeps time for a client that sees only a neighbour's player across the border (a ghost), not for one alone near it", () => {
    const data = loadWorldData('data');
    const [greenvale, ashmoor] = data.zones as [ZoneData, ZoneData];
    const y = clearRow([...greenvale.obstacles, ...ashmoor.obstacles], 1900, 2100, 12);
    const gv = createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0 });
    const am = createWorld(data, { zone: 'Ashmoor', rng: mulberry32(2), now: 0 });
    joinPlayer(gv, 1, player({ x: 1990, y }));
    // Two players of Ashmoor's: one by the line, one far off, so keepTime has players to find.
    const { clients, step } = setup(
      [
        [2010, y],
        [2900, y],
      ],
      undefined,
      am,
    );
    const [near, far] = clients as [Client, Client];
    const quiet = () => clients.map((c) => c.conn.writes.length);
    // No ghost yet: nothing near the line but itself, so nothing on a quiet tick.
    let before = quiet();
    step();
    expect(quiet()).toEqual(before);
    // Greenvale's player comes across as a ghost standing still: every tick a WorldUpdate.
    const strip = decodeStrip(encodeStrip('Greenvale', stripStates(gv, ashmoor)));
    expect(strip.entities.some((e) => e.kind === 'player')).toBe(true);
    step([{ type: 'strip', from: strip.from, entities: strip.entities }]);
    before = quiet();
    for (let i = 0; i < 3; i++) step();
    expect(near.conn.writes.length - before[0]!).toBe(3);
    for (const write of received(near).slice(-3)) expect(write.map((f) => f.name)).toEqual(['WorldUpdate']);
    expect(far.conn.writes.length).toBe(before[1]);
  });

  it('encodes a cell once however many observe it, and gives every observer the same bytes', () => {
    const spots: [number, number][] = Array.from({ length: 30 }, (_, i) => [200 + (i % 6) * 10, 200 + i]);
    const { clients, outbox, step } = setup(spots);
    const walker = clients[0]!;
    step([walk(walker.p, 206, 200, 1, 50)]);
    expect(outbox.stats.records).toBe(1);
    const bodies = clients.slice(1).map((c) => {
      const w = lastWrite(c);
      // Past the frame header: the head (the same ticks and time for all) and the records' bytes.
      return Array.from(w.subarray(HEADER_SIZE, w[0]! | (w[1]! << 8)));
    });
    for (const b of bodies) expect(b).toEqual(bodies[0]);
  });

  it('writes each further cell block in a frame with its first id counted on from the last (no BASE), in id order', () => {
    // Walkers far enough apart to stand in different cells, all seen by the observer.
    const spots: [number, number][] = [
      [400, 600],
      [300, 500],
      [420, 500],
      [300, 700],
      [420, 700],
    ];
    const { clients, step } = setup(spots);
    const [observer, ...walkers] = clients as [Client, ...Client[]];
    const cells = new Set(walkers.map((c) => c.p.cell));
    expect(cells.size).toBe(walkers.length);
    step(walkers.map((c, i) => walk(c.p, c.p.x + 6, c.p.y, 1, 50 + i)));
    const w = lastWrite(observer);
    const end = w[0]! | (w[1]! << 8);
    // Head: two 1-byte varints; then the records: id delta, tag, ...
    const body = w.subarray(HEADER_SIZE + 2, end);
    const ids = frames(w)[0]!.records!.map((r) => r.id);
    expect(ids).toEqual(walkers.map((c) => c.p.id).sort((a, b) => a - b));
    // The first record counts from 0 (its delta is its id); every later one, from a block of
    // its own, continues from the one before with a 1-byte delta and no BASE bit.
    let at = 0;
    const tags: number[] = [];
    const deltas: number[] = [];
    for (let k = 0; k < ids.length; k++) {
      deltas.push(body[at]!);
      tags.push(body[at + 1]!);
      const r = new Uint8Array(body.subarray(at));
      // Step over this record: re-encode the decoded one to learn its length.
      at += recordLength(r);
    }
    expect(deltas).toEqual(ids.map((id, k) => id - (k === 0 ? 0 : ids[k - 1]!)));
    expect(tags.slice(1).every((t) => (t & BASE) === 0)).toBe(true);
  });

  it('skips motion for a client that is behind, then sends its view motion once it catches up', () => {
    const { clients, step } = setup(
      [
        [300, 300],
        [320, 300],
      ],
      1000,
    );
    const [walker, slow] = clients as [Client, Client];
    slow.conn.socketBytes = 5000;
    const before = received(slow).length;
    step([walk(walker.p, 306, 300, 1, 50)]);
    const meanwhile = received(slow)
      .slice(before)
      .flatMap((b) => b.flatMap((f) => f.records ?? []));
    expect(meanwhile.filter((r) => r.kind === 'move' || r.kind === 'moveBy')).toEqual([]);
    slow.conn.socketBytes = 0;
    step();
    const resync = lastRecords(slow).filter((r) => r.kind === 'move' && r.id === walker.p.id);
    expect(resync).toHaveLength(1);
    expect(resync[0]).toMatchObject({ moving: true });
  });

  it('tells a client that an entity left even when its view let go of that cell in the same tick', () => {
    const { w, clients, step } = setup([
      [455, 300],
      [705, 300],
    ]);
    const [a, b] = clients as [Client, Client];
    expect(a.p.visible.has(b.p.id)).toBe(true);
    const before = received(a).length;
    step([walk(a.p, 410, 300, 1, 1000), { type: 'leave', entityId: b.p.id, reason: 'disconnected' }]);
    const cell = w.playerGrid.cellOf(705, 300);
    expect(a.p.viewCells.has(cell)).toBe(false);
    const got = received(a)
      .slice(before)
      .flatMap((b) => b.flatMap((f) => f.records ?? []));
    expect(got).toContainEqual(expect.objectContaining({ kind: 'despawn', id: b.p.id, reason: 'left' }));
  });

  it('sends a walker as moveBy records that every observer, early or late, resolves to where the server has it', () => {
    const { w, outbox, clients, step } = setup([
      [300, 300],
      [330, 300],
    ]);
    const walker = clients[0]!;
    let x = 300;
    let y = 300;
    let heading = 0;
    let moveBys = 0;
    let corners = 0;
    for (let k = 1; k <= 80; k++) {
      if (k % 9 === 0) heading += 0.6;
      if (k === 30) {
        // A late observer: its spawn of the walker carries the shared reference, aged.
        const { playerId } = joinPlayer(w, 99, player({ x: 320, y: 320 }));
        const conn = connection();
        const p = w.players.get(playerId)!;
        outbox.add(p, conn);
        clients.push({ p, conn });
      }
      const speed = walker.p.speed * 0.8;
      x += Math.cos(heading) * speed * 0.05;
      y += Math.sin(heading) * speed * 0.05;
      const facing = heading;
      const input: WorldInput = {
        type: 'move',
        entityId: walker.p.id,
        seq: k,
        x,
        y,
        facing,
        moving: k < 75,
        speed: walker.p.speed,
        clientTime: k * 50,
      };
      const writes = clients.map((c) => c.conn.writes.length);
      step([input]);
      if (walker.p.moving && (walker.p.x !== x || walker.p.y !== y)) corners++;
      clients.slice(1).forEach((c, i) => {
        if (c.conn.writes.length === writes[i + 1]) return;
        moveBys += c.conn.writes.slice(writes[i + 1]).reduce(
          (n, b) =>
            n +
            frames(b)
              .flatMap((f) => f.records ?? [])
              .filter((r) => r.kind === 'moveBy').length,
          0,
        );
        const records = lastRecords(c);
        // Where the server has the walker now: its newest state walked on to now. A turn's
        // state is placed at its corner, dated when the walk got there (walkers.ts), so it
        // stands behind the client's input by the walk since.
        const held = walkedTo(w, walker.p);
        records.forEach((r, i) => {
          if (r.id !== walker.p.id || r.kind !== 'move') return;
          // A new state: where the server has it now, to the record's 1/16-unit step. A
          // spawn's: its reference (as it held, `age` ms ago) reckoned on to now, within what
          // the server lets reckoning stray.
          const spawned = records[i - 1]?.kind === 'spawn';
          const within = spawned ? MOTION_ERROR_UNITS : 0.07;
          const on = r.moving ? ((r.speed ?? walker.p.speed) * (r.age ?? 0)) / 1000 : 0;
          const x = r.x + Math.cos(r.angle) * on;
          const y = r.y + Math.sin(r.angle) * on;
          expect(Math.abs(x - held.x), `tick ${k}, observer ${c.p.id}`).toBeLessThan(within);
          expect(Math.abs(y - held.y), `tick ${k}, observer ${c.p.id}`).toBeLessThan(within);
        });
      });
    }
    expect(moveBys).toBeGreaterThan(10);
    // Each of its eight turns was placed at its corner, and its start on the spot it left,
    // so those states were not at its input.
    expect(corners).toBe(9);
    expect(clients[2]!.p.visible.has(walker.p.id)).toBe(true);
  });

  it('sends mob routes HERE, and every observer, early or late, resolves them to where the server has the mob', () => {
    const mobs = [mobAt(400, 300), mobAt(460, 340), mobAt(520, 280), mobAt(430, 420)];
    const { w, outbox, clients, step } = setup(
      [
        [300, 300],
        [350, 360],
      ],
      undefined,
      world({ mobs, seed: 7 }),
    );
    const walker = clients[0]!;
    let x = walker.p.x;
    let here = 0;
    let stops = 0;
    let checked = 0;
    for (let k = 1; k <= 240; k++) {
      if (k === 90) {
        // A late observer: its spawn of each mob carries the mob's reference path, aged.
        const { playerId } = joinPlayer(w, 99, player({ x: 420, y: 380 }));
        const conn = connection();
        const p = w.players.get(playerId)!;
        outbox.add(p, conn);
        clients.push({ p, conn });
      }
      // The walker strolls among the wolves and back, so they chase, stop and chase again
      // (at this pace some routes end in a stop, which HERE records carry too).
      const dir = Math.floor(k / 40) % 2 === 0 ? 1 : -1;
      const moving = k % 40 < 30;
      if (moving) x += dir * walker.p.speed * 0.05 * 0.8;
      const writes = clients.map((c) => c.conn.writes.length);
      step([walk(walker.p, x, walker.p.y, k, k * 50, moving)]);
      clients.forEach((c, i) => {
        for (const b of c.conn.writes.slice(writes[i])) {
          for (const r of frames(b).flatMap((f) => f.records ?? [])) {
            if (r.kind !== 'pathHere') continue;
            here++;
            if (r.waypoints.length === 0) stops++;
          }
        }
        if (c.conn.writes.length === writes[i]) return;
        for (const r of lastRecords(c)) {
          const m = w.mobs.get(r.id);
          if (!m || (r.kind !== 'path' && r.kind !== 'move')) continue;
          // Where the record starts the mob (or stands it) is where the server has it now,
          // within the slack a HERE start may take (2 coord steps, 1/8 unit) and rounding.
          expect(Math.abs(r.x - m.x), `tick ${k}, observer ${c.p.id}, mob ${m.id}`).toBeLessThan(0.2);
          expect(Math.abs(r.y - m.y), `tick ${k}, observer ${c.p.id}, mob ${m.id}`).toBeLessThan(0.2);
          checked++;
        }
      });
    }
    expect(here).toBeGreaterThan(10);
    expect(stops).toBeGreaterThan(0);
    expect(checked).toBeGreaterThan(30);
  });

  it('gives each observer exactly the entities its view holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 20, max: 980 }), fc.integer({ min: 20, max: 480 })), {
          minLength: 2,
          maxLength: 8,
        }),
        fc.array(fc.tuple(fc.nat(7), fc.integer({ min: -1, max: 1 }), fc.integer({ min: -1, max: 1 })), {
          maxLength: 60,
        }),
        (spots, walks) => {
          const { w, clients, step } = setup(spots);
          const seen = clients.map(() => new Set<number>());
          const apply = () => {
            clients.forEach((c, i) => {
              for (const f of c.conn.writes.splice(0)) {
                for (const r of frames(f).flatMap((x) => x.records ?? [])) {
                  if (r.kind === 'spawn') seen[i]!.add(r.id);
                  else if (r.kind === 'despawn') seen[i]!.delete(r.id);
                }
              }
            });
          };
          apply();
          let seq = 1;
          for (const [who, dx, dy] of walks) {
            const c = clients[who % clients.length]!;
            const p = w.players.get(c.p.id)!;
            const x = Math.min(990, Math.max(10, p.x + dx * 40));
            const y = Math.min(490, Math.max(10, p.y + dy * 40));
            // Time for the walk to be honest: the server's clock passes what the client claims.
            for (let k = 0; k < 7; k++) step();
            step([walk(p, x, y, seq, seq * 400)]);
            seq++;
            apply();
            clients.forEach((cl, i) => {
              expect([...seen[i]!].sort()).toEqual([...cl.p.visible.keys()].sort());
            });
          }
          return true;
        },
      ),
      { numRuns: 25 },
    );
  });
});

/** The length of the one record at the start of `bytes` (it decodes alone: its id counts from 0). */
function recordLength(bytes: Uint8Array): number {
  for (let n = 2; n <= bytes.length; n++) {
    try {
      const r = readRecords(new Reader(bytes.subarray(0, n)));
      if (r.length === 1) return n;
    } catch {
      // too short yet
    }
  }
  throw new Error('no record');
}
