import { describe, expect, it } from 'vitest';
import { CellSet } from '../../server/world/cell-set.js';

describe('CellSet', () => {
  it('adds, finds and deletes cells, counting them', () => {
    const s = new CellSet(100);
    expect(s.add(3)).toBe(true);
    expect(s.add(3)).toBe(false);
    expect(s.add(31)).toBe(true);
    expect(s.add(32)).toBe(true);
    expect(s.add(99)).toBe(true);
    expect(s.size).toBe(4);
    expect([3, 31, 32, 99].every((c) => s.has(c))).toBe(true);
    expect(s.has(4)).toBe(false);
    expect(s.delete(31)).toBe(true);
    expect(s.delete(31)).toBe(false);
    expect(s.has(31)).toBe(false);
    expect(s.size).toBe(3);
  });

  it('says no for cells outside the grid and refuses to add them', () => {
    const s = new CellSet(40);
    expect(s.has(-1)).toBe(false);
    expect(s.has(40)).toBe(false);
    expect(s.has(1.5)).toBe(false);
    expect(s.delete(40)).toBe(false);
    expect(() => s.add(40)).toThrow(RangeError);
    expect(() => s.add(-1)).toThrow(RangeError);
    expect(() => s.add(2.5)).toThrow(RangeError);
    expect(s.size).toBe(0);
  });

  it('iterates in ascending order, the top bit of a word included', () => {
    const s = new CellSet(200);
    const cells = [150, 0, 31, 63, 64, 5, 127, 199];
    for (const c of cells) s.add(c);
    expect([...s]).toEqual([...cells].sort((a, b) => a - b));
  });

  it('lets the caller delete the cell just visited while iterating', () => {
    const s = new CellSet(128);
    for (let c = 0; c < 128; c += 3) s.add(c);
    const seen: number[] = [];
    for (const c of s) {
      seen.push(c);
      if (c % 2 === 0) s.delete(c);
    }
    expect(seen).toEqual(Array.from({ length: 43 }, (_, i) => i * 3));
    expect([...s]).toEqual(seen.filter((c) => c % 2 !== 0));
    expect(s.size).toBe(seen.filter((c) => c % 2 !== 0).length);
  });

  it('does not visit a cell deleted before it is reached', () => {
    const s = new CellSet(64);
    for (const c of [1, 2, 40, 41]) s.add(c);
    const seen: number[] = [];
    for (const c of s) {
      seen.push(c);
      if (c === 1) {
        s.delete(2);
        s.delete(41);
      }
    }
    expect(seen).toEqual([1, 40]);
  });

  it('clears', () => {
    const s = new CellSet(64);
    s.add(1);
    s.add(60);
    s.clear();
    expect(s.size).toBe(0);
    expect([...s]).toEqual([]);
    expect(s.has(60)).toBe(false);
  });

  it('matches a Set under random adds and deletes', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const s = new CellSet(1000);
    const ref = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const c = rand(1000);
      if (rand(3) === 0) expect(s.delete(c)).toBe(ref.delete(c));
      else {
        expect(s.add(c)).toBe(!ref.has(c));
        ref.add(c);
      }
    }
    expect(s.size).toBe(ref.size);
    expect([...s]).toEqual([...ref].sort((a, b) => a - b));
  });
});
