/**
 * Experience and level-ups. A kill gives its killer (the player whose spell landed the last
 * blow, here or across a border) experience by the mob's level and the difference to the
 * killer's (progression.ts); grey mobs, too far below, give none. Enough experience raises
 * the level: max health and mana grow to the new level's and fill up, regeneration and
 * spell power follow, and everyone who sees the player is told. At the highest level
 * experience stops counting.
 */
import { killExperience, levelStats, maxLevel } from './progression.js';
import type { Player } from './types.js';
import { emit, observerList, statsChanged, type World } from './world.js';

/**
 * The player killed a mob of `mobLevel` (here, or across a border): it earns the
 * experience, and levels up as often as it covers, with the level-up shown to all who see it.
 */
export function creditKill(w: World, p: Player, victimId: number, mobLevel: number): void {
  p.kills++;
  const prog = w.data.progression;
  const amount = p.level >= maxLevel(prog) ? 0 : killExperience(prog, p.level, mobLevel);
  if (amount > 0) {
    emit(w, { type: 'experienceGained', player: p, amount, victimId });
    p.experience += amount;
    let needed = levelStats(prog, p.level).experience;
    while (needed > 0 && p.experience >= needed) {
      p.experience -= needed;
      levelUp(w, p);
      needed = levelStats(prog, p.level).experience;
    }
    // At the top there is no next level to fill.
    if (needed === 0) p.experience = 0;
  }
  statsChanged(w, p);
}

function levelUp(w: World, p: Player): void {
  p.level++;
  const stats = levelStats(w.data.progression, p.level);
  p.maxHealth = stats.maxHealth;
  p.maxMana = stats.maxMana;
  if (p.alive) {
    p.health = p.maxHealth;
    p.mana = p.maxMana;
  }
  emit(w, { type: 'leveledUp', player: p, level: p.level, witnesses: observerList(p) });
  // The new max health (and the fill) goes out as the entity's health record.
  emit(w, { type: 'health', entity: p });
}
