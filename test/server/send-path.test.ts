import { describe, expect, it } from 'vitest';
import { SendQueue, type ConnectionInput, type SendObserver } from '../../server/transport/connection.js';
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

function counting(): SendObserver & { drops: number[]; queuedFrames: number } {
  const o = {
    drops: [] as number[],
    queuedFrames: 0,
    queued() {
      o.queuedFrames++;
    },
    dropped(opcode: number) {
      o.drops.push(opcode);
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

describe('SendQueue', () => {
  it('concatenates everything queued into one array and empties itself', () => {
    const q = new SendQueue({ softLimit: 100, hardLimit: 1000 }, () => 0);
    q.admit(frame(10, 1, 1), 'reliable');
    q.admit(frame(20, 2, 2), 'droppable');
    const out = q.take()!;
    expect(out.length).toBe(30);
    expect(out[9]).toBe(1);
    expect(out[10]).toBe(20);
    expect(q.take()).toBeUndefined();
    expect(q.queuedBytes).toBe(0);
  });

  it('counts the socket buffer toward both limits', () => {
    let socket = 95;
    const q = new SendQueue({ softLimit: 100, hardLimit: 200 }, () => socket);
    expect(q.admit(frame(10), 'droppable')).toBe('queued');
    expect(q.admit(frame(10), 'droppable')).toBe('dropped');
    expect(q.admit(frame(10), 'reliable')).toBe('queued');
    socket = 190;
    expect(q.admit(frame(10), 'reliable')).toBe('overLimit');
  });
});

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

  it('asks the scheduler for one flush however many frames are queued', () => {
    let deferred = 0;
    const scheduler = new FlushScheduler(() => deferred++);
    const a = conn({ scheduler });
    const b = conn({ scheduler });
    for (let i = 0; i < 5; i++) {
      a.send(frame(10), 'reliable');
      b.send(frame(10), 'reliable');
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
    c.socketBytes = 0;
    c.flush();
    expect(c.send(frame(10, 0x0304), 'droppable')).toBe(true);
  });

  it('counts its own queue toward the soft limit', () => {
    const c = conn({ soft: 25, hard: 1000 });
    expect(c.send(frame(20), 'droppable')).toBe(true);
    expect(c.send(frame(20), 'droppable')).toBe(true);
    expect(c.send(frame(20), 'droppable')).toBe(false);
    expect(c.bufferedBytes()).toBe(40);
  });

  it('discards the queue and reports a slow consumer at the hard limit, once', () => {
    const c = conn({ soft: 100, hard: 200 });
    const input = recordingInput(c);
    c.socketBytes = 150;
    expect(c.send(frame(40), 'reliable')).toBe(true);
    expect(c.send(frame(40), 'reliable')).toBe(false);
    expect(c.bufferedBytes()).toBe(150);
    expect(c.send(frame(100), 'reliable')).toBe(false);
    expect(input.events).toEqual(['slowConsumer']);
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

  it('flushes queued frames before closing and refuses frames after', () => {
    const c = conn();
    const input = recordingInput(c);
    c.send(frame(10), 'reliable');
    c.close('bye');
    expect(c.writes.map((w) => w.length)).toEqual([10]);
    expect(c.send(frame(10), 'reliable')).toBe(false);
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
