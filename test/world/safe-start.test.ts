import { describe, expect, it } from 'vitest';
import { distance } from '../../shared/game/movement.js';
import { loadWorldData } from '../../server/world/index.js';

/**
 * A mob wanders up to wanderRadius from home and notices a player within aggroRadius of where
 * it stands; this much further still leaves room for a chase that starts at the edge.
 */
const MARGIN = 60;

describe('where a character enters the world and comes back to life', () => {
  for (const dir of ['data', 'data/test']) {
    it(`${dir}: the player spawn and the graveyard are out of reach of every mob`, () => {
      const d = loadWorldData(dir);
      const tooClose: string[] = [];
      for (const z of d.zones) {
        for (const [place, at] of [
          ['player spawn', z.playerSpawn],
          ['graveyard', z.graveyard],
        ] as const) {
          for (const s of z.spawns) {
            const t = d.templates.get(s.template)!;
            const reach = t.aggroRadius + t.wanderRadius + MARGIN;
            const gap = distance(s, at);
            if (gap <= reach) {
              tooClose.push(
                `${z.name} ${place}: ${t.name} at ${s.x},${s.y} is ${Math.round(gap)} away (< ${reach})`,
              );
            }
          }
        }
      }
      expect(tooClose).toEqual([]);
    });
  }
});
