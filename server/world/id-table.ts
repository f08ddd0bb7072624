/**
 * Compact hash tables keyed by entity id, for the per-entity interest sets: a player's
 * `visible` (IdMap: id -> entity) and every entity's `observers` (IdSet of player ids).
 *
 * Why not Map and Set: each player holds one of each with ~50-70 entries, and V8's ordered
 * hash tables spend ~3 words per entry plus a bucket array and chain links (the two came to
 * ~9 KB per player). Here ids live in a Uint32Array (4 bytes a slot) and a map's values in one
 * parallel array: open addressing, linear probing, at most 3/4 full, deletion by backward
 * shift (no tombstones), halved once under 1/8 full.
 *
 * Entity ids are positive u32 (players from 1, mobs from MOB_ID_BASE): 0 marks an empty slot.
 * Iteration is in slot order, not insertion order. A table must not be changed while it is
 * being iterated (its own; changing another table is fine).
 */

const EMPTY = 0;
const MIN_CAPACITY = 8;

function hash(id: number): number {
  let h = Math.imul(id ^ (id >>> 16), 0x45d9f3b);
  h ^= h >>> 16;
  return h;
}

function checkId(id: number): void {
  if (!(Number.isInteger(id) && id > 0 && id <= 0xffffffff))
    throw new RangeError(`id ${id} is not a positive u32`);
}

abstract class IdTable {
  protected ids = new Uint32Array(MIN_CAPACITY);
  protected mask = MIN_CAPACITY - 1;
  protected count = 0;

  get size(): number {
    return this.count;
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  clear(): void {
    if (this.ids.length === MIN_CAPACITY && this.count === 0) return;
    this.count = 0;
    this.ids = new Uint32Array(MIN_CAPACITY);
    this.mask = MIN_CAPACITY - 1;
    this.resetValues(MIN_CAPACITY);
  }

  /** The ids, in slot order. */
  *keys(): Generator<number, void, undefined> {
    const ids = this.ids;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== EMPTY) yield ids[i]!;
  }

  /** The slot holding `id`, or ~(the empty slot where it would go). */
  protected find(id: number): number {
    // 0 would match an empty slot (callers that add check ids before they get here).
    if (id === EMPTY) return ~0;
    const ids = this.ids;
    const mask = this.mask;
    let i = hash(id) & mask;
    for (;;) {
      const k = ids[i]!;
      if (k === id) return i;
      if (k === EMPTY) return ~i;
      i = (i + 1) & mask;
    }
  }

  /** The slot for a new, checked `id` (the table grown first if need be); `id` must not be there. */
  protected slotForNew(id: number): number {
    if ((this.count + 1) * 4 > this.ids.length * 3) this.rehash(this.ids.length * 2);
    const at = ~this.find(id);
    this.ids[at] = id;
    this.count++;
    return at;
  }

  /** Empties slot `i`, pulling later entries of its probe run back over the hole. */
  protected removeAt(i: number): void {
    const ids = this.ids;
    const mask = this.mask;
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const k = ids[j]!;
      if (k === EMPTY) break;
      const home = hash(k) & mask;
      // The entry at j may fill the hole when the hole lies on its probe path (home .. j).
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        ids[hole] = k;
        this.moveValue(j, hole);
        hole = j;
      }
    }
    ids[hole] = EMPTY;
    this.moveValue(-1, hole);
    this.count--;
    if (this.count * 8 < ids.length && ids.length > MIN_CAPACITY) this.rehash(ids.length / 2);
  }

  private rehash(capacity: number): void {
    const oldIds = this.ids;
    const oldValues = this.takeValues(capacity);
    this.ids = new Uint32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < oldIds.length; i++) {
      const id = oldIds[i]!;
      if (id === EMPTY) continue;
      const at = ~this.find(id);
      this.ids[at] = id;
      this.placeValue(at, oldValues, i);
    }
  }

  /** Value slot `to` takes value slot `from` (-1: no value). */
  protected abstract moveValue(from: number, to: number): void;
  /** Starts an empty value array of `capacity`; returns the old one (undefined for a set). */
  protected abstract takeValues(capacity: number): unknown[] | undefined;
  protected abstract placeValue(at: number, old: unknown[] | undefined, from: number): void;
  protected abstract resetValues(capacity: number): void;
}

/** A set of entity ids (see above). */
export class IdSet extends IdTable implements Iterable<number> {
  /** Adds `id`; false when it was there already. */
  add(id: number): boolean {
    checkId(id);
    if (this.find(id) >= 0) return false;
    this.slotForNew(id);
    return true;
  }

  /** Removes `id`; false when it was not there. */
  delete(id: number): boolean {
    const at = this.find(id);
    if (at < 0) return false;
    this.removeAt(at);
    return true;
  }

  [Symbol.iterator](): Generator<number, void, undefined> {
    return this.keys();
  }

  protected moveValue(): void {}
  protected takeValues(): undefined {
    return undefined;
  }
  protected placeValue(): void {}
  protected resetValues(): void {}
}

/** A map from entity id to V (see above). */
export class IdMap<V> extends IdTable {
  private vals: (V | undefined)[] = new Array<V | undefined>(MIN_CAPACITY).fill(undefined);

  get(id: number): V | undefined {
    const at = this.find(id);
    return at >= 0 ? this.vals[at] : undefined;
  }

  set(id: number, value: V): this {
    checkId(id);
    const at = this.find(id);
    if (at >= 0) {
      this.vals[at] = value;
      return this;
    }
    // Its own statement: slotForNew may grow the table and replace `vals`.
    const slot = this.slotForNew(id);
    this.vals[slot] = value;
    return this;
  }

  /** Removes `id`; false when it was not there. */
  delete(id: number): boolean {
    const at = this.find(id);
    if (at < 0) return false;
    this.removeAt(at);
    return true;
  }

  /** The values, in slot order. */
  *values(): Generator<V, void, undefined> {
    const ids = this.ids;
    const vals = this.vals;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== EMPTY) yield vals[i]!;
  }

  protected moveValue(from: number, to: number): void {
    this.vals[to] = from < 0 ? undefined : this.vals[from];
  }

  protected takeValues(capacity: number): unknown[] {
    const old = this.vals;
    this.vals = new Array<V | undefined>(capacity).fill(undefined);
    return old;
  }

  protected placeValue(at: number, old: unknown[] | undefined, from: number): void {
    this.vals[at] = old![from] as V;
  }

  protected resetValues(capacity: number): void {
    this.vals = new Array<V | undefined>(capacity).fill(undefined);
  }
}
