/**
 * The ground a player may walk, as a client predicts it: its zone and the zones beside it
 * (their bounding box), with the walls its ZoneInfo lists (the zone's own and its neighbours'
 * near the line). The server lets a player onto an open neighbour's ground near the line and
 * hands it over 16 units past it (server/world/handoff.ts), so a walk may go on across the
 * border; should the neighbour have no host, the server refuses the step (`bounds`).
 */
import type { Rect, ZoneBounds } from './movement.js';

interface Area {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface ZoneGround extends Area {
  readonly obstacles: readonly Rect[];
  readonly neighbours: readonly Area[];
}

export function walkGround(zone: ZoneGround): { zone: ZoneBounds; obstacles: Rect[] } {
  const areas = [zone, ...zone.neighbours];
  const x = Math.min(...areas.map((a) => a.x));
  const y = Math.min(...areas.map((a) => a.y));
  return {
    zone: {
      x,
      y,
      width: Math.max(...areas.map((a) => a.x + a.width)) - x,
      height: Math.max(...areas.map((a) => a.y + a.height)) - y,
    },
    obstacles: [...zone.obstacles],
  };
}
