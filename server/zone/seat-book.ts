/**
 * The seat book: every gateway session's character on this host (its seat, seat-record.ts),
 * by the world's session id and by (gateway, session). A seat's state changes only by
 * seatTransition (seat.ts), through drive, which has the effects it returns carried out
 * (seat-effects.ts).
 *
 * Lingering: a character whose connection drops stays in the world, standing, visible and
 * attackable, for lingerMs (and at least combatLingerMs after its last combat action), then
 * leaves as a logout does. A join for the same character within that time (a Resume, or a
 * login that enters it) takes it over where it stands: the new session is attached to the
 * same entity, which never leaves anyone's view. A gateway found gone (its node lease lapsed
 * in the registry: gatewayGone) has all its sessions' characters left lingering this way, as
 * if each connection had dropped; its players get them back by logging in elsewhere.
 */
import type { Bus } from '../cluster/bus.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { WorldEvent } from '../world/index.js';
import type { Forwards } from './forwards.js';
import { GatewayLink } from './gateway-link.js';
import type { HostedZones } from './hosted-zones.js';
import { toSaved, type Saving } from './saving.js';
import { seatTransition, type SeatEvent, type SeatState } from './seat.js';
import { SeatEffects, type SeatsByGateway } from './seat-effects.js';
import type { Seat, SeatContext } from './seat-record.js';
import type { ZoneRunner } from './zone-runner.js';

export type { Seat, SeatContext } from './seat-record.js';

/** How a gateway ended: `stopped` as planned, or `lost` (killed, or lost for a lease's TTL). */
export type GatewayEnd = 'stopped' | 'lost';

export interface SeatBookOptions {
  readonly store: Store;
  readonly bus: Bus;
  readonly hostId: string;
  /** This host's epoch for its tick messages (server/cluster/sequenced.ts). */
  readonly epoch: number;
  readonly log: Logger;
  readonly clock: () => number;
  /** How long a character stays after its connection drops (ms). */
  readonly lingerMs: number;
  /** ...and at least this long after its last combat action (ms). */
  readonly combatLingerMs: number;
}

export class SeatBook implements SeatsByGateway {
  /** By the world's session id. */
  private readonly seats = new Map<number, Seat>();
  /** By gateway id: the link, and its sessions' seats by their gateway session id. */
  private readonly links = new Map<string, { link: GatewayLink; seats: Map<number, Seat> }>();
  /** Seats whose connection dropped: their characters stay until their time is up. */
  private readonly lingering = new Set<Seat>();
  private readonly clock: () => number;
  private readonly effects: SeatEffects;
  private nextWorldSession = 1;

  constructor(
    private readonly opts: SeatBookOptions,
    private readonly hosted: HostedZones,
    private readonly saving: Saving,
    forwards: Forwards,
  ) {
    this.clock = opts.clock;
    this.effects = new SeatEffects(this, forwards, opts.log);
  }

  /** The seat by the world's session id. */
  get(worldSession: number): Seat | undefined {
    return this.seats.get(worldSession);
  }

  values(): IterableIterator<Seat> {
    return this.seats.values();
  }

  /** The seat of a world player, by the session id the world has for it. */
  seatOf(worldSession: number, playerId: number): Seat | undefined {
    const seat = this.seats.get(worldSession);
    return seat?.playerId === playerId ? seat : undefined;
  }

  linkOf(gateway: string): { link: GatewayLink; seats: Map<number, Seat> } {
    let entry = this.links.get(gateway);
    if (!entry) {
      entry = {
        link: new GatewayLink(
          gateway,
          this.opts.bus,
          this.opts.hostId,
          undefined,
          this.clock,
          this.opts.epoch,
        ),
        seats: new Map(),
      };
      this.links.set(gateway, entry);
    }
    return entry;
  }

  seatsOf(gateway: string): Map<number, Seat> {
    return this.linkOf(gateway).seats;
  }

  knownSeats(gateway: string): Map<number, Seat> | undefined {
    return this.links.get(gateway)?.seats;
  }

  /** The bus came back: each gateway hears the newest seq of this host's tick messages to it. */
  markNow(): void {
    for (const { link } of this.links.values()) link.markNow();
  }

  /** Sends each gateway its sessions' bytes for this tick. */
  publish(): void {
    for (const { link } of this.links.values()) link.publish();
  }

  /**
   * Moves the seat by `event` (seat.ts) and carries out the effects, in order; `ctx` gives
   * what an effect needs beyond the seat. Returns false, changing nothing, if the seat's
   * state refuses the event. A seat that ends gone leaves the books.
   */
  drive(seat: Seat, event: SeatEvent, ctx: SeatContext = {}): boolean {
    const t = seatTransition(seat.state, event);
    if ('refused' in t) return false;
    if (seat.state.kind === 'lingering') this.lingering.delete(seat);
    seat.state = t.state;
    if (t.state.kind === 'lingering') this.lingering.add(seat);
    if (ctx.host) seat.host = ctx.host;
    if (ctx.playerId !== undefined) seat.playerId = ctx.playerId;
    for (const effect of t.effects) this.effects.carryOut(seat, effect, ctx);
    if (t.state.kind === 'gone') this.dropSeat(seat);
    return true;
  }

  /** Takes a gone seat off the books; whoever waits for it carries on. */
  private dropSeat(seat: Seat): void {
    if (this.seats.get(seat.worldSession) === seat) this.seats.delete(seat.worldSession);
    const seats = this.links.get(seat.link.gateway)?.seats;
    if (seats?.get(seat.session) === seat) seats.delete(seat.session);
    // After this tick's saves are flushed (runTick does that before yielding), so a waiter
    // that then calls waitUntilSaved finds the save in flight.
    seat.markGone();
  }

  /** Lingering characters whose time is up leave (queued for this tick's step). */
  expireLingering(now: number): void {
    if (this.lingering.size === 0) return;
    for (const seat of this.lingering) {
      if (seat.state.kind !== 'lingering') continue;
      const player = seat.host.world.players.get(seat.playerId!);
      if (!player) continue;
      const until = Math.max(
        seat.state.since + this.opts.lingerMs,
        player.lastCombatAt + this.opts.combatLingerMs,
      );
      if (now >= until) this.drive(seat, { type: 'expired' });
    }
  }

  /**
   * A gateway session enters `characterId` (its account checked by the gateway): takes the
   * character over where it lingers, or takes it from an older session on its way in, waits
   * for its last save, and queues the join with the row read afresh.
   */
  async join(
    requested: ZoneRunner,
    link: GatewayLink,
    session: number,
    accountId: number,
    characterId: number,
  ): Promise<void> {
    const seats = this.linkOf(link.gateway).seats;
    if (seats.has(session)) return;
    if (this.takeOver(link, session, characterId)) return;
    // The same character on its way in (or in the world) for an older connection: take it
    // out first, and load the row only once that entity's state has been saved.
    const previous = [...this.seats.values()].filter((s) => s.characterId === characterId);
    for (const other of previous) this.drive(other, { type: 'superseded' });
    const seat = this.newSeat(requested, link, session, accountId, characterId, { kind: 'loading' });
    await Promise.all(previous.map((o) => o.gone));
    await this.saving.waitUntilSaved(characterId);
    const record = await this.opts.store.getCharacter(characterId);
    if (!record || record.accountId !== accountId) {
      this.drive(seat, { type: 'noRow' });
      return;
    }
    seat.spells = record.spells;
    // Its saved zone if this host has it (not standing idle for another host), else the one asked.
    const saved = this.hosted.isIdle(record.zone) ? undefined : this.hosted.zones.get(record.zone);
    this.drive(seat, { type: 'rowRead' }, { host: saved ?? requested, character: toSaved(record) });
  }

  /** The session takes the character over where it stands, if it is in the world here. */
  private takeOver(link: GatewayLink, session: number, characterId: number): boolean {
    const taker = { link, session };
    // Lingering: the new session takes it where it stands; the old one hears it left.
    for (const seat of this.lingering) {
      if (seat.characterId === characterId && this.drive(seat, { type: 'takeOver', exit: 'left' }, { taker }))
        return true;
    }
    // Still connected through another gateway (which has not noticed its connection is gone
    // yet, or the account resumed elsewhere): taken over where it stands all the same. Its own
    // gateway always sends DETACH before such a JOIN; another gateway's comes in no order.
    for (const seat of this.seats.values()) {
      if (seat.characterId !== characterId || seat.link === link) continue;
      if (this.drive(seat, { type: 'takeOver', exit: 'takenOver' }, { taker })) return true;
    }
    return false;
  }

  newSeat(
    host: ZoneRunner,
    link: GatewayLink,
    session: number,
    accountId: number,
    characterId: number,
    state: SeatState,
  ): Seat {
    let markGone!: () => void;
    const gone = new Promise<void>((resolve) => (markGone = resolve));
    const seat: Seat = {
      host,
      worldSession: this.nextWorldSession++,
      link,
      session,
      accountId,
      characterId,
      spells: [],
      output: undefined,
      state,
      gone,
      markGone,
    };
    this.seats.set(seat.worldSession, seat);
    this.linkOf(link.gateway).seats.set(session, seat);
    return seat;
  }

  /**
   * The world made (join), took in (arrive) or re-attached (attach) an entity for the seat:
   * it is bound to its session's output, or sent away if its seat is gone meanwhile.
   */
  onJoined(host: ZoneRunner, worldSession: number, playerId: number): void {
    const seat = this.seats.get(worldSession);
    if (seat) this.drive(seat, { type: 'joined', now: this.clock() }, { host, playerId });
    // The connection went away, or the zone was lost and found again, while the join was queued.
    else host.queue({ type: 'leave', entityId: playerId, reason: 'disconnected' });
  }

  onLeftWorld(host: ZoneRunner, e: Extract<WorldEvent, { type: 'leftWorld' }>): void {
    host.unbind(e.playerId);
    const seat = this.seatOf(e.sessionId, e.playerId);
    if (seat) this.drive(seat, { type: 'left' });
  }

  /** Another host took the zone: its seats here go, unsaved and untold. Returns how many. */
  loseZone(old: ZoneRunner): number {
    let dropped = 0;
    for (const seat of [...this.seats.values()]) {
      if (seat.host !== old) continue;
      dropped++;
      this.drive(seat, { type: 'lost' });
    }
    return dropped;
  }

  /**
   * A gateway is gone: `stopped` (a planned stop: it said Bye to its clients and released its
   * node entry) or `lost` (killed: its node lease lapsed, or it came back as a new instance).
   * Every session it held ended with it. Their characters linger as after a DETACH, so their
   * players can resume on another gateway; the link forgets the sessions, so a restarted
   * gateway reusing their ids starts clean.
   */
  gatewayGone(gateway: string, how: GatewayEnd = 'lost'): void {
    const entry = this.links.get(gateway);
    if (!entry) return;
    const seats = [...entry.seats.values()];
    entry.seats.clear();
    entry.link.forgive();
    const now = this.clock();
    for (const seat of seats) this.drive(seat, { type: 'closed', now });
    if (how === 'stopped') {
      this.opts.log.info(
        { gateway, sessions: seats.length },
        'gateway stopped as planned: its characters linger',
      );
    } else {
      this.opts.log.warn({ gateway, sessions: seats.length }, 'gateway gone: its characters linger');
    }
  }
}

/**
 * Sends each seat `which` picks its whole state anew (as after a lost tick message): its client
 * may have missed what its zone did, or the zone what it did. Returns how many.
 */
export function resyncSeats(book: SeatBook, which: (seat: Seat) => boolean): number {
  let n = 0;
  for (const seat of [...book.values()]) if (which(seat) && book.drive(seat, { type: 'resync' })) n++;
  return n;
}
