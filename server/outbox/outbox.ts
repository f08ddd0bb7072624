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
 *   A player's movement goes as a moveBy from the motion reference every holder of it keeps,
 *   a mob's new path HERE from its path reference; spawns and resyncs send the references
 *   (motion.ts).
 *   its other frames       chat, spell results, acks, errors (messages.ts decides which
 *                          events become which packets): each message encoded once
 *
 * A client whose buffer is over the soft limit at its first write of the tick is behind for
 * the whole tick: its motion blocks and droppable frames are skipped (whole sections, never
 * parts), and it gets a resync of its view's motion once it has caught up. The limits are
 * checked once per client per tick, and each client's appends are committed once.
 *
 * Its rooms: recipient.ts (the recipients and their tick state), cells.ts (cell and spawn
 * blocks, encoded once), motion.ts (motion records and references), frames.ts (WorldUpdate
 * frames in a client's buffer), views.ts (a client's view changes and resyncs),
 * keep-time.ts (the empty WorldUpdate that keeps a client's time), message-frames.ts (the
 * tick's messages); this file wires them and runs a tick's delivery in the order above.
 */
import { Writer } from '../../shared/codec/writer.js';
import type { Player, World, WorldEvent } from '../world/index.js';
import { CellEncoder } from './cells.js';
import { WORLD_UPDATE, WorldUpdateFrames } from './frames.js';
import { KeepTime } from './keep-time.js';
import { MessageFrames } from './message-frames.js';
import { messages, type StepClock } from './messages.js';
import { MotionWriter } from './motion.js';
import { Recipients, type OutboxSink, type OutboxStats } from './recipient.js';
import { ViewWriter } from './views.js';

export type { OutboxSink, OutboxStats } from './recipient.js';

/**
 * The wiring of the rooms above: it reads a tick's events into them, then has them write in
 * the documented order (cell runs, view changes, resyncs, kept time, messages) and commits.
 */
export class Outbox implements StepClock {
  readonly stats: OutboxStats = { encoded: 0, queued: 0, dropped: 0, recipients: 0, records: 0 };
  /** The tick and time being delivered (EnterWorld carries them). */
  tick = 0;
  time = 0;
  /** This tick's shared encodings: cell blocks, spawn blocks, despawn and resync blocks, messages. */
  private readonly scratch = new Writer(16 * 1024);
  private readonly recipients = new Recipients(this);
  private readonly motion = new MotionWriter(this);
  private readonly cells = new CellEncoder(this.scratch, this.motion, this.stats);
  private readonly frames = new WorldUpdateFrames(this);
  private readonly views = new ViewWriter(this.scratch, this.cells, this.motion, this.frames);
  private readonly messageFrames = new MessageFrames(this.scratch, this.recipients, this.frames, this.stats);
  private readonly keepTime = new KeepTime(this, this.recipients, this.frames);

  /** From now on, `player`'s bytes go to `conn`. */
  add(player: Player, conn: OutboxSink): void {
    this.recipients.add(player, conn);
  }

  remove(playerId: number): void {
    this.recipients.remove(playerId);
  }

  /** Writes one tick's events (the world as that step left it) into the connections of the players they concern. */
  deliver(events: readonly WorldEvent[], world: World, tick: number, time: number): void {
    this.tick = tick;
    // Whole ms (the zone host rounds its clock): heads carry time as varints.
    this.time = time;
    const stats = this.stats;
    stats.encoded = stats.queued = stats.dropped = stats.recipients = stats.records = 0;
    this.scratch.reset();

    for (const e of events) this.read(e, world);
    this.cells.encode();
    this.routeCells(world);
    const touched = this.recipients.touched;
    for (const r of touched) this.frames.writeRuns(r, this.scratch.buf);
    for (const r of touched) this.views.writeViewChanges(r);
    this.writeResyncs();
    this.keepTime.keep(world);
    for (const r of touched) this.frames.close(r);
    for (const e of events)
      if (e.type !== 'entered' && e.type !== 'arrived') messages(world, this, e, this.messageFrames.after);

    this.recipients.commit(stats);
    stats.encoded += this.scratch.pos;
    this.cells.clear();
    this.messageFrames.clear();
  }

  /** Takes in one event: a recipient's state or view change, or a change to an entity's cell blocks. */
  private read(e: WorldEvent, world: World): void {
    switch (e.type) {
      case 'joined': {
        const r = this.recipients.byId.get(e.playerId);
        if (r) {
          r.entering = true;
          // EnterWorld carries this tick and time: the first head counts from them.
          r.lastTick = this.tick;
          r.lastTime = this.time;
        }
        return;
      }
      case 'entered':
      case 'arrived':
        // Entering the world or the zone: the client learns where it is before what it sees.
        if (this.recipients.byId.get(e.player.id)?.entering)
          messages(world, this, e, this.messageFrames.before);
        return;
      case 'seen':
      case 'unseen':
        this.recipients.touch(e.observerId)?.ops.push(e.type === 'seen' ? e.entity : e.entityId);
        return;
      case 'motion':
        return this.cells.moved(e.entity, e.jump);
      case 'path':
        return this.cells.pathChanged(e.entity);
      case 'health':
        return this.cells.healthChanged(e.entity);
      case 'died':
        return this.cells.died(e.entity, e.killerId);
      case 'respawned':
        return this.cells.respawned(e.entity);
      case 'removed':
        return this.removed(e);
      default:
        return;
    }
  }

  private removed(e: Extract<WorldEvent, { type: 'removed' }>): void {
    const removal = { entity: e.entity, reason: e.reason };
    this.cells.removed(removal, e.cell);
    // Those who saw it but whose view let go of the cell this tick miss the cell's block.
    for (const id of e.observers) {
      const r = this.recipients.byId.get(id);
      if (r && !r.player.viewCells.has(e.cell)) this.recipients.touch(id)?.ops.push(removal);
    }
  }

  /** Gives each observer of a changed cell the cell's runs: both blocks, or the reliable one alone when its motion is skipped or resent. */
  private routeCells(world: World): void {
    const cellObservers = world.cellObservers;
    const stats = this.stats;
    for (const [cell, blocks] of this.cells.cells) {
      const motion = blocks.motEnd > blocks.mot;
      const observers = cellObservers[cell]!.slots();
      for (let i = 0; i < observers.length; i++) {
        const o = observers[i];
        if (o === undefined) continue;
        const r = this.recipients.touch(o.id);
        if (!r) continue;
        // A resync this tick sends every state in view anew, these included.
        if (!motion || (!r.behind && !r.resync)) r.runs.push(blocks.all!);
        else {
          if (blocks.relOnly) r.runs.push(blocks.relOnly);
          if (r.behind) {
            this.recipients.owe(r);
            r.conn.skipped(WORLD_UPDATE, blocks.motEnd - blocks.mot);
            stats.dropped += blocks.motEnd - blocks.mot;
          }
        }
      }
    }
  }

  /** The view's motion for each recipient owed a resync that is no longer behind. */
  private writeResyncs(): void {
    const recipients = this.recipients;
    for (const r of recipients.resyncing) {
      if (r.conn.closed) recipients.resyncing.delete(r);
      else if (!recipients.touch(r.player.id)!.behind) {
        recipients.settle(r);
        this.views.writeResync(r);
      }
    }
  }
}
