/**
 * The blocks one recipient gets for its own view, after its cell runs: its view changes in
 * order (a run of despawns as one block encoded for it alone, ids ascending; each entity it
 * sees anew as that entity's shared spawn block), and, once it has caught up after skipped
 * motion, a resync: the motion state of everything it sees, RESYNC_BLOCK records a block.
 */
import type { Writer } from '../../shared/codec/writer.js';
import { markBase, writeRecordBody } from '../../shared/protocol/index.js';
import type { Entity } from '../world/index.js';
import { byId, type CellEncoder } from './cells.js';
import type { WorldUpdateFrames } from './frames.js';
import type { MotionWriter } from './motion.js';
import type { Recipient, Removal } from './recipient.js';

/** Records per resync block, so one block always fits a frame. */
const RESYNC_BLOCK = 1024;

export class ViewWriter {
  constructor(
    private readonly scratch: Writer,
    private readonly cells: CellEncoder,
    private readonly motion: MotionWriter,
    private readonly frames: WorldUpdateFrames,
  ) {}

  writeViewChanges(r: Recipient): void {
    const ops = r.ops;
    if (ops.length === 0) return;
    const w = this.scratch;
    for (let i = 0; i < ops.length;) {
      const op = ops[i]!;
      if (isEntity(op)) {
        const block = this.cells.spawnBlock(op);
        this.frames.append(r, w.buf, block.start, block.end);
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
      this.frames.append(r, w.buf, start, w.pos);
      i = j;
    }
  }

  /** Motion state of everything the recipient sees, after motion was skipped. */
  writeResync(r: Recipient): void {
    const entities = [...r.player.visible.values()].sort(byId);
    const w = this.scratch;
    for (let i = 0; i < entities.length; i += RESYNC_BLOCK) {
      const chunk = entities.slice(i, i + RESYNC_BLOCK);
      const start = w.pos;
      let prev = 0;
      for (const e of chunk) {
        this.motion.write(w, e, e.id - prev, false);
        prev = e.id;
      }
      markBase(w.buf, start);
      this.frames.append(r, w.buf, start, w.pos);
    }
  }
}

function isEntity(op: Entity | number | Removal): op is Entity {
  return typeof op !== 'number' && 'kind' in op;
}
