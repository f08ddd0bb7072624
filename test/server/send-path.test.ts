import { describe, expect, it } from 'vitest';
import type { Writer } from '../../shared/codec/writer.js';
import {
  OUT_FIT_FLUSHES,
  OUT_INITIAL_CAPACITY,
  OUT_SHRINK_ABOVE,
  type ConnectionInput,
  type SendObserver,
} from '../../server/transport/connection.js';
import { FlushScheduler } from '../../server/transport/flush.js';
import { MemoryConnection } from '../../server/transport/memory.js';

/** A whole-looking frame of `size` bytes whose header carries `opcode`. */
function frame(size: number, opcode = 0x0304, fill = 0): Uint8Array {
  const f = new Uint8Array(size).fill(fill);
  f[0] = size & 0xff;
  f[1] = size >> 8;
  f[2] = opcode & 0xff;
  f[3] = opcode >> 8;
  return f;
}

/** Appends the same bytes as `frame(size, opcode, fill)` straight into a connection's buffer. */
function appendFrame(out: Writer, size: number, opcode = 0x0304, fill = 0): void {
  const start = out.pos;
  out.u16(size);
  out.u16(opcode);
  out.ensure(size - 4);
  out.buf.fill(fill, out.pos, start + size);
  out.pos = start + size;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function counting(): SendObserver & {
  drops: number[];
  queuedFrames: number;
  queuedLog: [number, number][];
  droppedLog: [number, number][];
} {
  const o = {
    drops: [] as number[],
    queuedFrames: 0,
    queuedLog: [] as [number, number][],
    droppedLog: [] as [number, number][],
    queued(opcode: number, bytes: number) {
      o.queuedFrames++;
      o.queuedLog.push([opcode, bytes]);
    },
    dropped(opcode: number, bytes: number) {
      o.drops.push(opcode);
      o.droppedLog.push([opcode, bytes]);
    },
  };
  return o;
}

function manualScheduler(): FlushScheduler {
  return new FlushScheduler(() => {});
}

function conn(
  opts: { soft?: number; hard?: number; scheduler?: FlushScheduler; observer?: SendObserver } = {},
) {
  return new MemoryConnection({
    limits: { softLimit: opts.soft ?? 100, hardLimit: opts.hard ?? 1000 },
    scheduler: opts.scheduler ?? manualScheduler(),
    observer: opts.observer,
  });
}

function recordingInput(c: MemoryConnection): ConnectionInput & { events: string[] } {
  const events: string[] = [];
  const input = {
    events,
    data() {},
    violation() {},
    slowConsumer() {
      events.push('slowConsumer');
    },
    closed(reason: string) {
      events.push(`closed:${reason}`);
    },
  };
  c.bind(input);
  return input;
}

describe('connection send path', () => {
  it('writes everything queued for a connection in one write per flush', () => {
    const scheduler = manualScheduler();
    const c = conn({ scheduler });
    c.send(frame(10), 'reliable');
    c.send(frame(12), 'reliable');
    c.send(frame(14), 'droppable');
    expect(c.writes).toHaveLength(0);
    scheduler.flushAll();
    expect(c.writes.map((w) => w.length)).toEqual([36]);
    scheduler.flushAll();
    expect(c.writes).toHaveLength(1);
  });

  it('sends frames from send() and from direct appends in one write, in order, byte for byte', () => {
    const scheduler = manualScheduler();
    const c = conn({ scheduler, soft: 10_000, hard: 100_000 });
    const expected: Uint8Array[] = [];
    for (let i = 0; i < 50; i++) {
      const size = 8 + (i % 13);
      if (i % 3 === 0) {
        expect(c.send(frame(size, 0x0100 + i, i), i % 2 ? 'droppable' : 'reliable')).toBe(true);
      } else {
        appendFrame(c.out, size, 0x0100 + i, i);
        if (i % 5 === 0) expect(c.commit()).toBe(true);
      }
      expected.push(frame(size, 0x0100 + i, i));
    }
    expect(c.commit()).toBe(true);
    expect(c.writes).toHaveLength(0);
    expect(scheduler.pending).toBe(1);
    scheduler.flushAll();
    expect(c.writes).toHaveLength(1);
    expect(c.writes[0]).toEqual(concat(expected));
    expect(c.out.pos).toBe(0);
    expect(c.bufferedBytes()).toBe(0);
  });

  it('asks the scheduler for one flush however many frames are queued', () => {
    let deferred = 0;
    const scheduler = new FlushScheduler(() => deferred++);
    const a = conn({ scheduler });
    const b = conn({ scheduler });
    for (let i = 0; i < 5; i++) {
      a.send(frame(10), 'reliable');
      appendFrame(b.out, 10);
      b.commit();
    }
    expect(deferred).toBe(1);
    expect(scheduler.pending).toBe(2);
  });

  it('visits connections round-robin, starting one further each flush', () => {
    const order: string[] = [];
    const scheduler = manualScheduler();
    const conns = ['a', 'b', 'c'].map((name) => {
      const c = conn({ scheduler });
      const flush = c.flush.bind(c);
      c.flush = () => {
        order.push(name);
        flush();
      };
      return c;
    });
    for (let round = 0; round < 3; round++) {
      for (const c of conns) c.send(frame(10), 'reliable');
      scheduler.flushAll();
    }
    expect(order.join('')).toBe('abc' + 'bca' + 'cab');
  });

  it('skips droppable frames while over the soft limit and counts them by opcode', () => {
    const observer = counting();
    const c = conn({ soft: 100, hard: 1000, observer });
    c.socketBytes = 150;
    expect(c.send(frame(10, 0x0304), 'droppable')).toBe(false);
    expect(c.send(frame(10, 0x0306), 'droppable')).toBe(false);
    expect(c.send(frame(10, 0x0303), 'reliable')).toBe(true);
    expect(observer.drops).toEqual([0x0304, 0x0306]);
    expect(observer.queuedFrames).toBe(1);
    expect(c.out.pos).toBe(10);
    c.socketBytes = 0;
    c.flush();
    expect(c.send(frame(10, 0x0304), 'droppable')).toBe(true);
  });

  it('counts its own buffer toward the soft limit', () => {
    const c = conn({ soft: 25, hard: 1000 });
    expect(c.send(frame(20), 'droppable')).toBe(true);
    expect(c.send(frame(20), 'droppable')).toBe(true);
    expect(c.send(frame(20), 'droppable')).toBe(false);
    expect(c.bufferedBytes()).toBe(40);
  });

  it('counts the socket buffer toward both limits', () => {
    const c = conn({ soft: 100, hard: 200 });
    recordingInput(c);
    c.socketBytes = 95;
    expect(c.send(frame(10), 'droppable')).toBe(true);
    expect(c.bufferedBytes()).toBe(105);
    expect(c.send(frame(10), 'droppable')).toBe(false);
    expect(c.send(frame(10), 'reliable')).toBe(true);
    c.socketBytes = 185;
    expect(c.send(frame(10), 'reliable')).toBe(false);
    expect(c.out.pos).toBe(0);
  });

  it('says behind() once buffered bytes pass the soft limit, and not at it', () => {
    const observer = counting();
    const c = conn({ soft: 100, hard: 1000, observer });
    expect(c.behind()).toBe(false);
    appendFrame(c.out, 60);
    c.commit();
    expect(c.behind()).toBe(false);
    c.socketBytes = 40;
    expect(c.behind()).toBe(false);
    c.socketBytes = 41;
    expect(c.behind()).toBe(true);
    c.socketBytes = 0;
    appendFrame(c.out, 41);
    c.commit();
    expect(c.behind()).toBe(true);
    c.skipped(0x0307, 33);
    expect(observer.droppedLog).toEqual([[0x0307, 33]]);
    c.flush();
    expect(c.behind()).toBe(false);
  });

  it('counts what commit() finds, frame by frame, per opcode', () => {
    const observer = counting();
    const c = conn({ observer, soft: 1000, hard: 10_000 });
    appendFrame(c.out, 20, 0x0301);
    appendFrame(c.out, 30, 0x0302);
    appendFrame(c.out, 6, 0x0301);
    expect(observer.queuedLog).toEqual([]);
    expect(c.commit()).toBe(true);
    expect(observer.queuedLog).toEqual([
      [0x0301, 20],
      [0x0302, 30],
      [0x0301, 6],
    ]);
    // Only what was appended since the last commit is counted.
    appendFrame(c.out, 12, 0x0303);
    expect(c.commit()).toBe(true);
    expect(c.commit()).toBe(true);
    expect(observer.queuedLog.slice(3)).toEqual([[0x0303, 12]]);
  });

  it('counts a frame whose header is filled in last at the commit after it is complete', () => {
    const observer = counting();
    const c = conn({ observer, soft: 1000, hard: 10_000 });
    appendFrame(c.out, 10, 0x0301);
    const open = c.out.pos;
    c.out.ensure(6);
    c.out.pos += 6; // an open frame: header still zero
    c.out.u32(7);
    c.commit();
    expect(observer.queuedLog).toEqual([[0x0301, 10]]);
    c.out.patchU16(open, 10);
    c.out.patchU16(open + 2, 0x0302);
    appendFrame(c.out, 8, 0x0303);
    c.commit();
    expect(observer.queuedLog).toEqual([
      [0x0301, 10],
      [0x0302, 10],
      [0x0303, 8],
    ]);
  });

  it('discards the buffer and reports a slow consumer at the hard limit, once', () => {
    const c = conn({ soft: 100, hard: 200 });
    const input = recordingInput(c);
    c.socketBytes = 150;
    expect(c.send(frame(40), 'reliable')).toBe(true);
    expect(c.send(frame(40), 'reliable')).toBe(false);
    expect(c.bufferedBytes()).toBe(150);
    expect(c.send(frame(100), 'reliable')).toBe(false);
    expect(input.events).toEqual(['slowConsumer']);
  });

  it('discards the buffer when a commit takes it past the hard limit, and tells slowConsumer once', () => {
    const observer = counting();
    const c = conn({ soft: 100, hard: 1000, observer });
    const input = recordingInput(c);
    appendFrame(c.out, 500, 0x0301);
    expect(c.commit()).toBe(true);
    appendFrame(c.out, 400, 0x0302);
    appendFrame(c.out, 200, 0x0303);
    expect(c.commit()).toBe(false);
    expect(input.events).toEqual(['slowConsumer']);
    expect(c.out.pos).toBe(0);
    expect(c.bufferedBytes()).toBe(0);
    expect(observer.droppedLog).toEqual([
      [0x0302, 400],
      [0x0303, 200],
    ]);
    // The input did not close it: more over the limit is refused without a second report.
    appendFrame(c.out, 1100, 0x0304);
    expect(c.commit()).toBe(false);
    expect(c.out.pos).toBe(0);
    expect(input.events).toEqual(['slowConsumer']);
    c.flush();
    expect(c.writes).toEqual([]);
  });

  it('lets the last error through when it fits, then closes', () => {
    const c = conn({ soft: 100, hard: 200 });
    recordingInput(c);
    c.socketBytes = 150;
    c.send(frame(40), 'reliable');
    c.send(frame(40), 'reliable');
    expect(c.send(frame(30, 0x0005), 'reliable')).toBe(true);
    c.close('slow consumer');
    expect(c.writes.map((w) => w.length)).toEqual([30]);
    expect(c.closeReason).toBe('slow consumer');
  });

  it('closes a slow consumer that has no input bound', () => {
    const c = conn({ soft: 10, hard: 20 });
    c.send(frame(30), 'reliable');
    expect(c.closed).toBe(true);
    expect(c.closeReason).toBe('slow consumer');
  });

  it('flushes buffered frames before closing and refuses frames after', () => {
    const c = conn();
    const input = recordingInput(c);
    c.send(frame(10), 'reliable');
    c.close('bye');
    expect(c.writes.map((w) => w.length)).toEqual([10]);
    expect(c.send(frame(10), 'reliable')).toBe(false);
    appendFrame(c.out, 10);
    expect(c.commit()).toBe(false);
    expect(c.out.pos).toBe(0);
    expect(input.events).toEqual(['closed:bye']);
  });

  it('tells a connection closed before its input was bound, once', () => {
    const c = conn();
    c.close('refused');
    const input = recordingInput(c);
    c.peerClose();
    expect(input.events).toEqual(['closed:refused']);
  });
});

describe('connection buffer memory', () => {
  it('starts small', () => {
    const c = conn();
    expect(c.bufferedBytes()).toBe(0);
    expect(c.out.buf.length).toBe(OUT_INITIAL_CAPACITY);
    expect(OUT_INITIAL_CAPACITY).toBeLessThanOrEqual(4096);
  });

  it('reuses one buffer across flushes in the steady state, and each write keeps its own bytes', () => {
    const c = conn({ soft: 10_000, hard: 100_000 });
    const tick = (fill: number) => {
      for (let i = 0; i < 20; i++) appendFrame(c.out, 50, 0x0301, fill);
      c.commit();
      c.flush();
    };
    tick(1);
    const backing = c.out.buf.buffer;
    tick(2);
    tick(3);
    expect(c.out.buf.buffer).toBe(backing);
    expect(c.writes.map((w) => w.length)).toEqual([1000, 1000, 1000]);
    expect(c.writes.map((w) => w[10])).toEqual([1, 2, 3]);
  });

  it('leaves a write the socket keeps queued to the socket, and appends into new memory', () => {
    const c = conn();
    c.holdsWrites = true;
    appendFrame(c.out, 40, 0x0401, 1);
    c.commit();
    c.flush();
    const held = c.writes[0]!;
    appendFrame(c.out, 40, 0x0401, 2);
    c.commit();
    c.flush();
    expect(held).toEqual(frame(40, 0x0401, 1));
    expect(c.writes[1]).toEqual(frame(40, 0x0401, 2));
    expect(c.writes[1]!.buffer).not.toBe(held.buffer);
  });

  it('shrinks after a spike once a flush is small again', () => {
    const c = conn({ soft: 1_000_000, hard: 1_000_000 });
    for (let i = 0; i < 200; i++) c.send(frame(1000, 0x0301, i & 0xff), 'reliable');
    c.flush();
    expect(c.writes[0]!.length).toBe(200_000);
    // The big flush itself needed the room: kept.
    expect(c.out.buf.length).toBeGreaterThan(OUT_SHRINK_ABOVE);
    c.send(frame(100, 0x0302, 7), 'reliable');
    c.flush();
    expect(c.writes[1]).toEqual(frame(100, 0x0302, 7));
    expect(c.out.buf.length).toBeLessThanOrEqual(4096);
    // And it grows again when needed.
    c.send(frame(5000, 0x0303, 9), 'reliable');
    c.flush();
    expect(c.writes[2]).toEqual(frame(5000, 0x0303, 9));
  });

  it('fits a buffer a burst grew to its use once flushes have stayed small for a while', () => {
    const c = conn({ soft: 100_000, hard: 200_000 });
    // Entering the world: every entity in view spawned in one tick.
    for (let i = 0; i < 8; i++) appendFrame(c.out, 1000, 0x0301, i);
    c.commit();
    c.flush();
    const grown = c.out.buf.length;
    expect(grown).toBeGreaterThanOrEqual(8192);
    const tick = (size: number) => {
      appendFrame(c.out, size, 0x0301, 5);
      c.commit();
      c.flush();
    };
    for (let i = 0; i < OUT_FIT_FLUSHES - 1; i++) tick(i % 2 === 0 ? 120 : 300);
    expect(c.out.buf.length).toBe(grown);
    tick(100);
    // The room the largest recent flush needs (300 bytes, twice over), no more.
    expect(c.out.buf.length).toBe(1024);
    expect(c.writes.at(-1)).toEqual(frame(100, 0x0301, 5));
    // And it grows again when needed.
    appendFrame(c.out, 5000, 0x0303, 9);
    c.commit();
    c.flush();
    expect(c.writes.at(-1)).toEqual(frame(5000, 0x0303, 9));
  });

  it('keeps a buffer that some flushes still fill past a quarter', () => {
    const c = conn({ soft: 100_000, hard: 200_000 });
    appendFrame(c.out, 4000);
    c.commit();
    c.flush();
    const grown = c.out.buf.length;
    for (let i = 0; i < 3 * OUT_FIT_FLUSHES; i++) {
      appendFrame(c.out, i % 10 === 0 ? 4000 : 100);
      c.commit();
      c.flush();
    }
    expect(c.out.buf.length).toBe(grown);
  });

  it('never grows the buffer for a frame that cannot fit', () => {
    const c = conn({ soft: 100, hard: 1000 });
    recordingInput(c);
    c.send(frame(10), 'reliable');
    expect(c.send(frame(60_000), 'reliable')).toBe(false);
    expect(c.out.buf.length).toBe(OUT_INITIAL_CAPACITY);
  });

  it('lets the buffer go after a cut made it large', () => {
    const c = conn({ soft: 100_000, hard: 200_000 });
    recordingInput(c);
    for (let i = 0; i < 150; i++) appendFrame(c.out, 1000);
    expect(c.commit()).toBe(true);
    for (let i = 0; i < 60; i++) appendFrame(c.out, 1000);
    expect(c.commit()).toBe(false);
    expect(c.out.buf.length).toBe(OUT_INITIAL_CAPACITY);
  });
});
