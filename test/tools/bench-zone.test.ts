import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocked } from '../../shared/game/movement.js';
import { COORD_MAX } from '../../shared/protocol/index.js';
import { loadWorldData, SPAWN_SAFE_RADIUS } from '../../server/world/index.js';
import { writeBenchData } from '../../bench/load/zone.js';

describe('load bench zone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-bench-zone-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('tiles the shipped zone over the whole coordinate range at its mob density, and the server loads it', () => {
    const summary = writeBenchData('data', dir);
    const data = loadWorldData(dir);
    expect(data.zones).toHaveLength(1);
    const zone = data.zones[0]!;
    expect(zone.width).toBe(COORD_MAX);
    expect(zone.height).toBe(COORD_MAX);
    expect(summary.tiles).toBeGreaterThanOrEqual(4);
    expect(Math.abs(summary.mobDensity - summary.sourceMobDensity)).toBeLessThan(
      0.01 * summary.sourceMobDensity,
    );
    // New characters enter near the middle, clear of walls and mobs.
    expect(Math.hypot(zone.playerSpawn.x - COORD_MAX / 2, zone.playerSpawn.y - COORD_MAX / 2)).toBeLessThan(
      400,
    );
    expect(blocked(zone.playerSpawn, zone.obstacles)).toBe(false);
    for (const s of zone.spawns) {
      expect(Math.hypot(s.x - zone.playerSpawn.x, s.y - zone.playerSpawn.y)).toBeGreaterThanOrEqual(
        SPAWN_SAFE_RADIUS,
      );
    }
  });
});
