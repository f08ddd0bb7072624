import { describe, expect, it } from 'vitest';
import { registry } from '../../server/metrics/index.js';
import { correctionCount, countWorldEvents, worldEventCount } from '../../server/metrics/world-events.js';
import { cast, FIREBALL, join, mobAt, mobId, player, template, tick, world } from '../world/builders.js';

describe('world events -> metrics', () => {
  it('counts deaths by kind, spells and corrections from a step’s events, and shows them in /metrics', async () => {
    const w = world({ mobs: [mobAt(200, 500)], templates: [template({ health: 10 })] });
    const p = join(w, player({ x: 150, y: 500 }));
    const before = {
      mobDeaths: worldEventCount('died_mob'),
      launched: worldEventCount('spellLaunched'),
      bounds: correctionCount('bounds'),
    };
    const events = [
      ...tick(w, [cast(p.id, FIREBALL, mobId())], 100),
      ...tick(w, [], 1200),
      ...tick(w, [], 2500),
      ...tick(
        w,
        [
          {
            type: 'move',
            entityId: p.id,
            seq: 1,
            x: -50,
            y: 500,
            facing: 0,
            moving: false,
            speed: 0,
            clientTime: 2600,
          },
        ],
        2600,
      ),
    ];
    countWorldEvents(events);
    expect(worldEventCount('spellLaunched') - before.launched).toBe(1);
    expect(worldEventCount('died_mob') - before.mobDeaths).toBe(1);
    expect(correctionCount('bounds') - before.bounds).toBe(1);
    const text = await registry.metrics();
    expect(text).toMatch(/wyvern_world_events_total\{event="died_mob"\} \d+/);
    expect(text).toMatch(/wyvern_move_corrections_total\{reason="bounds"\} \d+/);
  });
});
