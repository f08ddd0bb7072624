/**
 * Spells, damage, healing, death and player respawn.
 *
 * A cast: validated (alive, known, not casting, cooldown, mana, target, range, a line of sight
 * clear of the zone's walls; target, range and sight again at completion) or refused with
 * SpellFailed to the caster alone. castTime > 0 shows a cast bar (SpellStart) that moving or
 * CancelCast breaks; at completion mana is spent, the cooldown starts and SpellGo launches a
 * projectile that lands travelTime ms later with CombatEvent and a health change.
 *
 * Across a border: a spell may target a ghost (a neighbour zone's entity in the strip, in
 * range and sight). It is rolled and shown here when it lands, and the entity's own zone
 * applies it when the next strip brings it there (ghosts.ts: applyBorderNews); a kill made
 * that way comes back to be credited to the caster.
 */
import { distance, type Vec2 } from '../../shared/game/movement.js';
import { randomInt } from '../../shared/game/rng.js';
import { inSight as clearLine } from '../../shared/game/sight.js';
import { relocate } from './move-epoch.js';
import { creditKill } from './experience.js';
import { levelStats, withSpellPower } from './progression.js';
import { standWalker } from './walkers.js';
import type { BorderHit, BorderKill, CastFailure, Entity, Player, SpellData } from './types.js';
import {
  borderNews,
  emit,
  entityById,
  observerList,
  refilePlayer,
  statsChanged,
  type World,
} from './world.js';

/**
 * Whether no wall stands between `a` and `b` (the zone's, and its neighbours' near the line):
 * a thin sight line, not a body's path.
 */
export function inSight(w: World, a: Vec2, b: Vec2): boolean {
  return clearLine(a, b, w.walls);
}

function refuse(w: World, p: Player, spellId: number, reason: CastFailure): void {
  emit(w, { type: 'castRefused', player: p, spellId, reason });
}

/**
 * The entity a spell may land on, or undefined: damage at living mobs, heals at self or living
 * players, this zone's or ghosts of the zone beside.
 */
function validTarget(w: World, p: Player, spell: SpellData, targetId: number): Entity | undefined {
  if (spell.kind === 'heal' && (targetId === 0 || targetId === p.id)) return p;
  const kind = spell.kind === 'heal' ? 'player' : 'mob';
  const t =
    (kind === 'player' ? w.players.get(targetId) : w.mobs.get(targetId)) ?? w.ghosts.get(targetId)?.entity;
  return t && t.kind === kind && t.alive ? t : undefined;
}

export function startCast(w: World, p: Player, spellId: number, targetId: number): void {
  if (!p.alive) return refuse(w, p, spellId, 'dead');
  const spell = p.spells.includes(spellId) ? w.data.spells.get(spellId) : undefined;
  if (!spell) return refuse(w, p, spellId, 'unknownSpell');
  if (p.cast) return refuse(w, p, spellId, 'busy');
  if ((p.cooldowns.get(spellId) ?? 0) > w.now) return refuse(w, p, spellId, 'cooldown');
  if (p.mana < spell.manaCost) return refuse(w, p, spellId, 'noMana');
  const target = validTarget(w, p, spell, targetId);
  if (!target) return refuse(w, p, spellId, 'badTarget');
  if (distance(p, target) > spell.range) return refuse(w, p, spellId, 'outOfRange');
  if (!inSight(w, p, target)) return refuse(w, p, spellId, 'lineOfSight');
  p.lastCombatAt = w.now;
  if (spell.castTime === 0) {
    completeCast(w, p, spell, target);
    return;
  }
  p.cast = { spell, targetId: target.id, endsAt: w.now + spell.castTime };
  w.casting.add(p);
  emit(w, {
    type: 'castStarted',
    caster: p,
    spellId,
    targetId: target.id,
    castTime: spell.castTime,
    witnesses: observerList(p),
  });
}

/** Breaks a cast in progress: 'interrupted' by moving, 'cancelled' by CancelCast or death. */
export function breakCast(w: World, p: Player, reason: 'interrupted' | 'cancelled'): void {
  if (!p.cast) return;
  emit(w, { type: 'castFailed', caster: p, spellId: p.cast.spell.id, reason, witnesses: observerList(p) });
  p.cast = null;
  w.casting.delete(p);
}

/** Casts whose bar ran out this step. */
export function finishCasts(w: World): void {
  for (const p of w.casting) {
    const cast = p.cast;
    if (!cast) {
      w.casting.delete(p);
      continue;
    }
    if (w.now < cast.endsAt) continue;
    p.cast = null;
    w.casting.delete(p);
    const spell = cast.spell;
    const target = validTarget(w, p, spell, cast.targetId);
    let reason: CastFailure | null = null;
    if (!target) reason = 'badTarget';
    else if (distance(p, target) > spell.range) reason = 'outOfRange';
    else if (!inSight(w, p, target)) reason = 'lineOfSight';
    else if (p.mana < spell.manaCost) reason = 'noMana';
    if (reason !== null || !target) {
      emit(w, {
        type: 'castFailed',
        caster: p,
        spellId: spell.id,
        reason: reason!,
        witnesses: observerList(p),
      });
      continue;
    }
    completeCast(w, p, spell, target);
  }
}

function completeCast(w: World, p: Player, spell: SpellData, target: Entity): void {
  p.lastCombatAt = w.now;
  if (spell.manaCost > 0) {
    p.mana -= spell.manaCost;
    statsChanged(w, p);
  }
  if (spell.cooldown > 0) {
    p.cooldowns.set(spell.id, w.now + spell.cooldown);
    emit(w, { type: 'cooldownStarted', player: p, spellId: spell.id, remaining: spell.cooldown });
  }
  const travel =
    spell.projectileSpeed > 0
      ? Math.min(0xffff, Math.round((distance(p, target) / spell.projectileSpeed) * 1000))
      : 0;
  emit(w, {
    type: 'spellLaunched',
    caster: p,
    spellId: spell.id,
    targetId: target.id,
    travelTime: travel,
    witnesses: observerList(p),
  });
  w.projectiles.push({ casterId: p.id, targetId: target.id, spell, landsAt: w.now + travel });
}

/** Projectiles whose travel time is over land now (a target that died or left is missed). */
export function landProjectiles(w: World): void {
  if (w.projectiles.length === 0) return;
  const flying = w.projectiles;
  let keep = 0;
  for (let i = 0; i < flying.length; i++) {
    const pr = flying[i]!;
    if (pr.landsAt > w.now) {
      flying[keep++] = pr;
      continue;
    }
    const ghost = w.ghosts.get(pr.targetId);
    const target = entityById(w, pr.targetId) ?? ghost?.entity;
    if (!target || !target.alive) continue;
    const s = pr.spell;
    let amount = randomInt(w.rng, s.min, s.max);
    const crit = w.rng() < w.rules.critChance;
    if (crit) amount = Math.round(amount * w.rules.critMultiplier);
    const caster = entityById(w, pr.casterId);
    if (caster) amount = withSpellPower(w.data.progression, caster.level, amount);
    if (ghost) {
      hitAcross(w, ghost.from, caster, target, s.id, s.kind, amount, crit);
      continue;
    }
    if (s.kind === 'heal') heal(w, pr.casterId, target, s.id, amount, crit);
    else if (caster) applyDamage(w, caster, target, s.id, amount, crit);
    else applyDamage(w, null, target, s.id, amount, crit);
  }
  flying.length = keep;
}

/**
 * A spell (or a mob's swing, spellId 0) landed on a ghost of zone `zone`: those here who see
 * it are shown the hit, and its own zone is sent it to apply (the health comes back with the
 * next strip).
 */
export function hitAcross(
  w: World,
  zone: string,
  source: Entity | undefined,
  target: Entity,
  spellId: number,
  effect: 'damage' | 'heal',
  amount: number,
  crit: boolean,
): void {
  const sourceId = source?.id ?? 0;
  if (source?.kind === 'player') source.lastCombatAt = w.now;
  emit(w, {
    type: 'spellHit',
    sourceId,
    target,
    spellId,
    effect,
    amount,
    crit,
    witnesses: observerList(target),
  });
  borderNews(w, zone).hits.push({ sourceId, targetId: target.id, spellId, effect, amount, crit });
}

function heal(
  w: World,
  sourceId: number,
  target: Entity,
  spellId: number,
  amount: number,
  crit: boolean,
): void {
  emit(w, {
    type: 'spellHit',
    sourceId,
    target,
    spellId,
    effect: 'heal',
    amount,
    crit,
    witnesses: observerList(target),
  });
  target.health = Math.min(target.maxHealth, target.health + amount);
  emit(w, { type: 'health', entity: target });
}

/**
 * Damage from `source` (a mob's swing is spellId 0): a hit, a health change, maybe a death.
 * What follows from it for mobs (a corpse, turning on the attacker) is settled later in the
 * step (see step.ts), so combat never calls into mob AI.
 */
export function applyDamage(
  w: World,
  source: Entity | null,
  target: Entity,
  spellId: number,
  amount: number,
  crit: boolean,
  sourceId = source ? source.id : 0,
): void {
  if (target.kind === 'player') target.lastCombatAt = w.now;
  if (source?.kind === 'player') source.lastCombatAt = w.now;
  emit(w, {
    type: 'spellHit',
    sourceId,
    target,
    spellId,
    effect: 'damage',
    amount,
    crit,
    witnesses: observerList(target),
  });
  target.health = Math.max(0, target.health - amount);
  emit(w, { type: 'health', entity: target });
  if (target.health === 0) {
    emit(w, { type: 'died', entity: target, killerId: sourceId });
    target.alive = false;
    w.fallen.push({ entity: target, killer: source });
    return;
  }
  if (target.kind === 'mob' && source?.kind === 'player') w.provoked.push({ mob: target, by: source });
}

/**
 * What the zone `from` sent beside its strip: hits landed there on this zone's entities,
 * applied as if made here, by the source's id (a player's spells; a mob's swings at a player
 * of ours standing by the line), and kills that this zone's players made there. A mob hit
 * by a player across the line turns on it: it comes to the line and strikes if it can reach.
 */
export function applyBorderNews(
  w: World,
  from: string,
  hits: readonly BorderHit[],
  kills: readonly BorderKill[],
): void {
  for (const h of hits) {
    const target = entityById(w, h.targetId);
    if (!target || !target.alive) continue;
    if (h.effect === 'heal') {
      if (target.kind === 'player') heal(w, h.sourceId, target, h.spellId, h.amount, h.crit);
      continue;
    }
    applyDamage(w, null, target, h.spellId, h.amount, h.crit, h.sourceId);
    if (target.kind !== 'mob') continue;
    if (!target.alive) {
      if (h.sourceId !== 0)
        borderNews(w, from).kills.push({
          killerId: h.sourceId,
          victimId: target.id,
          victimLevel: target.level,
        });
      continue;
    }
    const by = w.ghosts.get(h.sourceId)?.entity;
    if (by?.kind === 'player') w.provoked.push({ mob: target, by });
  }
  for (const k of kills) {
    const p = w.players.get(k.killerId);
    if (p) creditKill(w, p, k.victimId, k.victimLevel);
  }
}

/**
 * A player fell: its cast breaks, it stands where the server had it (observers get the stop)
 * and waits to respawn at the graveyard. Its client is told where the corpse lies, in a new
 * move epoch: what it sent while walking on unaware is dropped.
 */
export function playerDied(w: World, p: Player): void {
  breakCast(w, p, 'cancelled');
  // It falls where observers have it walking to, dated now.
  standWalker(w, p);
  relocate(w, p, 'dead');
  p.respawnAt = w.now + w.rules.playerRespawnDelay;
  w.deadPlayers.add(p);
}

/**
 * Dead players whose delay is over stand up at the graveyard, with at least the rules' shares
 * of their health and mana (respawnHealthPercent, respawnManaPercent).
 */
export function respawnPlayers(w: World): void {
  for (const p of w.deadPlayers) {
    if (p.respawnAt === null || w.now < p.respawnAt) continue;
    w.deadPlayers.delete(p);
    const g = w.zone.graveyard;
    p.respawnAt = null;
    p.alive = true;
    p.health = Math.max(1, p.health, share(p.maxHealth, w.rules.respawnHealthPercent));
    const mana = Math.max(p.mana, share(p.maxMana, w.rules.respawnManaPercent));
    if (mana !== p.mana) {
      p.mana = mana;
      statsChanged(w, p);
    }
    p.x = g.x;
    p.y = g.y;
    p.moving = false;
    p.moveSpeed = 0;
    w.walking.delete(p);
    p.lastMoveAt = w.now;
    p.lastClientTime = undefined;
    p.timeBank = w.rules.moveBurstMs;
    // The respawn record tells everyone where it stands: no motion record for the jump.
    p.sent = { x: g.x, y: g.y, t: w.now, moving: false, angle: p.facing, speed: 0 };
    p.inputAt = p.sentInputAt = w.now;
    emit(w, { type: 'respawned', entity: p });
    // Its client was walking the corpse, or still is: from now on it walks from here.
    relocate(w, p, 'respawn');
    refilePlayer(w, p);
    w.viewDirty.add(p);
  }
}

/** `percent` of `max`, rounded up: a share of a maximum never rounds away to nothing. */
function share(max: number, percent: number): number {
  return Math.min(max, Math.ceil((max * percent) / 100));
}

/**
 * Health and mana come back every manaRegenInterval to living players: a trickle in a fight
 * (its level's healthRegen and manaRegen, progression.json), and once a player has neither
 * cast nor dealt nor taken damage for restDelay, a share of its maximum (restHealthPercent,
 * restManaPercent) when that is more.
 */
export function regenerate(w: World): void {
  const r = w.rules;
  for (const p of w.players.values()) {
    if (w.now < p.nextManaRegenAt) continue;
    p.nextManaRegenAt = w.now + r.manaRegenInterval;
    if (!p.alive) continue;
    const { healthRegen, manaRegen } = levelStats(w.data.progression, p.level);
    const resting = w.now - p.lastCombatAt >= r.restDelay;
    const health = Math.max(healthRegen, resting ? share(p.maxHealth, r.restHealthPercent) : 0);
    const mana = Math.max(manaRegen, resting ? share(p.maxMana, r.restManaPercent) : 0);
    if (health > 0 && p.health < p.maxHealth) {
      p.health = Math.min(p.maxHealth, p.health + health);
      emit(w, { type: 'health', entity: p });
    }
    if (mana > 0 && p.mana < p.maxMana) {
      p.mana = Math.min(p.maxMana, p.mana + mana);
      statsChanged(w, p);
    }
  }
}
