/**
 * Interest management: who sees what, by grid cell. A player's view is a set of cells: a
 * cell enters it once any point of the cell is within interestRadius of the player, and
 * leaves it only once the whole cell is beyond interestRadius × interestMargin, so a player
 * pacing at the edge of its view does not flap between spawn and despawn. The player sees
 * every entity filed in its view cells (never itself); an entity is filed in the next cell
 * only once it is cellHysteresis past its cell's edge (grid.ts), so an entity pacing across
 * a cell border at the edge of a view does not flap either. Cell granularity lets a player
 * see somewhat beyond its radius; in return, every observer of a cell receives the same
 * replication bytes for it, encoded once per tick.
 *
 * Entities crossing cells and entities appearing or leaving update the observers of the
 * cells involved at once (world.ts). This step only moves views: a player's view is
 * recomputed when it joined, respawned or teleported, or once it has walked far enough
 * from where its view was last computed that a cell could have crossed either border.
 */
import type { Player } from './types.js';
import { see, unsee, type World } from './world.js';

export function updateInterest(w: World): void {
  // Walking less than this cannot carry a cell across the hysteresis band's middle.
  const drift = Math.min(w.rules.cellSize / 4, (w.rules.interestRadius * (w.rules.interestMargin - 1)) / 2);
  const drift2 = drift * drift;
  let updates = 0;
  for (const p of w.moved) {
    if (w.viewDirty.has(p)) continue;
    const dx = p.x - p.viewX;
    const dy = p.y - p.viewY;
    if (dx * dx + dy * dy > drift2) {
      refreshView(w, p);
      updates++;
    }
  }
  for (const p of w.viewDirty) {
    if (!w.players.has(p.id)) continue;
    refreshView(w, p);
    updates++;
  }
  w.viewDirty.clear();
  w.stats.interestUpdates = updates;
}

/** Squared distance from (px, py) to the nearest point of cell (cx, cy). */
function cellDistance2(w: World, cx: number, cy: number, px: number, py: number): number {
  const size = w.rules.cellSize;
  const x0 = w.playerGrid.originX + cx * size;
  const y0 = w.playerGrid.originY + cy * size;
  const dx = px < x0 ? x0 - px : px > x0 + size ? px - x0 - size : 0;
  const dy = py < y0 ? y0 - py : py > y0 + size ? py - y0 - size : 0;
  return dx * dx + dy * dy;
}

export function refreshView(w: World, p: Player): void {
  const r = w.rules.interestRadius;
  const enter2 = r * r;
  const leave = r * w.rules.interestMargin;
  const leave2 = leave * leave;
  const px = p.x;
  const py = p.y;
  p.viewX = px;
  p.viewY = py;
  const g = w.playerGrid;
  const cols = g.cols;

  for (const cell of p.viewCells) {
    const cx = cell % cols;
    const cy = (cell - cx) / cols;
    if (cellDistance2(w, cx, cy, px, py) <= leave2) continue;
    p.viewCells.delete(cell);
    w.cellObservers[cell]!.delete(p);
    for (const e of g.cells[cell]!) unsee(w, p, e);
    for (const m of w.mobGrid.cells[cell]!) unsee(w, p, m);
    for (const e of w.ghostGrid.cells[cell]!) unsee(w, p, e);
  }

  const x0 = g.cellX(px - r);
  const x1 = g.cellX(px + r);
  const y0 = g.cellY(py - r);
  const y1 = g.cellY(py + r);
  for (let cy = y0; cy <= y1; cy++) {
    for (let cx = x0; cx <= x1; cx++) {
      const cell = cy * cols + cx;
      if (p.viewCells.has(cell) || cellDistance2(w, cx, cy, px, py) > enter2) continue;
      p.viewCells.add(cell);
      w.cellObservers[cell]!.add(p);
      for (const e of g.cells[cell]!) see(w, p, e);
      for (const m of w.mobGrid.cells[cell]!) see(w, p, m);
      for (const e of w.ghostGrid.cells[cell]!) see(w, p, e);
    }
  }
}
