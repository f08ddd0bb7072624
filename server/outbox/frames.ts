/**
 * A recipient's WorldUpdate frames, written in place in its connection buffer:
 *
 *   header (HEADER_SIZE: size u16 · opcode u16 · crc16 u16, filled in when the frame closes)
 *   head   tick delta varint · time delta varint (from its previous WorldUpdate or EnterWorld)
 *   blocks copied as bytes from the tick's shared encodings
 *
 * A block that would take a frame over MAX_FRAME_SIZE closes it and opens the next.
 */
import { crc16 } from '../../shared/codec/crc16.js';
import { HEADER_SIZE, MAX_FRAME_SIZE } from '../../shared/codec/frame.js';
import { BASE, WorldUpdate } from '../../shared/protocol/index.js';
import type { StepClock } from './messages.js';
import type { Recipient } from './recipient.js';

export const WORLD_UPDATE = WorldUpdate.opcode;
/** Room for a frame's header and the two head varints. */
const HEAD = HEADER_SIZE + 10;

export class WorldUpdateFrames {
  constructor(private readonly clock: StepClock) {}

  /** Opens a frame whose head counts on from the recipient's previous one. */
  open(r: Recipient): void {
    const out = r.conn.out;
    const { tick, time } = this.clock;
    r.frameStart = out.pos;
    r.opened = true;
    r.lastId = 0;
    out.ensure(HEAD);
    out.pos += HEADER_SIZE;
    out.varint(tick - r.lastTick);
    out.varint(time - r.lastTime);
    r.lastTick = tick;
    r.lastTime = time;
  }

  /** Fills in the open frame's header, if one is open. */
  close(r: Recipient): void {
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

  /** Copies one block into the recipient's open WorldUpdate frame (a new frame when full). */
  append(r: Recipient, src: Uint8Array, start: number, end: number): void {
    this.room(r, end - start);
    r.conn.out.rawRange(src, start, end);
    // A block of its own (BASE): what follows is not counted from it.
    r.lastId = Number.MAX_SAFE_INTEGER;
  }

  /**
   * The recipient's cell runs, in order of their first ids. Each run is a block encoded once
   * for every observer of its cell, starting with a BASE record (an id counted from 0, 2 or 3
   * bytes for most ids); written after a run whose ids it follows, its first id is written
   * anew as a delta from the last one (usually 1 byte) without BASE: one varint per run, the
   * rest a byte copy. Runs of different cells hold different entities, so their order is free.
   */
  writeRuns(r: Recipient, src: Uint8Array): void {
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
    for (let i = 0; i < runs.length; i++) {
      const b = runs[i]!;
      const out = r.conn.out;
      this.room(r, b.end - b.start);
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

  /** An open frame with room for `bytes` more: the open one, or a new one when it would overflow. */
  private room(r: Recipient, bytes: number): void {
    if (r.frameStart >= 0 && r.conn.out.pos - r.frameStart + bytes > MAX_FRAME_SIZE) this.close(r);
    if (r.frameStart < 0) this.open(r);
  }
}
