/**
 * A session's way into a placement: EnterWorldRequest (the character's row is checked here:
 * the account's own?), or a Resume that takes over the account's character lingering here or
 * (the registry's account.<id>) on another gateway. Either way the placement's JOIN has the
 * zone host take it from there.
 */
import { EnterWorldRequest } from '../../shared/protocol/index.js';
import type { ClusterRegistry } from '../cluster/registry.js';
import type { Session } from '../session/session.js';
import type { Store } from '../store/index.js';
import type { Held, PlacementBook } from './placements.js';

/** What the gateway looks up in the cluster registry: where a character or an account is held. */
export type GatewayLookups = Pick<ClusterRegistry, 'characterGateway' | 'sessionGateway'>;

export interface EnteringDeps {
  /** This gateway's id on the bus. */
  readonly id: string;
  readonly store: Pick<Store, 'getCharacter'>;
  readonly book: PlacementBook;
  /** Each zone's id on the bus, by its name. */
  readonly zoneIds: ReadonlyMap<string, string>;
  /** Where a character whose zone is unknown enters. */
  readonly defaultZone: string;
  readonly lookups?: GatewayLookups;
  readonly closed: () => boolean;
}

export class Entering {
  constructor(private readonly deps: EnteringDeps) {}

  /**
   * Resume: attaches `session` to the character its account left lingering in the world,
   * here or (the registry says which) on another gateway, and returns that character's id;
   * the world sends the session its state and view at its next tick. The zone host takes the
   * character over where it stands and tells the other gateway it left. (Should the host have
   * let the character go in the meantime, the JOIN enters it afresh from its saved row.)
   */
  async reattach(session: Session): Promise<number | undefined> {
    const { book } = this.deps;
    const accountId = session.accountId;
    if (accountId === undefined || book.has(session.id)) return undefined;
    const lingering = book.takeLingering(accountId);
    if (lingering) {
      // Still held here: its directory entry stays. And it still has its entity: should this
      // session drop too before the host's JOINED, a later Resume finds the character again.
      book.place(session, lingering);
      return lingering.characterId;
    }
    try {
      const held = await this.deps.lookups?.sessionGateway(accountId);
      if (!held || held.gateway.id === this.deps.id || held.characterId === undefined) return undefined;
      const record = await this.deps.store.getCharacter(held.characterId);
      if (!record || record.accountId !== accountId) return undefined;
      if (session.closing || this.deps.closed() || book.has(session.id)) return undefined;
      book.place(session, this.heldFrom(record));
      return record.id;
    } catch (err) {
      // The session is resumed all the same; entering the character takes it over where it
      // lingers just as well (the zone host finds it).
      session.log.warn({ err }, 'could not look for a character lingering elsewhere');
      return undefined;
    }
  }

  async enterWorld(session: Session, characterId: number): Promise<void> {
    const { book } = this.deps;
    const opcode = EnterWorldRequest.opcode;
    if (book.has(session.id)) {
      session.error('ERR_WRONG_STATE', 'already entering the world', { fatal: false, opcode });
      return;
    }
    const record = await this.deps.store.getCharacter(characterId);
    if (!record || record.accountId !== session.accountId) {
      session.error('ERR_NO_SUCH_CHARACTER', `no character ${characterId} on this account`, {
        fatal: false,
        opcode,
      });
      return;
    }
    if (session.closing || book.has(session.id)) return;
    // This gateway's record of the same character lingering: the zone host hands it over.
    book.forgetLingering(record.id);
    book.place(session, this.heldFrom(record));
  }

  /** A character of the store not yet in the world, as this gateway holds it. */
  private heldFrom(record: { accountId: number; id: number; name: string; zone: string }): Held {
    return {
      accountId: record.accountId,
      characterId: record.id,
      name: record.name,
      zone: this.deps.zoneIds.get(record.zone) ?? this.deps.defaultZone,
      entityId: undefined,
      listed: false,
    };
  }
}
