/**
 * Spatial hash over a zone: square cells, one list per cell, O(1) insert, move and remove
 * (swap-remove with the slot kept on the entity). Players and mobs live in separate grids so
 * a query for "players near" never walks mobs.
 *
 * An item that walks out of its cell stays filed there until it is `slack` units past the
 * cell's edge, so one pacing across a border is not re-filed (and does not leave and enter
 * views) with every step. A query by position walks the cells from fromX/fromY to toX/toY,
 * which reach `slack` further.
 */

export interface GridItem {
  x: number;
  y: number;
  cell: number;
  slot: number;
}

/** The rectangle a grid covers, in world coordinates (zones lie side by side in one plane). */
export interface GridArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

export class Grid<T extends GridItem> {
  /** World coordinates of the corner of cell (0, 0). */
  readonly originX: number;
  readonly originY: number;
  readonly cols: number;
  readonly rows: number;
  readonly cells: T[][];

  constructor(
    area: GridArea,
    readonly cellSize: number,
    readonly slack = 0,
  ) {
    this.originX = area.x;
    this.originY = area.y;
    this.cols = Math.max(1, Math.ceil(area.width / cellSize));
    this.rows = Math.max(1, Math.ceil(area.height / cellSize));
    this.cells = Array.from({ length: this.cols * this.rows }, () => []);
  }

  cellX(x: number): number {
    const c = Math.floor((x - this.originX) / this.cellSize);
    return c < 0 ? 0 : c >= this.cols ? this.cols - 1 : c;
  }

  cellY(y: number): number {
    const c = Math.floor((y - this.originY) / this.cellSize);
    return c < 0 ? 0 : c >= this.rows ? this.rows - 1 : c;
  }

  /** First column to walk for items at x or greater x: an item may stand `slack` past its cell. */
  fromX(x: number): number {
    return this.cellX(x - this.slack);
  }

  /** Last column to walk for items at x or smaller x. */
  toX(x: number): number {
    return this.cellX(x + this.slack);
  }

  /** First row to walk for items at y or greater y. */
  fromY(y: number): number {
    return this.cellY(y - this.slack);
  }

  /** Last row to walk for items at y or smaller y. */
  toY(y: number): number {
    return this.cellY(y + this.slack);
  }

  cellOf(x: number, y: number): number {
    return this.cellY(y) * this.cols + this.cellX(x);
  }

  insert(item: T): void {
    const cell = this.cellOf(item.x, item.y);
    const list = this.cells[cell]!;
    item.cell = cell;
    item.slot = list.length;
    list.push(item);
  }

  remove(item: T): void {
    if (item.cell < 0) return;
    const list = this.cells[item.cell]!;
    const last = list.pop()!;
    if (last !== item) {
      list[item.slot] = last;
      last.slot = item.slot;
    }
    item.cell = -1;
    item.slot = -1;
  }

  /** Re-files an item after its x/y changed; returns true when it changed cell. */
  update(item: T): boolean {
    const cell = this.cellOf(item.x, item.y);
    if (cell === item.cell || (this.slack > 0 && this.holds(item.cell, item.x, item.y))) return false;
    this.remove(item);
    const list = this.cells[cell]!;
    item.cell = cell;
    item.slot = list.length;
    list.push(item);
    return true;
  }

  /** Whether (x, y) lies within `cell` grown by the slack on every side. */
  private holds(cell: number, x: number, y: number): boolean {
    const cx = cell % this.cols;
    const cy = (cell - cx) / this.cols;
    const x0 = this.originX + cx * this.cellSize - this.slack;
    const y0 = this.originY + cy * this.cellSize - this.slack;
    const span = this.cellSize + 2 * this.slack;
    return x >= x0 && x < x0 + span && y >= y0 && y < y0 + span;
  }
}
