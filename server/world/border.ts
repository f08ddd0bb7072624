/**
 * Zones meet at borders. Zones are rectangles of one world plane (data/zones/*.json say where);
 * two zones are neighbours when their rectangles share a stretch of edge. Each host keeps, as
 * a strip along each such edge, what its neighbour needs to show its own players: everything
 * within interestRadius × interestMargin of the line.
 */
import type { Rect } from '../../shared/game/movement.js';
import { COORD_MAX } from '../../shared/protocol/common.js';
import type { WorldRules, ZoneData } from './types.js';

/** A zone's rectangle in the world plane. */
export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether two rectangles share a stretch of edge (touching at a corner does not count). */
export function sharesEdge(a: Area, b: Area): boolean {
  const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  const touchX = a.x + a.width === b.x || b.x + b.width === a.x;
  const touchY = a.y + a.height === b.y || b.y + b.height === a.y;
  return (touchX && overlapY > 0) || (touchY && overlapX > 0);
}

/** The zones beside `zone` in `zones` (by number, as the world data keeps them). */
export function neighbours(zones: readonly ZoneData[], zone: ZoneData): ZoneData[] {
  return zones.filter((z) => z !== zone && z.name !== zone.name && sharesEdge(z, zone));
}

/** `area` grown by `by` on every side. */
export function grown(area: Area, by: number): Area {
  return { x: area.x - by, y: area.y - by, width: area.width + 2 * by, height: area.height + 2 * by };
}

/** Whether a rectangle overlaps an area. */
export function rectInArea(r: Rect, a: Area): boolean {
  return r.x < a.x + a.width && a.x < r.x + r.w && r.y < a.y + a.height && a.y < r.y + r.h;
}

/** Whether a point lies in an area (edges included). */
export function pointInArea(p: { x: number; y: number }, a: Area): boolean {
  return p.x >= a.x && p.x <= a.x + a.width && p.y >= a.y && p.y <= a.y + a.height;
}

/**
 * The strip of `neighbour` that `zone`'s players may see: the neighbour's rectangle clipped to
 * `zone` grown by `depth` (undefined when they do not meet).
 */
export function stripOf(zone: Area, neighbour: Area, depth: number): Area | undefined {
  const g = grown(zone, depth);
  const x0 = Math.max(g.x, neighbour.x);
  const y0 = Math.max(g.y, neighbour.y);
  const x1 = Math.min(g.x + g.width, neighbour.x + neighbour.width);
  const y1 = Math.min(g.y + g.height, neighbour.y + neighbour.height);
  if (x1 <= x0 || y1 <= y0) return undefined;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/**
 * How deep a strip reaches into a zone from its border: as far as a player across the line can
 * see. A view keeps a cell while any of it is within interestRadius × interestMargin, and an
 * entity filed in that cell may stand anywhere in it or up to cellHysteresis past its edge,
 * so that grown cell's diagonal more.
 */
export function stripDepth(
  rules: Pick<WorldRules, 'interestRadius' | 'interestMargin' | 'cellSize' | 'cellHysteresis'>,
): number {
  return (
    rules.interestRadius * rules.interestMargin + (rules.cellSize + 2 * rules.cellHysteresis) * Math.SQRT2
  );
}

/** What a zone's grids cover: the zone, and its neighbours' strips beside it (within the plane). */
export function gridArea(zones: readonly ZoneData[], zone: ZoneData, depth: number): Area {
  let x0 = zone.x;
  let y0 = zone.y;
  let x1 = zone.x + zone.width;
  let y1 = zone.y + zone.height;
  for (const n of neighbours(zones, zone)) {
    const s = stripOf(zone, n, depth);
    if (!s) continue;
    x0 = Math.min(x0, s.x);
    y0 = Math.min(y0, s.y);
    x1 = Math.max(x1, s.x + s.width);
    y1 = Math.max(y1, s.y + s.height);
  }
  x0 = Math.max(0, x0);
  y0 = Math.max(0, y0);
  x1 = Math.min(COORD_MAX, x1);
  y1 = Math.min(COORD_MAX, y1);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}
