import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InOrder, SentRing } from '../../server/cluster/sequenced.js';

describe('SentRing', () => {
  it('gives back what it kept from a seq on, and nothing once that seq is no longer kept', () => {
    let now = 0;
    const ring = new SentRing(() => now, { keepMs: 1_000, maxBytes: 100 });
    for (let seq = 1; seq <= 5; seq++) {
      ring.keep(seq, Uint8Array.of(seq));
      now += 300;
    }
    expect(ring.from(4)?.map((m) => m[0])).toEqual([4, 5]);
    // At 1500 ms, seq 1 (kept at 0) and 2 (at 300) are older than a second.
    expect(ring.from(2)).toBeUndefined();
    expect(ring.from(3)?.map((m) => m[0])).toEqual([3, 4, 5]);
    expect(ring.from(9)).toBeUndefined();
    // Nothing after the newest: an empty answer, not a loss.
    expect(ring.from(6)).toEqual([]);
  });

  it('lets the oldest go past its byte limit', () => {
    const ring = new SentRing(() => 0, { keepMs: 60_000, maxBytes: 25 });
    for (let seq = 1; seq <= 4; seq++) ring.keep(seq, new Uint8Array(10));
    expect(ring.size).toBe(2);
    expect(ring.from(2)).toBeUndefined();
    expect(ring.from(3)).toHaveLength(2);
  });
});

describe('InOrder', () => {
  let delivered: string[];
  let asked: number[];
  let gaveUp: [number, number][];
  let stream: InOrder<string>;

  beforeEach(() => {
    vi.useFakeTimers();
    delivered = [];
    asked = [];
    gaveUp = [];
    stream = new InOrder<string>(
      {
        deliver: (m) => delivered.push(m),
        ask: (from) => asked.push(from),
        gaveUp: (from, to) => gaveUp.push([from, to]),
        askEveryMs: 100,
        waitMs: 1_000,
      },
      () => Date.now(),
    );
  });
  afterEach(() => {
    stream.reset();
    vi.useRealTimers();
  });

  it('hands on messages in order and drops a repeat', () => {
    stream.receive(1, 'a');
    stream.receive(2, 'b');
    stream.receive(2, 'b again');
    stream.receive(3, 'c');
    stream.receive(2, 'b again');
    expect(delivered).toEqual(['a', 'b', 'c']);
    expect(asked).toEqual([]);
  });

  it('holds what follows a gap, asks for the missing ones and hands everything on once they come', () => {
    stream.receive(1, 'a');
    stream.receive(4, 'd');
    stream.receive(5, 'e');
    expect(delivered).toEqual(['a']);
    expect(asked).toEqual([2]);
    vi.advanceTimersByTime(100);
    expect(asked).toEqual([2, 2]);
    // Sent again: 2, 3, 4, 5 (4 and 5 are repeats by then).
    stream.receive(2, 'b');
    stream.receive(3, 'c');
    stream.receive(4, 'd');
    stream.receive(5, 'e');
    expect(delivered).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(stream.waiting).toBe(false);
    expect(stream.filled).toBe(1);
    vi.advanceTimersByTime(5_000);
    expect(asked).toEqual([2, 2]);
    expect(gaveUp).toEqual([]);
  });

  it('finds a loss at the end of the stream by a marker', () => {
    stream.receive(1, 'a');
    stream.receive(1, undefined);
    expect(asked).toEqual([]);
    stream.receive(3, undefined);
    expect(asked).toEqual([2]);
    stream.receive(2, 'b');
    stream.receive(3, 'c');
    expect(delivered).toEqual(['a', 'b', 'c']);
    expect(stream.waiting).toBe(false);
  });

  it('gives a gap up after its wait and hands on what it held', () => {
    stream.receive(1, 'a');
    stream.receive(3, 'c');
    stream.receive(6, undefined);
    vi.advanceTimersByTime(1_000);
    expect(gaveUp).toEqual([
      [2, 3],
      [4, 7],
    ]);
    expect(delivered).toEqual(['a', 'c']);
    expect(stream.givenUp).toBe(1);
    stream.receive(7, 'g');
    expect(delivered).toEqual(['a', 'c', 'g']);
  });

  it('counts a stream from 1: a first message past it asks for those before it, and hands it on once told they are gone', () => {
    stream.receive(40, undefined);
    stream.receive(41, 'x');
    expect(asked).toEqual([1]);
    expect(delivered).toEqual([]);
    // The sender no longer has 1..40 (the receiver came to a stream under way).
    stream.skipTo(41);
    expect(gaveUp).toEqual([[1, 41]]);
    expect(delivered).toEqual(['x']);
    expect(stream.waiting).toBe(false);
    stream.receive(42, 'y');
    expect(delivered).toEqual(['x', 'y']);
  });

  it('takes a stream it came to under way (not named its receiver) from the first seq it hears', () => {
    const under = new InOrder<string>({
      deliver: (m) => delivered.push(m),
      ask: (from) => asked.push(from),
      gaveUp: () => {},
      fromOne: false,
    });
    under.receive(40, undefined);
    under.receive(41, 'x');
    under.receive(43, 'z');
    under.receive(42, 'y');
    expect(delivered).toEqual(['x', 'y', 'z']);
    expect(asked).toEqual([42]);
    under.reset();
  });

  it('gives up at once what the sender says is gone, and waits on for what it still has', () => {
    stream.receive(1, 'a');
    stream.receive(5, 'e');
    stream.receive(8, 'h');
    expect(asked).toEqual([2]);
    // 2 and 3 are gone; 4 on are on their way.
    stream.skipTo(4);
    expect(gaveUp).toEqual([[2, 4]]);
    expect(delivered).toEqual(['a']);
    expect(stream.waiting).toBe(true);
    expect(asked).toEqual([2, 4]);
    stream.receive(4, 'd');
    stream.receive(6, 'f');
    stream.receive(7, 'g');
    expect(delivered).toEqual(['a', 'd', 'e', 'f', 'g', 'h']);
    expect(stream.waiting).toBe(false);
  });

  it('drops a late repeat of seq 1, and takes seq 1 after 2^32-1 as the count wrapping', () => {
    stream.receive(1, 'x');
    stream.receive(2, 'y');
    stream.receive(1, 'x again');
    expect(delivered).toEqual(['x', 'y']);
    stream.skipTo(0xffffffff);
    stream.receive(0xffffffff, 'top');
    stream.receive(1, 'z');
    expect(delivered).toEqual(['x', 'y', 'top', 'z']);
  });
});
