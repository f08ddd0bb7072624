/**
 * Compact hash tables keyed by entity id, for the interest sets: a player's `visible`
 * (IdMap: id -> entity), every entity's `observers` (IdSet of player ids) and each grid
 * cell's observers (EntitySet of players).
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

/**
 * Walks the occupied slots: the ids, or the values beside them. A plain iterator object, not
 * a generator: these loops run per observer per changed cell every tick.
 */
class SlotIterator<T> implements IteratorObject<T, undefined, unknown> {
  private at = 0;

  constructor(
    private readonly ids: Uint32Array,
    private readonly vals: readonly unknown[] | undefined,
  ) {}

  next(): IteratorResult<T, undefined> {
    const ids = this.ids;
    while (this.at < ids.length) {
      const i = this.at++;
      const id = ids[i]!;
      if (id !== EMPTY) return { done: false, value: (this.vals ? this.vals[i] : id) as T };
    }
    return { done: true, value: undefined };
  }

  [Symbol.iterator](): this {
    return this;
  }
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
  keys(): IteratorObject<number, undefined, unknown> {
    return new SlotIterator<number>(this.ids, undefined);
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

  [Symbol.iterator](): IteratorObject<number, undefined, unknown> {
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
  values(): IteratorObject<V, undefined, unknown> {
    return new SlotIterator<V>(this.ids, this.vals);
  }

  /**
   * The value slots themselves, undefined where empty, for loops that run per observer per
   * changed cell every tick: an indexed walk with no iterator. Valid until the table changes.
   */
  slots(): readonly (V | undefined)[] {
    return this.vals;
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

/**
 * A set of entities keyed by their id, readable as a ReadonlySet: each grid cell's observers.
 * A player sits in the observer set of every cell it sees (~70), so these sets together
 * hold ~70 entries per player: as Set tables that came to ~4 KB per player, here ~1.5 KB.
 */
export class EntitySet<T extends { readonly id: number }> implements ReadonlySet<T> {
  private readonly map = new IdMap<T>();

  get size(): number {
    return this.map.size;
  }

  has(e: T): boolean {
    return this.map.get(e.id) === e;
  }

  /** Adds `e` (an entity with the same id is replaced); this, like Set.add. */
  add(e: T): this {
    this.map.set(e.id, e);
    return this;
  }

  /** Removes `e`; false when it was not there. */
  delete(e: T): boolean {
    return this.has(e) && this.map.delete(e.id);
  }

  clear(): void {
    this.map.clear();
  }

  [Symbol.iterator](): IteratorObject<T, undefined, unknown> {
    return this.map.values();
  }

  values(): IteratorObject<T, undefined, unknown> {
    return this.map.values();
  }

  /** The members as value slots, undefined where empty (see IdMap.slots). */
  slots(): readonly (T | undefined)[] {
    return this.map.slots();
  }

  keys(): IteratorObject<T, undefined, unknown> {
    return this.map.values();
  }

  *entries(): Generator<[T, T], undefined, unknown> {
    for (const e of this.map.values()) yield [e, e];
  }

  forEach(fn: (value: T, key: T, set: ReadonlySet<T>) => void, thisArg?: unknown): void {
    for (const e of this.map.values()) fn.call(thisArg, e, e, this);
  }
}
