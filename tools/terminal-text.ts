/** The terminal client's words that need no connection: command help and default character names. */
import { WyvernError } from '../shared/client/errors.js';
import { ErrorCode } from '../shared/protocol/errors.js';

/** The command list; `spells` is how many spells the character knows, once the server has said. */
export function commandHelp(spells?: number): string {
  const range = spells === undefined ? 'its place' : spells > 1 ? `1-${spells}` : '1';
  return `Commands:
  /say TEXT            talk to those near you
  /zone TEXT           talk to the whole zone
  /w NAME TEXT         whisper to a player
  /r TEXT              whisper back to whoever whispered to you last
  move X Y             walk to X,Y (round walls)
  move target          walk toward the target until your spells reach it (round walls)
  cast N [TARGET_ID]   cast spell N (${range} in your spell book, or a spell id) at the target
  target nearest       target the nearest living mob in sight (else the shortest walk away)
  target ID            target an entity by id
  who | /who           list players online
  where                your position, health and target
  wait MS              pause a script
  logout | quit        log out and exit
  help                 this list`;
}

const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const NAME_MAX = 16;
const NAME_MIN = 3;

/**
 * Character names to try for an account, best first. Names are 3-16 letters, so digits are
 * spelled out ("alice2" is Alicetwo, not the Alice that "alice1" made); then letters are
 * appended in case that is taken too.
 */
export function characterNameCandidates(account: string): string[] {
  const letters = account
    .toLowerCase()
    .replace(/[0-9]/g, (d) => DIGIT_WORDS[Number(d)]!)
    .replace(/[^a-z]/g, '');
  const base = letters.slice(0, NAME_MAX);
  if (base.length < NAME_MIN) return [];
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  const out = [cap(base)];
  const stem = base.slice(0, NAME_MAX - 1);
  for (const suffix of 'abcdefgh') out.push(cap(stem + suffix));
  return out;
}

/**
 * Creates a character under the first free default name for `account`. Undefined when the
 * account name gives no usable name or every candidate is taken: then the player must choose.
 */
export async function createWithFreeName<T>(
  account: string,
  create: (name: string) => Promise<T>,
): Promise<T | undefined> {
  for (const name of characterNameCandidates(account)) {
    try {
      return await create(name);
    } catch (err) {
      if (err instanceof WyvernError && err.code === ErrorCode.NameTaken) continue;
      throw err;
    }
  }
  return undefined;
}

/** Experience into a level, as a line's tail: "163/350 to level 3", or the top reached. */
export function experienceProgress(stats: {
  level: number;
  experience: number;
  experienceNeeded: number;
}): string {
  return stats.experienceNeeded > 0
    ? `${stats.experience}/${stats.experienceNeeded} to level ${stats.level + 1}`
    : 'highest level';
}

/** A kill's experience: "You gain 63 experience (Meadow Wolf): 163/350 to level 3". */
export function experienceGainText(
  amount: number,
  victim: string,
  stats: { level: number; experience: number; experienceNeeded: number },
): string {
  return `You gain ${amount} experience (${victim}): ${experienceProgress(stats)}`;
}

/** The own level-up: "You reached level 3: 250 health, 180 mana; 13/500 to level 4". */
export function levelUpText(
  stats: { level: number; maxMana: number; experience: number; experienceNeeded: number },
  maxHealth: number,
): string {
  return `You reached level ${stats.level}: ${maxHealth} health, ${stats.maxMana} mana; ${experienceProgress(stats)}`;
}
