/**
 * Name rules. Both kinds of name are unique ignoring case (the store keys them lower-cased).
 *
 * Character names: 3-16 ASCII letters, stored capitalised: the first letter upper-case, the
 * rest lower-case ("aRWEN" -> "Arwen"), so the world shows one spelling per name whatever
 * the player typed. Account names: 3-32 ASCII letters, digits or underscores, stored as typed
 * (they are only shown to their owner).
 */
import { ErrorCode } from '../../shared/protocol/errors.js';

export const CHARACTER_NAME_PATTERN = /^[A-Za-z]{3,16}$/;
export const ACCOUNT_NAME_PATTERN = /^[A-Za-z0-9_]{3,32}$/;

export type NameCheck<C extends ErrorCode> = { ok: true; name: string } | { ok: false; code: C };

/** The stored form of a valid character name, or ERR_BAD_NAME. */
export function checkCharacterName(raw: string): NameCheck<typeof ErrorCode.BadName> {
  if (!CHARACTER_NAME_PATTERN.test(raw)) return { ok: false, code: ErrorCode.BadName };
  return { ok: true, name: raw.charAt(0).toUpperCase() + raw.slice(1).toLowerCase() };
}

/** A valid account name as typed, or ERR_BAD_ACCOUNT_NAME. */
export function checkAccountName(raw: string): NameCheck<typeof ErrorCode.BadAccountName> {
  if (!ACCOUNT_NAME_PATTERN.test(raw)) return { ok: false, code: ErrorCode.BadAccountName };
  return { ok: true, name: raw };
}
