/**
 * The tick's shared encodings of entity state, each written once into the scratch buffer
 * however many clients get it:
 *
 *   a changed cell's blocks   reliable (respawns, health, deaths, departures), then motion
 *                             (movement states, mob paths), each a BASE record and id deltas
 *   an entity's spawn block   spawn record · motion record, for each client that sees it anew
 *
 * Observers get a cell's blocks as runs (recipient.ts): both blocks, or the reliable one
 * alone for a client whose motion is skipped or resent.
 */
import type { Writer } from '../../shared/codec/writer.js';
import { markBase, writeRecordBody } from '../../shared/protocol/index.js';
import type { Entity } from '../world/index.js';
import type { MotionWriter } from './motion.js';
import type { OutboxStats, Removal, Run } from './recipient.js';

/** Bits of what changed about an entity this tick. */
const MOTION = 1;
const PATH = 2;
const HEALTH = 4;
const DIED = 8;
const RESPAWNED = 16;
const JUMP = 32;
const RELIABLE = HEALTH | DIED | RESPAWNED;
const MOVEMENT = MOTION | PATH;

/** A cell's encoded blocks this tick, back to back in the scratch buffer, and the runs an observer gets. */
export interface CellBlocks {
  rel: number;
  relEnd: number;
  mot: number;
  motEnd: number;
  all: Run | null;
  relOnly: Run | null;
}

export class CellEncoder {
  /** Each changed cell's blocks this tick. */
  readonly cells = new Map<number, CellBlocks>();
  private readonly changed = new Map<Entity, number>();
  private readonly killers = new Map<Entity, number>();
  private readonly removals = new Map<number, Removal[]>();
  /** Each spawned entity's block this tick: [start, end) in the scratch buffer. */
  private readonly spawns = new Map<Entity, { start: number; end: number }>();

  constructor(
    private readonly scratch: Writer,
    private readonly motion: MotionWriter,
    private readonly stats: OutboxStats,
  ) {}

  moved(e: Entity, jump: boolean): void {
    this.mark(e, jump ? MOTION | JUMP : MOTION);
  }

  pathChanged(e: Entity): void {
    this.mark(e, PATH);
  }

  healthChanged(e: Entity): void {
    this.mark(e, HEALTH);
  }

  died(e: Entity, killerId: number): void {
    this.mark(e, DIED);
    this.killers.set(e, killerId);
    this.motion.forgetPath(e.id);
  }

  respawned(e: Entity): void {
    this.mark(e, RESPAWNED);
    this.motion.forgetPath(e.id);
  }

  /** `removal.entity` left `cell`: its observers there get a despawn in the cell's block. */
  removed(removal: Removal, cell: number): void {
    this.motion.forget(removal.entity.id);
    let list = this.removals.get(cell);
    if (!list) this.removals.set(cell, (list = []));
    list.push(removal);
  }

  /** Each changed cell's reliable and motion blocks, once, into the scratch buffer. */
  encode(): void {
    const byCell = new Map<number, Entity[]>();
    for (const e of this.changed.keys()) {
      if (e.cell < 0) continue;
      let list = byCell.get(e.cell);
      if (!list) byCell.set(e.cell, (list = []));
      list.push(e);
    }
    for (const cell of this.removals.keys()) if (!byCell.has(cell)) byCell.set(cell, []);
    for (const [cell, entities] of byCell) this.encodeCell(cell, entities, this.removals.get(cell));
  }

  /** `e`'s spawn block (spawn record + motion record), encoded once per tick. */
  spawnBlock(e: Entity): { start: number; end: number } {
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
    this.motion.write(w, e, 0, false);
    this.stats.records += 2;
    const block = { start, end: w.pos };
    this.spawns.set(e, block);
    return block;
  }

  /** Forgets the tick's changes and encodings (the scratch buffer is reset with them). */
  clear(): void {
    this.changed.clear();
    this.killers.clear();
    this.removals.clear();
    this.cells.clear();
    this.spawns.clear();
  }

  private mark(e: Entity, bits: number): void {
    this.changed.set(e, (this.changed.get(e) ?? 0) | bits);
  }

  private encodeCell(cell: number, entities: Entity[], removed: Removal[] | undefined): void {
    const w = this.scratch;
    entities.sort(byId);
    removed?.sort(byRemovedId);
    const at = w.pos;
    const blocks: CellBlocks = { rel: at, relEnd: at, mot: at, motEnd: at, all: null, relOnly: null };
    let first = -1;
    let last = this.writeReliable(w, entities, removed);
    if (last >= 0) {
      markBase(w.buf, blocks.rel);
      blocks.relEnd = blocks.mot = blocks.motEnd = w.pos;
      first = firstId(w.buf, blocks.rel);
      blocks.relOnly = run(w.buf, blocks.rel, blocks.relEnd, first, last);
    }
    const lastMoved = this.writeMovement(w, entities);
    if (lastMoved >= 0) {
      markBase(w.buf, blocks.mot);
      blocks.motEnd = w.pos;
      last = lastMoved;
      if (first < 0) first = firstId(w.buf, blocks.mot);
    }
    if (first < 0) return;
    blocks.all = run(w.buf, blocks.rel, blocks.motEnd, first, last);
    this.cells.set(cell, blocks);
  }

  /** The cell's reliable records in id order, departures merged in; the last id, or -1 when none. */
  private writeReliable(
    w: Writer,
    entities: readonly Entity[],
    removed: readonly Removal[] | undefined,
  ): number {
    let n = removed ? removed.length : 0;
    for (const e of entities) n += countBits(this.changed.get(e)! & RELIABLE);
    if (n === 0) return -1;
    this.stats.records += n;
    let prev = 0;
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
    return prev;
  }

  /** The cell's fresh motion records in id order; the last id, or -1 when none. */
  private writeMovement(w: Writer, entities: readonly Entity[]): number {
    let m = 0;
    for (const e of entities) if (this.changed.get(e)! & MOVEMENT) m++;
    if (m === 0) return -1;
    this.stats.records += m;
    let prev = 0;
    for (const e of entities) {
      const bits = this.changed.get(e)!;
      if (!(bits & MOVEMENT)) continue;
      this.motion.write(w, e, e.id - prev, true, (bits & JUMP) !== 0);
      prev = e.id;
    }
    return prev;
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

export function byId(a: Entity, b: Entity): number {
  return a.id - b.id;
}

function byRemovedId(a: Removal, b: Removal): number {
  return a.entity.id - b.entity.id;
}

function countBits(v: number): number {
  let n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}
