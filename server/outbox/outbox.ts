/**
 * The only place world events become bytes: the replication writer. Per tick and per client
 * it appends, straight into the client's connection buffer:
 *
 *   WorldUpdate frame   header · tick, time (deltas from the client's previous WorldUpdate or
 *                       its EnterWorld) · blocks (shared/protocol/records.ts)
 *     - for each cell of the client's view that changed this tick: the cell's blocks,
 *       encoded once per tick and copied to every observer of the cell (no per-entity work
 *       per observer): a reliable block (health, deaths, respawns, departures) and a motion
 *       block (movement states, mob paths)
 *     - the client's own view changes, in order: despawns, and spawns (each entity's spawn
 *       block, spawn record and motion record, is encoded once per tick and shared)
 *     - after skipped motion: the motion state of everything in view (a resync)
 *   A player's movement state goes as a moveBy, relative to its motion reference (the state of
 *   its last move record, kept here per entity exactly as clients keep it), unless it jumps;
 *   spawns and resyncs send the reference itself (with its age), so every holder of the
 *   entity shares it. A mob's new path goes HERE, from where its reference (its last path,
 *   or where that stopped it) puts it, and a mob stopping mid-way is a HERE path with no
 *   waypoints; spawns and resyncs send its reference path itself, aged.
 *   its other frames       chat, spell results, acks, errors (messages.ts decides which
 *                          events become which packets): each message encoded once
 *
 * A client whose buffer is over the soft limit at its first write of the tick is behind for
 * the whole tick: its motion blocks and droppable frames are skipped (whole sections, never
 * parts), and it gets a resync of its view's motion once it has caught up. The limits are
 * checked once per client per tick, and each client's appends are committed once.
 */
import { crc16 } from '../../shared/codec/crc16.js';
import { HEADER_SIZE, MAX_FRAME_SIZE } from '../../shared/codec/frame.js';
import { Writer } from '../../shared/codec/writer.js';
import { deadReckon } from '../../shared/game/motion.js';
import {
  BASE,
  byName,
  markBase,
  quantizeAngle,
  quantizeCoord,
  quantizePoints,
  quantizeSpeed,
  reckonPath,
  reckonRef,
  WorldUpdate,
  writeRecordBody,
  type MotionRef,
  type PathRef,
} from '../../shared/protocol/index.js';
import type { ServerPacket } from '../../shared/protocol/index.js';
import { remainingRoute } from '../world/mobs.js';
import type { Entity, Mob, Player, World, WorldEvent } from '../world/index.js';
import { messages, type Message, type MessageSink } from './messages.js';

/** Bits of what changed about an entity this tick. */
const MOTION = 1;
const PATH = 2;
const HEALTH = 4;
const DIED = 8;
const RESPAWNED = 16;
const JUMP = 32;
const RELIABLE = HEALTH | DIED | RESPAWNED;
const MOVEMENT = MOTION | PATH;

const WORLD_UPDATE = WorldUpdate.opcode;
/** Room for a frame's header and the two head varints. */
const HEAD = HEADER_SIZE + 10;
/** Records per resync block, so one block always fits a frame. */
const RESYNC_BLOCK = 1024;
/**
 * How far (coord steps, each axis) a mob may stand from where its reference puts it for a
 * new path to go HERE: its route starts from its exact position, the reference from the
 * quantized one, so the two differ by a step or so along the way.
 */
const HERE_SLACK = 2;

/** A mob's path reference, as every holder of the mob keeps it. */
interface MobRef extends PathRef {
  pts: number[];
}

/**
 * Where one client's bytes go: its Connection when the socket is in this process, or the
 * zone host's buffer for a session held by a gateway (zone/gateway-link.ts), which carries
 * the gateway's soft-limit verdict and hands the bytes on in the gateway's tick message. A
 * Connection is one as it is.
 */
export interface OutboxSink {
  /** Frames appended at out.pos are the client's once commit() is called. */
  readonly out: Writer;
  /** Over the soft limit: skip droppable sections this tick. */
  behind(): boolean;
  /** A droppable section was skipped. */
  skipped(opcode: number, bytes: number): void;
  /** The appends of this tick are done. */
  commit(): boolean;
  readonly closed: boolean;
}

interface Recipient {
  readonly conn: OutboxSink;
  readonly player: Player;
  /** The tick this recipient was last written in. */
  tick: number;
  /** Offset in conn.out of the open WorldUpdate frame, -1 when none is open. */
  frameStart: number;
  /** Whether a WorldUpdate frame was opened this tick. */
  opened: boolean;
  /** conn.out.pos when first touched this tick. */
  startPos: number;
  /** Over the soft limit at the first write of this tick. */
  behind: boolean;
  /** Motion was skipped: send the view's motion state once caught up. */
  resync: boolean;
  /** Entering the world this tick: its own messages (ZoneInfo, EnterWorld...) go before its first WorldUpdate. */
  entering: boolean;
  /** Tick and time of its previous WorldUpdate (or EnterWorld): the next head counts from them. */
  lastTick: number;
  lastTime: number;
  /** This tick's view changes in order: an entity seen, the id of one no longer seen, or one gone. */
  readonly ops: (Entity | number | Removal)[];
  /** This tick's cell runs for it, written in id order when its frame is assembled. */
  readonly runs: Run[];
  /** The id of the last record written in its open frame (0 when none). */
  lastId: number;
}

/**
 * A run of records in the scratch buffer, starting with a BASE record: its first and last
 * ids, and the length of its first id's varint (what an observer's frame may write anew).
 */
interface Run {
  start: number;
  end: number;
  first: number;
  last: number;
  skip: number;
}

/**
 * A cell's encoded blocks this tick (reliable, then motion, back to back in the scratch
 * buffer), as the runs an observer gets: both, or the reliable one alone for a client whose
 * motion is skipped or resent.
 */
interface CellBlocks {
  rel: number;
  relEnd: number;
  mot: number;
  motEnd: number;
  all: Run | null;
  relOnly: Run | null;
}

interface Removal {
  readonly entity: Entity;
  readonly reason: 'left' | 'corpse';
}

export interface OutboxStats {
  /** Bytes encoded once and shared this tick (cell blocks, spawn blocks, messages). */
  encoded: number;
  /** Bytes appended to connections this tick. */
  queued: number;
  /** Bytes skipped for clients that were behind. */
  dropped: number;
  /** Connections written to this tick. */
  recipients: number;
  /** Entity records encoded this tick (once each, however many observers). */
  records: number;
}

export class Outbox {
  readonly stats: OutboxStats = { encoded: 0, queued: 0, dropped: 0, recipients: 0, records: 0 };
  /** By player id (ids are small and dense). */
  /** By player id (a character id: sparse, so a Map rather than an array). */
  private readonly recipients = new Map<number, Recipient>();
  private readonly touched: Recipient[] = [];
  private readonly resyncing = new Set<Recipient>();
  /** This tick's shared encodings: cell blocks, spawn blocks. */
  private readonly scratch = new Writer(16 * 1024);
  private readonly changed = new Map<Entity, number>();
  private readonly killers = new Map<Entity, number>();
  private readonly removals = new Map<number, Removal[]>();
  private readonly cells = new Map<number, CellBlocks>();
  /** Each spawned entity's block this tick: [start, end) in the scratch buffer. */
  private readonly spawns = new Map<Entity, { start: number; end: number }>();
  /** Each message's frame this tick: [start, end) in the scratch buffer. */
  private readonly frames = new Map<Message, { start: number; end: number }>();
  /** Each player's motion reference: the state its last move record left with every holder. */
  private readonly refs = new Map<number, MotionRef>();
  /**
   * Each mob's path reference: its last path as sent to every holder (fresh records only,
   * which go to all of them). None until its first path, and none again after it died or
   * left, until a path sent absolute starts a new one.
   */
  private readonly mobRefs = new Map<number, MobRef>();
  private readonly reckoned = { qx: 0, qy: 0, qa: 0 };
  /** Per cell, the stamp of the tick keepTime last found a player there, and how many (up to 2). */
  private stampedAt = new Int32Array(0);
  private playerCount = new Uint8Array(0);
  /** Counts keepTime's stamps (not the tick: a tick number may come twice, from another world). */
  private stampNow = 0;
  /** The tick and time being delivered (EnterWorld carries them). */
  tick = 0;
  time = 0;
  /** Messages after the tick's WorldUpdate, and those of a player entering, before it. */
  private readonly after: MessageSink = this.sink(true);
  private readonly before: MessageSink = this.sink(false);

  /** From now on, `player`'s bytes go to `conn`. */
  add(player: Player, conn: OutboxSink): void {
    this.recipients.set(player.id, {
      conn,
      player,
      tick: -1,
      frameStart: -1,
      opened: false,
      startPos: 0,
      behind: false,
      resync: false,
      entering: false,
      lastTick: 0,
      lastTime: 0,
      ops: [],
      runs: [],
      lastId: 0,
    });
  }

  remove(playerId: number): void {
    const r = this.recipients.get(playerId);
    if (r) this.resyncing.delete(r);
    this.recipients.delete(playerId);
  }

  /** Writes one tick's events (the world as that step left it) into the connections of the players they concern. */
  deliver(events: readonly WorldEvent[], world: World, tick: number, time: number): void {
    const cellObservers = world.cellObservers;
    this.tick = tick;
    // Whole ms (the zone host rounds its clock): heads carry time as varints.
    this.time = time;
    const stats = this.stats;
    stats.encoded = stats.queued = stats.dropped = stats.recipients = stats.records = 0;
    this.scratch.reset();

    for (const e of events) {
      switch (e.type) {
        case 'joined': {
          const r = this.recipients.get(e.playerId);
          if (r) {
            r.entering = true;
            // EnterWorld carries this tick and time: the first head counts from them.
            r.lastTick = this.tick;
            r.lastTime = this.time;
          }
          break;
        }
        case 'entered':
        case 'arrived':
          // Entering the world or the zone: the client learns where it is before what it sees.
          if (this.recipients.get(e.player.id)?.entering) messages(world, this, e, this.before);
          break;
        case 'seen':
        case 'unseen': {
          const r = this.touch(e.observerId);
          if (r) r.ops.push(e.type === 'seen' ? e.entity : e.entityId);
          break;
        }
        case 'motion':
          this.mark(e.entity, e.jump ? MOTION | JUMP : MOTION);
          break;
        case 'path':
          this.mark(e.entity, PATH);
          break;
        case 'health':
          this.mark(e.entity, HEALTH);
          break;
        case 'died':
          this.mark(e.entity, DIED);
          this.killers.set(e.entity, e.killerId);
          this.mobRefs.delete(e.entity.id);
          break;
        case 'respawned':
          this.mark(e.entity, RESPAWNED);
          this.mobRefs.delete(e.entity.id);
          break;
        case 'removed': {
          const removal = { entity: e.entity, reason: e.reason };
          this.refs.delete(e.entity.id);
          this.mobRefs.delete(e.entity.id);
          let list = this.removals.get(e.cell);
          if (!list) this.removals.set(e.cell, (list = []));
          list.push(removal);
          // Those who saw it but whose view let go of the cell this tick miss the cell's block.
          for (const id of e.observers) {
            const r = this.recipients.get(id);
            if (r && !r.player.viewCells.has(e.cell)) this.touch(id)?.ops.push(removal);
          }
          break;
        }
        default:
          break;
      }
    }

    this.encodeCells();
    for (const [cell, blocks] of this.cells) {
      const motion = blocks.motEnd > blocks.mot;
      const observers = cellObservers[cell]!.slots();
      for (let i = 0; i < observers.length; i++) {
        const o = observers[i];
        if (o === undefined) continue;
        const r = this.touch(o.id);
        if (!r) continue;
        // A resync this tick sends every state in view anew, these included.
        if (!motion || (!r.behind && !r.resync)) r.runs.push(blocks.all!);
        else {
          if (blocks.relOnly) r.runs.push(blocks.relOnly);
          if (r.behind) {
            r.resync = true;
            this.resyncing.add(r);
            r.conn.skipped(WORLD_UPDATE, blocks.motEnd - blocks.mot);
            stats.dropped += blocks.motEnd - blocks.mot;
          }
        }
      }
    }
    for (const r of this.touched) this.writeRuns(r);
    for (const r of this.touched) this.writeViewChanges(r);
    for (const r of this.resyncing) {
      if (r.conn.closed) this.resyncing.delete(r);
      else if (!this.touch(r.player.id)!.behind) this.writeResync(r);
    }
    this.keepTime(world);
    for (const r of this.touched) this.closeFrame(r);

    for (const e of events)
      if (e.type !== 'entered' && e.type !== 'arrived') messages(world, this, e, this.after);

    for (const r of this.touched) {
      stats.queued += r.conn.out.pos - r.startPos;
      r.conn.commit();
      r.ops.length = 0;
      r.entering = false;
    }
    stats.recipients = this.touched.length;
    stats.encoded += this.scratch.pos;
    this.touched.length = 0;
    this.changed.clear();
    this.killers.clear();
    this.removals.clear();
    this.cells.clear();
    this.spawns.clear();
    this.frames.clear();
  }

  /**
   * A client that sees another player gets a WorldUpdate every tick, empty when nothing in its
   * view changed: its render clock then knows that every state up to this tick has come, so
   * it draws players up to now and holds them there while its own link stalls, instead of
   * walking one on past a stop (or standing one still past a start) that is still on its way.
   * A player's states come only when its course changes (or once a second), so without this
   * a quiet tick and a stalled link look the same. A client that sees no other player gets
   * nothing: mob paths say where they go ahead of time.
   */
  private keepTime(world: World): void {
    if (world.players.size + world.ghosts.size < 2) return;
    this.stampPlayers(world);
    const now = this.stampNow;
    const stampedAt = this.stampedAt;
    const count = this.playerCount;
    for (const r of this.recipients.values()) {
      if ((r.tick === this.tick && r.opened) || r.conn.closed) continue;
      const own = r.player.cell;
      for (const cell of r.player.viewCells) {
        // Another player there: two or more, or one that is not the recipient itself.
        if (stampedAt[cell] !== now || (count[cell] === 1 && cell === own)) continue;
        // Not to one that is behind: its motion was skipped, so all is not heard.
        const t = this.touch(r.player.id);
        if (t && t.frameStart < 0 && !t.behind && !t.resync) this.openFrame(t);
        break;
      }
    }
  }

  /**
   * Stamps each cell that holds a player (or a neighbour's player shown here as a ghost) anew
   * this tick, and counts them there up to 2 (a ghost counts as 2: it is never the recipient),
   * so keepTime asks each view cell one lookup instead of searching its lists.
   */
  private stampPlayers(world: World): void {
    const cells = world.playerGrid.cells.length;
    if (this.stampedAt.length !== cells || this.stampNow === 0x7fffffff) {
      this.stampedAt = new Int32Array(cells);
      this.playerCount = new Uint8Array(cells);
      this.stampNow = 0;
    }
    this.stampNow++;
    for (const p of world.players.values()) this.stamp(p.cell, 1);
    for (const g of world.ghosts.values()) if (g.entity.kind === 'player') this.stamp(g.entity.cell, 2);
  }

  private stamp(cell: number, n: number): void {
    if (cell < 0) return;
    if (this.stampedAt[cell] !== this.stampNow) {
      this.stampedAt[cell] = this.stampNow;
      this.playerCount[cell] = 0;
    }
    this.playerCount[cell] = Math.min(2, this.playerCount[cell]! + n);
  }

  // ---------------------------------------------------------------- shared encodings

  private mark(e: Entity, bits: number): void {
    this.changed.set(e, (this.changed.get(e) ?? 0) | bits);
  }

  /** Each changed cell's reliable and motion blocks, once, into the scratch buffer. */
  private encodeCells(): void {
    const byCell = new Map<number, Entity[]>();
    for (const e of this.changed.keys()) {
      if (e.cell < 0) continue;
      let list = byCell.get(e.cell);
      if (!list) byCell.set(e.cell, (list = []));
      list.push(e);
    }
    for (const cell of this.removals.keys()) if (!byCell.has(cell)) byCell.set(cell, []);
    const w = this.scratch;
    for (const [cell, entities] of byCell) {
      const removed = this.removals.get(cell);
      entities.sort(byId);
      removed?.sort((a, b) => a.entity.id - b.entity.id);
      const blocks: CellBlocks = {
        rel: w.pos,
        relEnd: w.pos,
        mot: w.pos,
        motEnd: w.pos,
        all: null,
        relOnly: null,
      };

      let n = removed ? removed.length : 0;
      for (const e of entities) n += countBits(this.changed.get(e)! & RELIABLE);
      let first = -1;
      let prev = 0;
      if (n > 0) {
        this.stats.records += n;
        let ri = 0;
        for (const e of entities) {
          while (removed && ri < removed.length && removed[ri]!.entity.id < e.id) {
            const d = removed[ri++]!;
            writeRecordBody.despawn(w, d.entity.id - prev, d.reason);
            prev = d.entity.id;
          }
          const bits = this.changed.get(e)!;
          if (bits & RESPAWNED) {
            writeRecordBody.respawn(w, e.id - prev, e.x, e.y, e.health, e.maxHealth);
            prev = e.id;
          }
          if (bits & HEALTH) {
            writeRecordBody.health(w, e.id - prev, e.health, e.maxHealth);
            prev = e.id;
          }
          if (bits & DIED) {
            writeRecordBody.death(w, e.id - prev, this.killers.get(e) ?? 0);
            prev = e.id;
          }
        }
        while (removed && ri < removed.length) {
          const d = removed[ri++]!;
          writeRecordBody.despawn(w, d.entity.id - prev, d.reason);
          prev = d.entity.id;
        }
        markBase(w.buf, blocks.rel);
        blocks.relEnd = blocks.mot = blocks.motEnd = w.pos;
        first = firstId(w.buf, blocks.rel);
        blocks.relOnly = run(w.buf, blocks.rel, blocks.relEnd, first, prev);
      }

      let m = 0;
      for (const e of entities) if (this.changed.get(e)! & MOVEMENT) m++;
      if (m > 0) {
        this.stats.records += m;
        prev = 0;
        for (const e of entities) {
          const bits = this.changed.get(e)!;
          if (!(bits & MOVEMENT)) continue;
          this.writeMotion(w, e, e.id - prev, true, (bits & JUMP) !== 0);
          prev = e.id;
        }
        markBase(w.buf, blocks.mot);
        blocks.motEnd = w.pos;
        if (first < 0) first = firstId(w.buf, blocks.mot);
      }
      if (first < 0) continue;
      blocks.all = run(w.buf, blocks.rel, blocks.motEnd, first, prev);
      this.cells.set(cell, blocks);
    }
  }

  /**
   * An entity's motion as of now. A player: with `fresh` (its state changed this tick), the
   * new state, as a moveBy from its reference unless it jumped, and the new state becomes the
   * reference; else (a spawn, a resync) the reference itself, aged, so the receiver holds the
   * same reference as everyone else. A mob: its path from here, or where it stands.
   */
  private writeMotion(w: Writer, e: Entity, idDelta: number, fresh: boolean, jump = false): void {
    if (e.kind !== 'player') {
      this.writeMobMotion(w, e, idDelta, fresh);
      return;
    }
    let ref = this.refs.get(e.id);
    if (!fresh && ref) {
      const age = ref.moving ? this.time - ref.t : 0;
      const qs = ref.qs === quantizeSpeed(e.speed) ? -1 : ref.qs;
      writeRecordBody.moveSteps(w, idDelta, ref.qx, ref.qy, ref.qa, ref.moving, false, qs, age);
      return;
    }
    const s = e.sent;
    // A moveBy gives the state as it was when its client sent it (`age` ms before the frame),
    // against where the reference puts the entity then: a start, stop or turn is then a step
    // of a few coord units at most, whatever the wait between the input and the frame. A
    // jump, or an entity without a reference, goes absolute at the frame's time.
    const relative = ref !== undefined && !jump;
    const age = relative ? Math.max(0, Math.round(this.time - s.t)) : 0;
    const t = this.time - age;
    const at = deadReckon(s, t);
    const qx = quantizeCoord(at.x);
    const qy = quantizeCoord(at.y);
    const qa = quantizeAngle(s.angle);
    const qs = s.moving && s.speed !== e.speed ? quantizeSpeed(s.speed) : -1;
    if (relative) {
      reckonRef(ref!, t, this.reckoned);
      writeRecordBody.moveBy(
        w,
        idDelta,
        qx - this.reckoned.qx,
        qy - this.reckoned.qy,
        qa === ref!.qa ? -1 : qa,
        s.moving,
        qs,
        age,
      );
    } else writeRecordBody.moveSteps(w, idDelta, qx, qy, qa, s.moving, jump, qs, 0);
    if (!ref) this.refs.set(e.id, (ref = { qx, qy, qa, moving: s.moving, qs: 0, t: 0 }));
    ref.qx = qx;
    ref.qy = qy;
    ref.qa = qa;
    ref.moving = s.moving;
    ref.qs = qs >= 0 ? qs : quantizeSpeed(e.speed);
    ref.t = t;
  }

  /**
   * A mob's motion. Fresh (its route changed this tick; the record goes to every holder):
   * its new route, HERE when it starts where the mob's reference puts it (a stop is a HERE
   * path with no waypoints), and the record becomes the reference. A spawn or resync: the
   * reference itself, aged, or where it has brought the mob to a stand; without one, the
   * mob's state as it is.
   */
  private writeMobMotion(w: Writer, m: Mob, idDelta: number, fresh: boolean): void {
    const route = m.route;
    const spawnQs = quantizeSpeed(m.speed);
    const qx = quantizeCoord(m.x);
    const qy = quantizeCoord(m.y);
    let ref = this.mobRefs.get(m.id);
    const at = this.reckoned;
    if (!fresh && ref) {
      const next = reckonPath(ref, this.time, at);
      if (next * 2 >= ref.pts.length)
        writeRecordBody.moveSteps(w, idDelta, at.qx, at.qy, at.qa, false, false, -1, 0);
      else {
        const qs = ref.qs === spawnQs ? -1 : ref.qs;
        writeRecordBody.pathSteps(w, idDelta, ref.qx, ref.qy, qs, ref.pts, this.time - ref.t);
      }
      return;
    }
    const waypoints = route && m.alive ? remainingRoute(route, this.time) : [];
    const pts = quantizePoints(waypoints);
    // A route that only stops the mob where it is (one point, here) is a stand.
    if (pts.length === 2 && pts[0] === qx && pts[1] === qy) pts.length = 0;
    const routeQs = route ? quantizeSpeed(route.speed) : spawnQs;
    const qs = pts.length === 0 || routeQs === spawnQs ? -1 : routeQs;
    let sx = qx;
    let sy = qy;
    let sa = quantizeAngle(m.facing);
    let here = false;
    if (fresh && ref) {
      reckonPath(ref, this.time, at);
      if (Math.abs(at.qx - qx) <= HERE_SLACK && Math.abs(at.qy - qy) <= HERE_SLACK) {
        here = true;
        sx = at.qx;
        sy = at.qy;
        if (pts.length === 0) sa = at.qa;
      }
    }
    if (here) writeRecordBody.pathSteps(w, idDelta, -1, -1, qs, pts);
    else if (pts.length === 0) writeRecordBody.moveSteps(w, idDelta, qx, qy, sa, false, false, -1, 0);
    else writeRecordBody.pathSteps(w, idDelta, qx, qy, qs, pts);
    if (!fresh) return;
    if (!ref) this.mobRefs.set(m.id, (ref = { qx: 0, qy: 0, qa: 0, qs: 0, t: 0, pts }));
    ref.qx = sx;
    ref.qy = sy;
    ref.qa = sa;
    ref.qs = routeQs;
    ref.t = this.time;
    ref.pts = pts;
  }

  /** `e`'s spawn block (spawn record + motion record), encoded once per tick. */
  private spawnBlock(e: Entity): { start: number; end: number } {
    const cached = this.spawns.get(e);
    if (cached) return cached;
    const w = this.scratch;
    const start = w.pos;
    writeRecordBody.spawn(w, e.id, {
      entity: e.kind,
      template: e.kind === 'mob' ? e.template.id : 0,
      name: e.name,
      level: e.level,
      health: e.health,
      maxHealth: e.maxHealth,
      speed: e.speed,
      appearance: e.appearance,
      alive: e.alive,
    });
    markBase(w.buf, start);
    this.writeMotion(w, e, 0, false);
    this.stats.records += 2;
    const block = { start, end: w.pos };
    this.spawns.set(e, block);
    return block;
  }

  // ---------------------------------------------------------------- per recipient

  private touch(playerId: number): Recipient | undefined {
    const r = this.recipients.get(playerId);
    if (!r || r.conn.closed) return undefined;
    if (r.tick !== this.tick) {
      r.tick = this.tick;
      r.frameStart = -1;
      r.opened = false;
      r.startPos = r.conn.out.pos;
      r.behind = r.conn.behind();
      this.touched.push(r);
    }
    return r;
  }

  private openFrame(r: Recipient): void {
    const out = r.conn.out;
    r.frameStart = out.pos;
    r.opened = true;
    r.lastId = 0;
    out.ensure(HEAD);
    out.pos += HEADER_SIZE;
    out.varint(this.tick - r.lastTick);
    out.varint(this.time - r.lastTime);
    r.lastTick = this.tick;
    r.lastTime = this.time;
  }

  private closeFrame(r: Recipient): void {
    const start = r.frameStart;
    if (start < 0) return;
    r.frameStart = -1;
    const out = r.conn.out;
    const b = out.buf;
    const size = out.pos - start;
    const crc = crc16(b, start + HEADER_SIZE, out.pos);
    b[start] = size;
    b[start + 1] = size >>> 8;
    b[start + 2] = WORLD_UPDATE & 0xff;
    b[start + 3] = WORLD_UPDATE >>> 8;
    b[start + 4] = crc;
    b[start + 5] = crc >>> 8;
  }

  /**
   * The recipient's cell runs, in order of their first ids. Each run is a block encoded once
   * for every observer of its cell, starting with a BASE record (an id counted from 0, 2 or 3
   * bytes for most ids); written after a run whose ids it follows, its first id is written
   * anew as a delta from the last one (usually 1 byte) without BASE: one varint per run, the
   * rest a byte copy. Runs of different cells hold different entities, so their order is free.
   */
  private writeRuns(r: Recipient): void {
    const runs = r.runs;
    if (runs.length === 0) return;
    // Insertion sort: a handful of runs, most often already nearly in order.
    for (let i = 1; i < runs.length; i++) {
      const x = runs[i]!;
      let j = i - 1;
      while (j >= 0 && runs[j]!.first > x.first) {
        runs[j + 1] = runs[j]!;
        j--;
      }
      runs[j + 1] = x;
    }
    const src = this.scratch.buf;
    for (let i = 0; i < runs.length; i++) {
      const b = runs[i]!;
      const out = r.conn.out;
      if (r.frameStart >= 0 && out.pos - r.frameStart + (b.end - b.start) > MAX_FRAME_SIZE)
        this.closeFrame(r);
      if (r.frameStart < 0) this.openFrame(r);
      if (r.lastId === 0 || b.first < r.lastId) out.rawRange(src, b.start, b.end);
      else {
        const tag = b.start + b.skip;
        out.varint(b.first - r.lastId);
        out.u8(src[tag]! & ~BASE);
        out.rawRange(src, tag + 1, b.end);
      }
      r.lastId = b.last;
    }
    runs.length = 0;
  }

  /** Copies one block into the recipient's open WorldUpdate frame (a new frame when full). */
  private append(r: Recipient, src: Uint8Array, start: number, end: number): void {
    const out = r.conn.out;
    if (r.frameStart >= 0 && out.pos - r.frameStart + (end - start) > MAX_FRAME_SIZE) this.closeFrame(r);
    if (r.frameStart < 0) this.openFrame(r);
    out.rawRange(src, start, end);
    // A block of its own (BASE): what follows is not counted from it.
    r.lastId = Number.MAX_SAFE_INTEGER;
  }

  private writeViewChanges(r: Recipient): void {
    const ops = r.ops;
    if (ops.length === 0) return;
    const w = this.scratch;
    for (let i = 0; i < ops.length;) {
      const op = ops[i]!;
      if (isEntity(op)) {
        const block = this.spawnBlock(op);
        this.append(r, w.buf, block.start, block.end);
        i++;
        continue;
      }
      // A run of despawns: one block, ids ascending, encoded for this recipient alone.
      let j = i;
      while (j < ops.length && !isEntity(ops[j]!)) j++;
      const gone = (ops.slice(i, j) as (number | Removal)[])
        .map((g) =>
          typeof g === 'number'
            ? { id: g, reason: 'outOfRange' as const }
            : { id: g.entity.id, reason: g.reason },
        )
        .sort((a, b) => a.id - b.id);
      const start = w.pos;
      let prev = 0;
      for (const g of gone) {
        writeRecordBody.despawn(w, g.id - prev, g.reason);
        prev = g.id;
      }
      markBase(w.buf, start);
      this.append(r, w.buf, start, w.pos);
      i = j;
    }
  }

  /** Motion state of everything the recipient sees, after motion was skipped. */
  private writeResync(r: Recipient): void {
    r.resync = false;
    this.resyncing.delete(r);
    const entities = [...r.player.visible.values()].sort(byId);
    const w = this.scratch;
    for (let i = 0; i < entities.length; i += RESYNC_BLOCK) {
      const chunk = entities.slice(i, i + RESYNC_BLOCK);
      const start = w.pos;
      let prev = 0;
      for (const e of chunk) {
        this.writeMotion(w, e, e.id - prev, false);
        prev = e.id;
      }
      markBase(w.buf, start);
      this.append(r, w.buf, start, w.pos);
    }
  }

  /** Appends a message frame (encoded once per tick), after the recipient's WorldUpdate unless `afterUpdate` is false. */
  private sink(afterUpdate: boolean): MessageSink {
    return {
      to: (id, msg) => this.message(id, msg, afterUpdate),
      toEach: (ids, also, msg) => {
        for (let i = 0; i < ids.length; i++) this.message(ids[i]!, msg, afterUpdate);
        if (also !== 0) this.message(also, msg, afterUpdate);
      },
      toZone: (msg) => {
        for (const r of this.recipients.values()) this.message(r.player.id, msg, afterUpdate);
      },
    };
  }

  private message(playerId: number, msg: Message, afterUpdate = true): void {
    const r = this.touch(playerId);
    if (!r) return;
    if (afterUpdate && !r.opened) {
      // Nothing yet this tick: an empty WorldUpdate still opens the batch with its time.
      this.openFrame(r);
      this.closeFrame(r);
    }
    const def = byName(msg.packet) as ServerPacket;
    let frame = this.frames.get(msg);
    if (!frame) {
      // Into the tick's scratch buffer: no allocation per message.
      const w = this.scratch;
      const start = w.pos;
      def.write(w, msg.data as never);
      frame = { start, end: w.pos };
      this.frames.set(msg, frame);
    }
    const size = frame.end - frame.start;
    if (def.delivery === 'droppable' && r.behind) {
      r.conn.skipped(def.opcode, size);
      this.stats.dropped += size;
      return;
    }
    r.conn.out.rawRange(this.scratch.buf, frame.start, frame.end);
  }
}

/** The id of the BASE record at `start` (its id delta varint, counted from 0). */
function firstId(buf: Uint8Array, start: number): number {
  let v = 0;
  let scale = 1;
  for (let i = start; ; i++) {
    const b = buf[i]!;
    v += (b & 0x7f) * scale;
    if (b < 0x80) return v;
    scale *= 128;
  }
}

function run(buf: Uint8Array, start: number, end: number, first: number, last: number): Run {
  let skip = 1;
  while (buf[start + skip - 1]! & 0x80) skip++;
  return { start, end, first, last, skip };
}

function isEntity(op: Entity | number | Removal): op is Entity {
  return typeof op !== 'number' && 'kind' in op;
}

function byId(a: Entity, b: Entity): number {
  return a.id - b.id;
}

function countBits(v: number): number {
  let n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}
