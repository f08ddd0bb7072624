/**
 * The gateway's placement book: each live session's placement (its character, its zone, and
 * where it stands there: server/gateway/placement.ts), and the characters left lingering in
 * the world after their connection closed, held here until their host says LEFT. A placement
 * changes only through `drive`, which carries out the effects its transition names. The
 * directory (the cluster registry) is told which characters are held here.
 */
import { EnterWorldRequest } from '../../shared/protocol/index.js';
import { Detach, Join, Resync } from '../cluster/wire.js';
import { sayTakenOver } from '../session/account.js';
import type { Session } from '../session/session.js';
import { enteredWorld, leftWorld } from '../session/world-state.js';
import type { InputOutbox } from './outbox.js';
import {
  placementStart,
  placementTransition,
  type PlacementEffect,
  type PlacementEvent,
  type PlacementExit,
  type PlacementState,
} from './placement.js';

/**
 * Told which characters this gateway holds, for the cluster registry (so a whisper or a
 * resume elsewhere can find them): from the zone host's JOINED until its LEFT, lingering
 * included.
 */
export interface SessionDirectory {
  entered(accountId: number, characterId: number, character: string): void;
  left(accountId: number, character: string): void;
}

/**
 * A character this gateway holds: in the directory from the host's JOINED to its LEFT. A live
 * session's placement carries it; once the connection closes it stays as a lingering record
 * (PlacementBook.lingering) until LEFT, and a Resume carries it into a new placement.
 */
export interface Held {
  readonly accountId: number;
  readonly characterId: number;
  /** The character's name as stored. */
  readonly name: string;
  /** Its zone's id on the bus (changed by MOVED when the character walks into the next zone). */
  zone: string;
  /** Its entity, once a zone host said JOINED (kept across a Resume). */
  entityId: number | undefined;
  /** Told to the directory as held here. */
  listed: boolean;
}

/** One of this gateway's live sessions with a character in (or on its way into) a zone. */
export interface Placement {
  readonly session: Session;
  readonly character: Held;
  /** Where it stands: changed only by placementTransition, through PlacementBook.drive. */
  state: PlacementState;
  /** The zone host that said JOINED (its tick messages carry this session's bytes). */
  host: string | undefined;
  /** The soft-limit verdict last sent to the zone host. */
  behind: boolean;
}

/** What some placement effects need beyond the placement (see PlacementBook.drive). */
export interface PlacementContext {
  /** The host's JOINED: the entity, the character it says, and the host that said it. */
  readonly joined?: { readonly entity: number; readonly character: number; readonly host: string };
  /** Its zone went down just now (not found down on entering). */
  readonly news?: boolean;
}

export interface PlacementBookDeps {
  readonly outbox: InputOutbox;
  readonly directory?: SessionDirectory;
  /** Whether the zone has no host right now. */
  readonly zoneDown: (zone: string) => boolean;
  /** A placement has left the book. */
  readonly gone: (p: Placement) => void;
}

export class PlacementBook {
  /** Live sessions' placements, by session id. */
  private readonly placements = new Map<number, Placement>();
  /** Characters whose connection closed, by that session's id: held here until the host's LEFT. */
  private readonly lingering = new Map<number, Held>();

  constructor(private readonly deps: PlacementBookDeps) {}

  get(sessionId: number): Placement | undefined {
    return this.placements.get(sessionId);
  }

  has(sessionId: number): boolean {
    return this.placements.has(sessionId);
  }

  /** The character a closed session left lingering here. */
  lingeringAt(sessionId: number): Held | undefined {
    return this.lingering.get(sessionId);
  }

  /** The character lingering here left the world (the host's LEFT). */
  endLingering(sessionId: number): void {
    const held = this.lingering.get(sessionId);
    if (!held) return;
    this.lingering.delete(sessionId);
    this.unlist(held);
  }

  /**
   * Takes the account's character lingering here with its entity known out of the lingering
   * records, for a Resume. Still held here: its directory entry stays.
   */
  takeLingering(accountId: number): Held | undefined {
    for (const [id, held] of this.lingering) {
      if (held.entityId === undefined || held.accountId !== accountId) continue;
      this.lingering.delete(id);
      return held;
    }
    return undefined;
  }

  /** Forgets this gateway's record of the character lingering: the zone host hands it over. */
  forgetLingering(characterId: number): void {
    for (const [id, held] of this.lingering) if (held.characterId === characterId) this.lingering.delete(id);
  }

  /** The characters that lingered in `zone`, whose host is gone: out of the directory. */
  dropLingeringIn(zone: string): void {
    for (const [id, held] of this.lingering) {
      if (held.zone !== zone) continue;
      // It lingered on the host that is gone.
      this.lingering.delete(id);
      this.unlist(held);
    }
  }

  /** The placement in the world on a live connection whose character is named `name` (any case). */
  inWorldByName(name: string): Placement | undefined {
    const key = name.toLowerCase();
    for (const p of this.placements.values()) {
      if (p.character.entityId === undefined || p.session.closing || p.session.state !== 'inWorld') continue;
      if (p.character.name.toLowerCase() === key) return p;
    }
    return undefined;
  }

  /** A zone of `host` (its id on the bus) that one of this gateway's placements is in (undefined: none). */
  zoneOf(host: string): string | undefined {
    for (const p of this.placements.values()) if (p.host === host) return p.character.zone;
    return undefined;
  }

  /** The host (its id on the bus) that one of this gateway's placements in `zone` has heard from. */
  hostIn(zone: string): string | undefined {
    for (const p of this.placements.values()) if (p.character.zone === zone && p.host) return p.host;
    return undefined;
  }

  /** Drives each placement `where` picks by `event`; how many took it. */
  driveAll(where: (p: Placement) => boolean, event: PlacementEvent, ctx: PlacementContext = {}): number {
    let moved = 0;
    for (const p of this.placements.values()) {
      if (where(p) && this.drive(p, event, ctx)) moved++;
    }
    return moved;
  }

  sessionClosed(session: Session): void {
    const p = this.placements.get(session.id);
    if (p) this.drive(p, { type: 'closed' });
  }

  /** Places `session` with `character` (its entity known if it is resumed): a JOIN, unless its zone is down. */
  place(session: Session, character: Held): Placement {
    const { state, effects } = placementStart({
      zoneDown: this.deps.zoneDown(character.zone),
      resumed: character.entityId !== undefined,
    });
    const p: Placement = { session, character, state, host: undefined, behind: false };
    this.placements.set(session.id, p);
    for (const effect of effects) this.carryOut(p, effect, {});
    return p;
  }

  /**
   * Moves the placement by `event` (placement.ts) and carries out the effects, in order.
   * Returns false, changing nothing, if its state refuses the event. A placement that ends
   * gone leaves the book (its character may stay, lingering).
   */
  drive(p: Placement, event: PlacementEvent, ctx: PlacementContext = {}): boolean {
    const t = placementTransition(p.state, event);
    if ('refused' in t) return false;
    p.state = t.state;
    if (t.state.kind === 'gone') {
      if (this.placements.get(p.session.id) === p) this.placements.delete(p.session.id);
      this.deps.gone(p);
    }
    if (ctx.joined) {
      p.character.entityId = ctx.joined.entity;
      p.host = ctx.joined.host;
    }
    for (const effect of t.effects) this.carryOut(p, effect, ctx);
    return true;
  }

  private carryOut(p: Placement, effect: PlacementEffect, ctx: PlacementContext): void {
    const { session, character } = p;
    switch (effect.kind) {
      case 'sendJoin':
      case 'sendDetach':
      case 'sendResync':
        this.send(p, effect.kind);
        return;
      case 'tellZoneDown': {
        const zone = character.zone;
        const reason = ctx.news ? `the host of zone ${zone} is gone` : `zone ${zone} has no host right now`;
        session.error('ERR_ZONE_DOWN', reason, { fatal: false });
        return;
      }
      case 'enterSession':
        if (!session.closing) {
          enteredWorld(session, character.entityId!, ctx.joined?.character ?? character.characterId);
        }
        return;
      case 'exitSession':
        this.exitSession(p, effect.exit);
        return;
      case 'list':
        this.list(character);
        return;
      case 'unlist':
        this.unlist(character);
        return;
      case 'keepLingering':
        this.lingering.set(session.id, character);
        return;
      case 'forgetEntity':
        character.entityId = undefined;
        return;
    }
  }

  /** The placement's record for its zone host, in the zone's input message of this turn. */
  private send(p: Placement, kind: 'sendJoin' | 'sendDetach' | 'sendResync'): void {
    const { session, character } = p;
    const w = this.deps.outbox.inputs(character.zone);
    if (!w) return;
    switch (kind) {
      case 'sendJoin':
        Join.write(w, {
          session: session.id,
          account: character.accountId,
          character: character.characterId,
        });
        return;
      case 'sendDetach':
        Detach.write(w, { session: session.id });
        return;
      case 'sendResync':
        Resync.write(w, { session: session.id });
        return;
    }
  }

  /** Tells the session why its character left: Bye for a take-over, an error if it never entered. */
  private exitSession({ session, character }: Placement, exit: PlacementExit): void {
    if (exit === 'takenOver') {
      // Resumed (or entered) through another gateway while this connection was still open.
      session.log.info({ accountId: character.accountId }, 'character taken over through another gateway');
      sayTakenOver(session);
      return;
    }
    leftWorld(session);
    if (exit === 'notEntered') {
      session.error('ERR_INTERNAL', 'could not enter the world', {
        fatal: false,
        opcode: EnterWorldRequest.opcode,
      });
    }
  }

  list(character: Held): void {
    if (character.listed) return;
    character.listed = true;
    this.deps.directory?.entered(character.accountId, character.characterId, character.name);
  }

  private unlist(character: Held): void {
    if (!character.listed) return;
    character.listed = false;
    this.deps.directory?.left(character.accountId, character.name);
  }
}
