/**
 * The character screen: list, create and delete the account's characters.
 *
 *   ListCharacters                -> CharacterList {characters}
 *   CreateCharacter {name, appearance}
 *                                 -> CharacterCreated {character}
 *                                    | Error ERR_BAD_NAME, ERR_NAME_TAKEN, ERR_TOO_MANY_CHARACTERS
 *   DeleteCharacter {characterId} -> CharacterDeleted {characterId} | Error ERR_NO_SUCH_CHARACTER
 *
 * Only an authenticated session gets here (the packets' states say so), so `session.accountId`
 * is set. Refusals are non-fatal Errors carrying the request's opcode. A new character starts
 * from `startingState()` (zone, place, health, mana, spells from the world data).
 */
import {
  CharacterCreated,
  CharacterDeleted,
  CharacterList,
  CreateCharacter,
  DeleteCharacter,
  ListCharacters,
} from '../../shared/protocol/character.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import type { CharacterRecord, CharacterState } from '../store/types.js';
import type { AccountService } from './accounts.js';
import { refuse } from './account.js';
import type { HandlerContext, SessionHandlers } from './handlers.js';

export interface CharacterHandlerDeps {
  readonly accounts: AccountService;
  /** A new character's state; called once per character created. */
  readonly startingState: () => CharacterState;
}

export type CharacterSummary = PayloadOf<typeof CharacterCreated>['character'];

/** What the character screen shows of a stored character. */
export function characterSummary(c: CharacterRecord): CharacterSummary {
  return { id: c.id, name: c.name, level: c.level, zone: c.zone, appearance: c.appearance };
}

/** The account of an authenticated session; refuses (and returns undefined) otherwise. */
function accountOf(ctx: HandlerContext, opcode: number): number | undefined {
  const id = ctx.session.accountId;
  if (id === undefined) refuse(ctx.session, opcode, 'ERR_WRONG_STATE', 'log in first');
  return id;
}

/** Store failures are logged and refused with ERR_INTERNAL, non-fatal: the client may retry. */
function failInternally(ctx: HandlerContext, opcode: number, err: unknown): void {
  ctx.log.error({ err, opcode }, 'character request failed');
  refuse(ctx.session, opcode, 'ERR_INTERNAL', 'the server could not complete the request');
}

export function characterHandlers(deps: CharacterHandlerDeps): SessionHandlers {
  const { accounts, startingState } = deps;
  return {
    async ListCharacters(ctx) {
      const accountId = accountOf(ctx, ListCharacters.opcode);
      if (accountId === undefined) return;
      try {
        const characters = await accounts.listCharacters(accountId);
        ctx.session.send(CharacterList, { characters: characters.map(characterSummary) });
      } catch (err) {
        failInternally(ctx, ListCharacters.opcode, err);
      }
    },

    async CreateCharacter(ctx, { name, appearance }) {
      const accountId = accountOf(ctx, CreateCharacter.opcode);
      if (accountId === undefined) return;
      try {
        const created = await accounts.createCharacter(accountId, name, appearance, startingState());
        if (!created.ok) return refuse(ctx.session, CreateCharacter.opcode, created.code);
        ctx.session.log.info(
          { characterId: created.character.id, name: created.character.name },
          'character created',
        );
        ctx.session.send(CharacterCreated, { character: characterSummary(created.character) });
      } catch (err) {
        failInternally(ctx, CreateCharacter.opcode, err);
      }
    },

    async DeleteCharacter(ctx, { characterId }) {
      const accountId = accountOf(ctx, DeleteCharacter.opcode);
      if (accountId === undefined) return;
      try {
        const deleted = await accounts.deleteCharacter(accountId, characterId);
        if (!deleted.ok) return refuse(ctx.session, DeleteCharacter.opcode, deleted.code);
        ctx.session.log.info({ characterId }, 'character deleted');
        ctx.session.send(CharacterDeleted, { characterId });
      } catch (err) {
        failInternally(ctx, DeleteCharacter.opcode, err);
      }
    },
  };
}
