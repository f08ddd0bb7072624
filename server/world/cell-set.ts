/**
 * A set of grid cell indices, as one bit per cell of the zone's grid.
 *
 * A player's view is ~60-80 cells (a 250-unit radius in 64-unit cells). As a Set<number>
 * that is a hash table of ~4.7 KB per player; as bits over the whole grid it is cells / 8
 * bytes: 512 bytes for the 4096 × 4096 bench zone (64 × 64 cells), 128 for the shipped
 * 2000 × 2000 zone. `has` is one load and a mask, which is what the hot paths do (an entity
 * crossing cells asks every observer of the old cell whether it still sees the new one).
 *
 * Iteration visits cells in ascending index order (not insertion order, unlike a Set). A
 * cell deleted during iteration before it is reached is not visited; deleting the cell just
 * visited is safe (refreshView does).
 */
export class CellSet implements Iterable<number> {
  private readonly bits: Uint32Array;
  private count = 0;

  /** A set for cell indices in [0, cells). */
  constructor(readonly cells: number) {
    this.bits = new Uint32Array((cells + 31) >>> 5);
  }

  get size(): number {
    return this.count;
  }

  has(cell: number): boolean {
    if (!(cell >= 0 && cell < this.cells)) return false;
    return (this.bits[cell >>> 5]! & (1 << (cell & 31))) !== 0;
  }

  /** Adds `cell`; false when it was there already. */
  add(cell: number): boolean {
    if (!(Number.isInteger(cell) && cell >= 0 && cell < this.cells)) {
      throw new RangeError(`cell ${cell} outside [0, ${this.cells})`);
    }
    const i = cell >>> 5;
    const mask = 1 << (cell & 31);
    const word = this.bits[i]!;
    if ((word & mask) !== 0) return false;
    this.bits[i] = word | mask;
    this.count++;
    return true;
  }

  /** Removes `cell`; false when it was not there. */
  delete(cell: number): boolean {
    if (!this.has(cell)) return false;
    const i = cell >>> 5;
    this.bits[i] = this.bits[i]! & ~(1 << (cell & 31));
    this.count--;
    return true;
  }

  clear(): void {
    if (this.count === 0) return;
    this.bits.fill(0);
    this.count = 0;
  }

  *[Symbol.iterator](): Generator<number, undefined, unknown> {
    const bits = this.bits;
    for (let i = 0; i < bits.length; i++) {
      let word = bits[i]! | 0;
      while (word !== 0) {
        const low = word & -word;
        yield (i << 5) | (31 - Math.clz32(low));
        // Read the word again: the caller may have deleted cells; go on past this bit.
        word = bits[i]! & ~(low | (low - 1));
      }
    }
  }
}
