/**
 * Level-ups as the page draws them: a golden ring that widens and fades around the entity
 * and "Level N" rising over its name plate, for LEVEL_UP_MS. Seen the same on the player's
 * own page and on every page watching it.
 */
import { Container, Graphics, Text } from 'pixi.js';
import { LEVEL_UP_MS, type ClientWorld, type LevelUpEffect } from '../state/world.js';

const GOLD = 0xffd84a;

export class LevelUpLayer {
  readonly root = new Container();
  private readonly rings = new Graphics();
  private readonly texts = new Map<LevelUpEffect, Text>();

  constructor() {
    this.root.addChild(this.rings);
  }

  draw(world: ClientWorld, now: number, bodyRadius: number): void {
    this.rings.clear();
    const live = new Set<LevelUpEffect>();
    for (const e of world.levelUps) {
      const entity = world.entities.get(e.entityId);
      if (!entity) continue;
      live.add(e);
      const pos = world.drawnPosition(entity, now);
      const f = Math.min(1, Math.max(0, (now - e.at) / LEVEL_UP_MS));
      const fade = 1 - f * f;
      for (const [lag, width] of [
        [0, 4],
        [0.15, 2],
      ] as const) {
        const g = Math.max(0, f - lag);
        this.rings
          .circle(pos.x, pos.y, bodyRadius + 6 + g * 60)
          .stroke({ width, color: GOLD, alpha: 0.9 * fade });
      }
      this.rings.circle(pos.x, pos.y, bodyRadius + 4).fill({ color: GOLD, alpha: 0.25 * fade });
      let t = this.texts.get(e);
      if (!t) {
        t = new Text({
          text: `Level ${e.level}`,
          style: {
            fontFamily: 'system-ui, sans-serif',
            fontWeight: 'bold',
            fontSize: 20,
            fill: GOLD,
            stroke: { color: 0x000000, width: 4 },
          },
        });
        t.anchor.set(0.5, 1);
        this.root.addChild(t);
        this.texts.set(e, t);
      }
      t.x = pos.x;
      t.y = pos.y - bodyRadius - 40 - f * 30;
      t.alpha = fade;
    }
    for (const [e, t] of this.texts) {
      if (!live.has(e)) {
        t.destroy();
        this.texts.delete(e);
      }
    }
  }
}
