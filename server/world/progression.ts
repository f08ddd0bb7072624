/**
 * The level table and the kill experience rule (data/progression.json), as plain functions
 * of the data: what a level gives, what a kill is worth, what a new character starts with.
 * experience.ts applies them.
 */
import type { LevelStats, Progression, WorldData } from './types.js';

/** The highest level a character reaches. */
export function maxLevel(prog: Progression): number {
  return prog.levels.length;
}

/** What a character has at `level` (clamped to the table: a stored level beyond it counts as the top). */
export function levelStats(prog: Progression, level: number): LevelStats {
  const i = Math.min(Math.max(1, Math.floor(level)), prog.levels.length) - 1;
  return prog.levels[i]!;
}

/** Whether a mob of `mobLevel` is grey to a player of `playerLevel`: it gives no experience. */
export function isGrey(prog: Progression, playerLevel: number, mobLevel: number): boolean {
  return playerLevel - mobLevel >= prog.kill.greyLevels;
}

/** Experience a player of `playerLevel` earns for killing a mob of `mobLevel`. */
export function killExperience(prog: Progression, playerLevel: number, mobLevel: number): number {
  if (isGrey(prog, playerLevel, mobLevel)) return 0;
  const k = prog.kill;
  const base = k.base + k.perMobLevel * mobLevel;
  const diff = mobLevel - playerLevel;
  const factor = diff >= 0 ? 1 + k.aboveBonus * Math.min(diff, k.aboveCap) : 1 + diff / k.greyLevels;
  return Math.max(0, Math.round(base * factor));
}

/** A spell's rolled amount with the caster's spell power added (a percentage). */
export function withSpellPower(prog: Progression, level: number, amount: number): number {
  return Math.round((amount * (100 + levelStats(prog, level).spellPower)) / 100);
}

/** A new character's whole state, as the store keeps it (the store's CharacterState). */
export interface StartingState {
  zone: string;
  x: number;
  y: number;
  facing: number;
  level: number;
  health: number;
  mana: number;
  spells: number[];
  kills: number;
  experience: number;
}

/**
 * Where and how a new character starts: at the first zone's player spawn, facing east, at
 * the starting level (data/character.json) with that level's full health and mana and the
 * starting spells, no kills and no experience. A fresh object each call.
 */
export function startingState(data: Pick<WorldData, 'zones' | 'character' | 'progression'>): StartingState {
  const zone = data.zones[0];
  if (!zone) throw new Error('the world data has no zone to start in');
  const start = data.character;
  const stats = levelStats(data.progression, start.level);
  return {
    zone: zone.name,
    x: zone.playerSpawn.x,
    y: zone.playerSpawn.y,
    facing: 0,
    level: start.level,
    health: stats.maxHealth,
    mana: stats.maxMana,
    spells: [...start.spells],
    kills: 0,
    experience: 0,
  };
}
