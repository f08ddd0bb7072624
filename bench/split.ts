/**
 * What the split into gateway and zone host costs in one process, per tick: the same world
 * and walkers, their moves applied and the tick's bytes written into memory connections
 *
 *   direct  as before the split: moves straight into the zone's queue, the outbox writing into
 *           each connection's buffer;
 *   split   as `npm start` runs now: moves as PACKET records in one zone-input message (encoded
 *           by the gateway, decoded by the host), the outbox writing into SessionOutputs, one
 *           gateway batch over the InProcessBus, and the gateway copying each session's bytes
 *           into its connection.
 *
 * Both end with one flush of every connection. Rounds alternate the two so a busy machine
 * hurts both alike; the split's own steps (input records, the batch, the gateway's copy) are
 * also timed alone, which a busy machine blurs less than the difference of two totals. Prints figures; writes nothing (the load benchmark is the reference).
 *
 *   npx tsx bench/split.ts [players=2000] [ticks=200] [rounds=3]
 */
import { CLIENT_HEARTBEAT_MS } from '../shared/game/motion.js';
import { slide } from '../shared/game/movement.js';
import { Writer } from '../shared/codec/writer.js';
import { MoveInput } from '../shared/protocol/index.js';
import { InProcessBus, Subjects } from '../server/cluster/index.js';
import type { StreamVisitors } from '../server/cluster/inner/define.js';
import { GatewayBatch, Packet, ZoneInputs } from '../server/cluster/wire.js';
import { Outbox, type OutboxSink } from '../server/outbox/outbox.js';
import { FlushScheduler } from '../server/transport/flush.js';
import { MemoryConnection } from '../server/transport/memory.js';
import {
  createWorld,
  joinPlayer,
  loadWorldData,
  mulberry32,
  step,
  type Player,
  type WorldInput,
} from '../server/world/index.js';
import { GatewayLink } from '../server/zone/gateway-link.js';
import { zoneInput, zoneInputs } from '../server/zone/routes.js';

const TICK_MS = 50;
const HEARTBEAT_TICKS = Math.round(CLIENT_HEARTBEAT_MS / TICK_MS);
const WARMUP = 40;

const players = Number(process.argv[2] ?? 2000);
const ticks = Number(process.argv[3] ?? 200);
const rounds = Number(process.argv[4] ?? 3);
const data = loadWorldData('data');

interface Walker {
  p: Player;
  heading: number;
  seq: number;
  conn: MemoryConnection;
}

async function run(mode: 'direct' | 'split'): Promise<{
  mean: number;
  p50: number;
  p99: number;
  bytes: number;
  added: number;
  addedP99: number;
}> {
  const rng = mulberry32(42);
  // From 0: the recipients are added after their joins, so heads count from time 0.
  let now = 0;
  const w = createWorld(data, { rng, now });
  const zone = w.zone;
  const outbox = new Outbox();
  const scheduler = new FlushScheduler(() => {});
  const limits = { softLimit: 256 * 1024, hardLimit: 4 * 1024 * 1024 };
  const bus = new InProcessBus();
  const link = new GatewayLink('local', bus, 'zone-host');
  const walkers: Walker[] = [];
  const bySession = new Map<number, MemoryConnection>();
  for (let i = 0; i < players; i++) {
    let x: number;
    let y: number;
    do {
      x = 40 + rng() * (zone.width - 80);
      y = 40 + rng() * (zone.height - 80);
    } while (slide({ x, y }, { x, y }, zone.obstacles, zone).x !== x);
    const { playerId } = joinPlayer(
      w,
      i + 1,
      { id: i + 1, name: `Bot${i + 1}`, level: 1, appearance: 0, kills: 0, x, y },
      now,
    );
    const p = w.players.get(playerId)!;
    const conn = new MemoryConnection({ limits, scheduler });
    const sink: OutboxSink = mode === 'direct' ? conn : link.output(i + 1);
    outbox.add(p, sink);
    bySession.set(i + 1, conn);
    walkers.push({ p, heading: rng() * Math.PI * 2, seq: 0, conn });
  }
  let bytes = 0;
  // As the gateway does it (server/gateway/intake.ts): each session's bytes into its connection.
  const gatewaySide: StreamVisitors<typeof GatewayBatch> = {
    Joined() {},
    Bytes({ session, frames }) {
      const conn = bySession.get(session)!;
      conn.out.rawRange(frames.buf, frames.start, frames.end);
      conn.commit();
    },
    Left() {},
    Moved() {},
    Refused() {},
    ResendInputs() {},
    TicksGone() {},
  };
  bus.subscribe(Subjects.gatewayTick('local'), (m) => {
    bytes += m.data.length;
    GatewayBatch.visit(m.data, gatewaySide);
  });
  const inbox = new Writer(64 * 1024);
  const times: number[] = [];
  /** Per tick, the time spent in what the split adds: input records, the batch, the gateway's copy. */
  const own: number[] = [];
  for (let t = 0; t < ticks + WARMUP; t++) {
    now += TICK_MS;
    const moves: { wk: Walker; x: number; y: number }[] = [];
    for (let i = 0; i < walkers.length; i++) {
      if ((t + i) % HEARTBEAT_TICKS !== 0) continue;
      const wk = walkers[i]!;
      if (!wk.p.alive || !w.players.has(wk.p.id)) continue;
      if (rng() < 0.05) wk.heading += (rng() - 0.5) * 2;
      const dist = (wk.p.speed * TICK_MS * HEARTBEAT_TICKS) / 1000;
      const to = { x: wk.p.x + Math.cos(wk.heading) * dist, y: wk.p.y + Math.sin(wk.heading) * dist };
      const at = slide(wk.p, to, zone.obstacles, zone);
      if (at.x === wk.p.x && at.y === wk.p.y) wk.heading += Math.PI / 2;
      moves.push({ wk, x: at.x, y: at.y });
    }
    const start = performance.now();
    let added = 0;
    const inputs: WorldInput[] = [];
    for (const { wk, x, y } of moves) {
      const m = {
        seq: ++wk.seq,
        x,
        y,
        facing: wk.heading,
        moving: true,
        speed: wk.p.speed,
        clientTime: now,
        epoch: 0,
      };
      if (mode === 'direct') inputs.push(Object.assign(zoneInputs.MoveInput(wk.p.id, now), m));
      else {
        if (inbox.pos === 0) ZoneInputs.begin(inbox, { gateway: 'local', epoch: 0, to: 0, seq: 0 });
        Packet.write(inbox, {
          session: wk.p.id,
          receivedAt: now,
          opcode: MoveInput.opcode,
          payload: (out) => MoveInput.payload.write(out, m),
        });
      }
    }
    if (mode === 'split') added += performance.now() - start;
    if (mode === 'split' && inbox.pos > 0) {
      const from = performance.now();
      ZoneInputs.read(inbox.peek(), {
        Packet(r) {
          inputs.push(zoneInput(MoveInput, r.session, r.payload, r.receivedAt));
        },
        Join() {},
        Detach() {},
        Behind() {},
        Resync() {},
        ResendTicks() {},
        InputsGone() {},
        MovedOn() {},
      });
      inbox.pos = 0;
      added += performance.now() - from;
    }
    const { events } = step(w, inputs, now, rng);
    outbox.deliver(events, w, w.tick, Math.round(now));
    if (mode === 'split') {
      const from = performance.now();
      link.publish();
      await bus.flush();
      added += performance.now() - from;
    } else for (const wk of walkers) bytes += wk.conn.out.pos;
    scheduler.flushAll();
    const ms = performance.now() - start;
    if (t >= WARMUP) {
      times.push(ms);
      own.push(added);
    }
    for (const wk of walkers) wk.conn.writes.length = 0;
  }
  await bus.close();
  times.sort((a, b) => a - b);
  own.sort((a, b) => a - b);
  const round = (v: number): number => Math.round(v * 100) / 100;
  return {
    mean: round(times.reduce((a, b) => a + b, 0) / times.length),
    p50: round(times[Math.floor(times.length * 0.5)]!),
    p99: round(times[Math.floor(times.length * 0.99)]!),
    bytes: Math.round(bytes / (ticks + WARMUP)),
    added: round(own.reduce((a, b) => a + b, 0) / own.length),
    addedP99: round(own[Math.floor(own.length * 0.99)]!),
  };
}

const rows: Record<string, unknown>[] = [];
for (let r = 0; r < rounds; r++) {
  for (const mode of ['direct', 'split'] as const) {
    const res = await run(mode);
    rows.push({
      round: r + 1,
      mode,
      players,
      ticks,
      'ms/tick mean': res.mean,
      p50: res.p50,
      p99: res.p99,
      'bytes/tick': res.bytes,
      'own ms mean': mode === 'split' ? res.added : '-',
      'own ms p99': mode === 'split' ? res.addedP99 : '-',
    });
  }
}
console.table(rows);
