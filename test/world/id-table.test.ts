import { describe, expect, it } from 'vitest';
import { EntitySet, IdMap, IdSet } from '../../server/world/id-table.js';

/** A seeded stream of ints in [0, n). */
function lcg(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s % n;
  };
}

describe('IdSet', () => {
  it('adds, finds and deletes ids, counting them', () => {
    const s = new IdSet();
    expect(s.add(5)).toBe(true);
    expect(s.add(5)).toBe(false);
    expect(s.add(1 << 20)).toBe(true);
    expect(s.has(5)).toBe(true);
    expect(s.has(6)).toBe(false);
    expect(s.size).toBe(2);
    expect(s.delete(5)).toBe(true);
    expect(s.delete(5)).toBe(false);
    expect([...s]).toEqual([1 << 20]);
  });

  it('refuses ids that are not positive u32 (0 marks an empty slot)', () => {
    const s = new IdSet();
    expect(() => s.add(0)).toThrow(RangeError);
    expect(() => s.add(-3)).toThrow(RangeError);
    expect(() => s.add(1.5)).toThrow(RangeError);
    expect(() => s.add(2 ** 32)).toThrow(RangeError);
    expect(s.has(0)).toBe(false);
    expect(s.size).toBe(0);
  });

  it('grows past its first capacity and shrinks back when emptied', () => {
    const s = new IdSet();
    for (let id = 1; id <= 1000; id++) s.add(id);
    expect(s.size).toBe(1000);
    for (let id = 1; id <= 1000; id++) expect(s.has(id)).toBe(true);
    for (let id = 1; id <= 995; id++) s.delete(id);
    expect([...s].sort((a, b) => a - b)).toEqual([996, 997, 998, 999, 1000]);
    s.clear();
    expect(s.size).toBe(0);
    expect([...s]).toEqual([]);
    s.add(7);
    expect([...s]).toEqual([7]);
  });

  it('matches a Set under random adds and deletes of players and mobs', () => {
    const rand = lcg(11);
    const s = new IdSet();
    const ref = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      // Small ranges so that probe runs collide and wrap, as they do in a busy view.
      const id = rand(2) === 0 ? 1 + rand(150) : (1 << 20) + rand(150);
      if (rand(5) < 2) expect(s.delete(id)).toBe(ref.delete(id));
      else {
        expect(s.add(id)).toBe(!ref.has(id));
        ref.add(id);
      }
      if (i % 997 === 0) {
        expect(s.size).toBe(ref.size);
        expect([...s].sort((a, b) => a - b)).toEqual([...ref].sort((a, b) => a - b));
      }
    }
    for (const id of ref) expect(s.has(id)).toBe(true);
    expect(s.size).toBe(ref.size);
  });
});

describe('IdMap', () => {
  it('sets, gets, replaces and deletes', () => {
    const m = new IdMap<{ id: number }>();
    const a = { id: 1 };
    const b = { id: 2 };
    m.set(1, a).set(2, b);
    expect(m.get(1)).toBe(a);
    expect(m.get(3)).toBeUndefined();
    const a2 = { id: 1 };
    m.set(1, a2);
    expect(m.size).toBe(2);
    expect(m.get(1)).toBe(a2);
    expect(m.delete(1)).toBe(true);
    expect(m.delete(1)).toBe(false);
    expect(m.has(1)).toBe(false);
    expect([...m.values()]).toEqual([b]);
    expect([...m.keys()]).toEqual([2]);
  });

  it('keeps each value with its id through growth, deletes and shrinking', () => {
    const rand = lcg(3);
    const m = new IdMap<string>();
    const ref = new Map<number, string>();
    for (let i = 0; i < 20_000; i++) {
      const id = rand(3) === 0 ? 1 + rand(300) : (1 << 20) + rand(100);
      if (rand(5) < 2) expect(m.delete(id)).toBe(ref.delete(id));
      else {
        m.set(id, `v${id}.${i}`);
        ref.set(id, `v${id}.${i}`);
      }
      if (i % 991 === 0) {
        expect(m.size).toBe(ref.size);
        for (const [id, v] of ref) expect(m.get(id)).toBe(v);
        expect([...m.values()].sort()).toEqual([...ref.values()].sort());
      }
    }
    for (const id of [...ref.keys()]) {
      expect(m.delete(id)).toBe(true);
      ref.delete(id);
    }
    expect(m.size).toBe(0);
    expect([...m.values()]).toEqual([]);
  });
});

describe('EntitySet', () => {
  const entity = (id: number) => ({ id });

  it('reads like a Set of the entities it holds', () => {
    const s = new EntitySet<{ id: number }>();
    const a = entity(1);
    const b = entity(2);
    s.add(a).add(b).add(a);
    expect(s.size).toBe(2);
    expect(s.has(a)).toBe(true);
    // The same id is not the same entity.
    expect(s.has(entity(1))).toBe(false);
    expect(s.delete(entity(1))).toBe(false);
    expect(new Set(s)).toEqual(new Set([a, b]));
    expect(new Set(s.values())).toEqual(new Set([a, b]));
    expect([...s.entries()].every(([k, v]) => k === v)).toBe(true);
    const seen: { id: number }[] = [];
    s.forEach((v) => seen.push(v));
    expect(new Set(seen)).toEqual(new Set([a, b]));
    expect(s.delete(a)).toBe(true);
    expect([...s]).toEqual([b]);
    s.clear();
    expect(s.size).toBe(0);
  });

  it('matches a Set of players joining and leaving a cell', () => {
    const rand = lcg(5);
    const players = Array.from({ length: 400 }, (_, i) => entity(i + 1));
    const s = new EntitySet<{ id: number }>();
    const ref = new Set<{ id: number }>();
    for (let i = 0; i < 10_000; i++) {
      const p = players[rand(players.length)]!;
      if (rand(2) === 0) expect(s.delete(p)).toBe(ref.delete(p));
      else {
        s.add(p);
        ref.add(p);
      }
    }
    expect(s.size).toBe(ref.size);
    expect(new Set(s)).toEqual(ref);
  });
});
