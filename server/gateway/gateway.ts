/**
 * The gateway role's side of the game: where the dispatch core sends packets whose target is
 * 'zone' or 'world' (it is the GameRouter), and where the zone hosts' bytes come back to the
 * connections. It holds no world state: only each session's placement and the characters
 * left lingering in the world after their connection closed. Each job is a room of its own,
 * and this class wires them:
 *
 *   routing.ts         zone and world packets: a zone packet becomes a PACKET record in the
 *                      zone's input message (outbox.ts: one per zone and event-loop turn),
 *                      its payload unread (the zone host decodes it, once)
 *   placements.ts      the placement book: each session's place in a zone (placement.ts is its
 *                      state machine), the lingering characters, the directory
 *   entering.ts        EnterWorldRequest and Resume: a character into a placement
 *   zone-claims.ts     zone hosts gone and back (the registry's claims): sessions wait, rejoin
 *   intake.ts          the zone hosts' batches: JOINED, BYTES, MOVED, LEFT, REFUSED; lost ticks
 *   backpressure.ts    the connections' soft-limit verdicts back to their hosts
 *   world-requests.ts  whisper and who, asked of other gateways and the zone hosts
 *
 * The session state machine is changed only through server/session/world-state.ts.
 */
import type { Frame } from '../../shared/codec/frame.js';
import { ChatSend, type PayloadOf } from '../../shared/protocol/index.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import type { Bus, BusSubscription } from '../cluster/bus.js';
import { newEpoch } from '../cluster/sequenced.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import type { GameRouter, ZonePacketDef } from '../dispatch/router.js';
import type { Logger } from '../log.js';
import type { ResumeWorld } from '../session/account.js';
import type { Session } from '../session/session.js';
import type { Store } from '../store/index.js';
import { Backpressure } from './backpressure.js';
import { Entering, type GatewayLookups } from './entering.js';
import { TickIntake } from './intake.js';
import { InputOutbox } from './outbox.js';
import { PlacementBook, type SessionDirectory } from './placements.js';
import { Routing } from './routing.js';
import { WorldRequests } from './world-requests.js';
import { ZoneClaims } from './zone-claims.js';

export type { GatewayLookups } from './entering.js';
export type { SessionDirectory } from './placements.js';

export interface GatewayOptions {
  /** This gateway's id on the bus (a subject token). */
  readonly id: string;
  readonly bus: Bus;
  /** Where characters are looked up (to check the account and find the zone). */
  readonly store: Pick<Store, 'getCharacter'>;
  /** The world's zone names; a character whose zone is not among them enters the first. */
  readonly zones: readonly string[];
  readonly log: Logger;
  /** Server clock in ms (Unix epoch): the time a zone packet was received. */
  readonly clock?: () => number;
  /** Writes every connection with frames waiting (the server's FlushScheduler). */
  readonly flush: () => void;
  /** How long a world request (whisper, who) may take. Default 2 s. */
  readonly requestTimeoutMs?: number;
  readonly directory?: SessionDirectory;
  /** Without it, whispers and resumes find only this gateway's own characters. */
  readonly lookups?: GatewayLookups;
  /** The ids of the live zone hosts (from the registry's watch), asked for who. */
  readonly zoneHosts?: () => readonly string[];
}

export class Gateway implements GameRouter, ResumeWorld {
  readonly id: string;
  private readonly outbox: InputOutbox;
  private readonly book: PlacementBook;
  private readonly claims: ZoneClaims;
  private readonly entering: Entering;
  private readonly intake: TickIntake;
  private readonly requests: WorldRequests;
  private readonly routing: Routing;
  private readonly subscriptions: BusSubscription[];
  private readonly stopReconnects: () => void;
  private closed = false;

  constructor(opts: GatewayOptions) {
    this.id = opts.id;
    const zoneIds = new Map(opts.zones.map((name) => [name, zoneId(name)]));
    const first = opts.zones[0];
    if (first === undefined) throw new Error('the world has no zone');
    const closed = () => this.closed;
    const clock = opts.clock ?? Date.now;
    const outbox = (this.outbox = new InputOutbox(
      opts.id,
      opts.bus,
      clock,
      newEpoch(),
      (zone) => this.intake.epochOf(this.claims.holderOf(zone) ?? this.book.hostIn(zone)),
      (sessions) => this.linesLost(sessions),
    ));
    const backpressure = new Backpressure({ outbox, current: (p) => this.book.get(p.session.id) === p });
    const book = (this.book = new PlacementBook({
      outbox,
      ...(opts.directory && { directory: opts.directory }),
      zoneDown: (zone) => this.claims.isDown(zone),
      gone: (p) => backpressure.forget(p),
    }));
    this.claims = new ZoneClaims({ book, log: opts.log, closed });
    this.entering = new Entering({
      id: opts.id,
      store: opts.store,
      book,
      zoneIds,
      defaultZone: zoneId(first),
      ...(opts.lookups && { lookups: opts.lookups }),
      closed,
    });
    this.intake = this.tickIntake(opts, backpressure, zoneIds, clock);
    this.requests = new WorldRequests({
      id: opts.id,
      bus: opts.bus,
      book,
      zoneIds,
      log: opts.log,
      ...(opts.requestTimeoutMs !== undefined && { requestTimeoutMs: opts.requestTimeoutMs }),
      ...(opts.lookups && { lookups: opts.lookups }),
      ...(opts.zoneHosts && { zoneHosts: opts.zoneHosts }),
      closed,
    });
    this.routing = new Routing({
      outbox,
      book,
      clock,
      enter: (session, characterId) => this.entering.enterWorld(session, characterId),
      whisper: (session, to, text) => this.requests.whisper(session, to, text),
      who: (session) => this.requests.who(session),
    });
    [this.subscriptions, this.stopReconnects] = this.listen(opts.bus, opts.id);
  }

  /** What the zone hosts send this gateway, read in each host's order. */
  private tickIntake(
    opts: GatewayOptions,
    backpressure: Backpressure,
    zoneIds: ReadonlyMap<string, string>,
    clock: () => number,
  ): TickIntake {
    const { book, outbox } = this;
    return new TickIntake({
      book,
      backpressure,
      zoneIds,
      flush: opts.flush,
      log: opts.log,
      gateway: opts.id,
      bus: opts.bus,
      outbox,
      clock,
      zoneOf: (host) => this.claims.zoneOf(host) ?? book.zoneOf(host),
    });
  }

  /** This gateway's subjects; and, back on the bus, what either end missed is found at once. */
  private listen(bus: Bus, id: string): [BusSubscription[], () => void] {
    const stop = bus.onReconnect?.(() => {
      this.intake.probe();
      this.outbox.markNow();
    });
    const subscriptions = [
      bus.subscribe(Subjects.gatewayTick(id), (m) => this.intake.onBatch(m)),
      bus.subscribe(Subjects.gatewayDirect(id), (m) => this.intake.onBatch(m)),
      bus.subscribe(Subjects.gatewayWhisper(id), (m) => this.requests.onWhisper(m)),
    ];
    return [subscriptions, stop ?? (() => {})];
  }

  /** This gateway instance's epoch: the zone hosts' tick messages to it name it. */
  get epoch(): number {
    return this.outbox.epoch;
  }

  /** Times tick messages were found missing. */
  get lostTicks(): number {
    return this.intake.lostTicks;
  }

  /** Lines these sessions said were lost on the bus for good: each sayer hears its line was not heard. */
  private linesLost(sessions: readonly number[]): void {
    for (const id of sessions) {
      this.book
        .get(id)
        ?.session.error('ERR_INTERNAL', 'not heard: the line was lost on its way to the zone', {
          fatal: false,
          opcode: ChatSend.opcode,
        });
    }
  }

  /** Sends what is queued and stops listening; later packets go nowhere. */
  close(): void {
    if (this.closed) return;
    this.stopReconnects();
    this.outbox.close();
    this.intake.close();
    this.closed = true;
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
  }

  zone(session: Session, def: ZonePacketDef, frame: Frame): void {
    this.routing.zone(session, def, frame);
  }

  world<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void {
    this.routing.world(session, def, payload);
  }

  sessionClosed(session: Session): void {
    this.book.sessionClosed(session);
  }

  /** Resume: see Entering.reattach. */
  reattach(session: Session): Promise<number | undefined> {
    return this.entering.reattach(session);
  }

  /** The registry's word on a zone's claim: see ZoneClaims.zoneClaim. */
  zoneClaim(zone: string, host: { id: string; instance: string } | undefined): void {
    this.claims.zoneClaim(zone, host);
  }
}
