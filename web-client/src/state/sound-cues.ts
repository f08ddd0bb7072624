/**
 * Which sound the page plays for what it hears, as data: the synthesizer (ui/sound.ts) only
 * turns a cue into sound. The own spell leaving the hand is "cast"; damage landing on the
 * player or from the player's spell is "hit"; the player's death or a kill of theirs is
 * "death"; the level rising is "levelUp"; a whisper from someone else is "whisper".
 */
import type { WorldChange } from '../../../shared/client/world-view.js';
import type { Incoming } from './world.js';

export const CUES = ['cast', 'hit', 'death', 'levelUp', 'whisper'] as const;
export type Cue = (typeof CUES)[number];

/** The same cue again sooner than this is one sound (twenty boars biting at once is not twenty). */
export const CUE_GAP_MS = 90;

export function cueForPacket(p: Incoming, selfId: number | undefined): Cue | undefined {
  if (selfId === undefined) return undefined;
  switch (p.name) {
    case 'SpellGo':
      return p.value.casterId === selfId ? 'cast' : undefined;
    case 'CombatEvent':
      return p.value.kind === 'damage' && (p.value.targetId === selfId || p.value.sourceId === selfId)
        ? 'hit'
        : undefined;
    case 'ChatMessage':
      return p.value.channel === 'whisper' && p.value.fromId !== selfId ? 'whisper' : undefined;
    default:
      return undefined;
  }
}

/**
 * Cues from the world view's changes (deaths), and the level rising: `levelNow` is told the own
 * level after each packet, however it came (a level-up, the own stats), and says whether it
 * rose. The level on entering the world (or after a reload) is where it starts, not a level-up.
 */
export class ChangeCues {
  private level: number | undefined;

  cue(change: WorldChange, selfId: number | undefined): Cue | undefined {
    switch (change.type) {
      case 'enter':
        this.level = change.entity.level;
        return undefined;
      case 'reset':
        this.level = undefined;
        return undefined;
      case 'death':
        if (selfId === undefined) return undefined;
        return change.entity.id === selfId || change.killerId === selfId ? 'death' : undefined;
      default:
        return undefined;
    }
  }

  levelNow(level: number | undefined): Cue | undefined {
    if (level === undefined) return undefined;
    const before = this.level;
    this.level = level;
    return before !== undefined && level > before ? 'levelUp' : undefined;
  }
}

/** Lets a cue through unless the same one went less than CUE_GAP_MS ago. */
export class CueGate {
  private readonly last = new Map<Cue, number>();

  pass(cue: Cue, now: number): boolean {
    const at = this.last.get(cue);
    if (at !== undefined && now - at < CUE_GAP_MS) return false;
    this.last.set(cue, now);
    return true;
  }
}
