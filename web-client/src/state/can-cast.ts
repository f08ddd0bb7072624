/**
 * Whether a spell can be cast now, as far as the page knows: the action bar greys out what the
 * server would refuse, with the reason, before the key is pressed. The checks are the server's
 * own (server/world/combat.ts startCast), in its order: alive, cooldown, mana, a target of the
 * right kind, range, a line of sight clear of the walls. No Pixi and no DOM here.
 */
import { distance, type Rect, type Vec2 } from '../../../shared/game/movement.js';
import { inSight } from '../../../shared/game/sight.js';

export type CastBlock = 'dead' | 'cooldown' | 'mana' | 'target' | 'range' | 'sight';

export interface CastCheck {
  spell: { kind: 'damage' | 'heal'; manaCost: number; range: number };
  caster: Vec2 & { id: number; alive: boolean; mana: number };
  /** ms until the spell's cooldown is over (0 when ready). */
  cooldownLeft: number;
  /** The selected entity, if any. */
  target: (Vec2 & { id: number; kind: 'player' | 'mob'; alive: boolean }) | undefined;
  /** The zone's walls (and its neighbours' near the border): what blocks a line of sight. */
  walls: readonly Rect[];
}

/** Why the spell cannot be cast now, or undefined when it can. */
export function castBlock(c: CastCheck): CastBlock | undefined {
  if (!c.caster.alive) return 'dead';
  if (c.cooldownLeft > 0) return 'cooldown';
  if (c.caster.mana < c.spell.manaCost) return 'mana';
  const target = c.target;
  // A heal with no player selected, or oneself, lands on the caster (as the page casts it).
  if (c.spell.kind === 'heal' && (!target || target.kind !== 'player' || target.id === c.caster.id))
    return undefined;
  if (!target || !target.alive || target.kind !== (c.spell.kind === 'heal' ? 'player' : 'mob'))
    return 'target';
  if (distance(c.caster, target) > c.spell.range) return 'range';
  if (!inSight(c.caster, target, c.walls)) return 'sight';
  return undefined;
}

/** What a greyed slot says when hovered. */
export const CAST_BLOCK_TEXT: Record<CastBlock, string> = {
  dead: 'You are dead',
  cooldown: 'Not ready yet',
  mana: 'Not enough mana',
  target: 'No target for this spell',
  range: 'Target too far away',
  sight: 'Target out of sight',
};
