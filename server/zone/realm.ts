/**
 * The realm: the zone-host role. Every zone this process runs, the fixed tick that drives
 * them, saving, lingering, and its part of who (the players in its zones). It knows sessions only as
 * (gateway, session id) pairs that arrive on the bus: zone inputs, joins, detaches and the
 * gateways' soft-limit verdicts come on `wyvern.zone.<zone>.in`, and each tick ends with one
 * message per gateway carrying its sessions' bytes (gateway-link.ts). The gateway role
 * (server/gateway/) holds the sockets and the session state machine.
 *
 * Saving: a player's state is stored when the world says so (logout, disconnect), every
 * autosave interval for everyone in the world (one batched write), and at shutdown. A
 * character that is leaving cannot enter again until its save has been written, so a quick
 * reconnect never loads a stale row: the join waits here, then reads the row afresh.
 *
 * Lingering: a character whose connection drops stays in the world, standing, visible and
 * attackable, for lingerMs (and at least combatLingerMs after its last combat action), then
 * leaves as a logout does. A join for the same character within that time (a Resume, or a
 * login that enters it) takes it over where it stands: the new session is attached to the
 * same entity, which never leaves anyone's view. A gateway found gone (its node lease lapsed
 * in the registry: gatewayGone) has all its sessions' characters left lingering this way, as
 * if each connection had dropped; its players get them back by logging in elsewhere.
 *
 * Seats: each session's character here has one SeatState, changed only by seatTransition
 * (seat.ts) through drive, which carries out the effects it returns.
 */
import { DecodeError } from '../../shared/codec/errors.js';
import { Writer } from '../../shared/codec/writer.js';
import { BusError, BusErrorCode, type Bus, type BusMessage, type BusSubscription } from '../cluster/bus.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import { decodeHandoff, encodeHandoff } from '../cluster/border-wire.js';
import {
  Behind,
  Detach,
  Handoff,
  HandoffAnswer,
  HandoffRequest,
  LeftReason,
  Packet,
  Resync,
  WhoReply,
  ZoneInputs,
} from '../cluster/wire.js';
import type { InnerRecord, RecordIn, RecordOut, StreamHandlers } from '../cluster/inner/define.js';
import type { Logger } from '../log.js';
import { handoffs, storeSaveSeconds, tickSeconds, zoneClaimEvents } from '../metrics/index.js';
import type { CharacterRecord, CharacterSave, CharacterSaver, Store } from '../store/index.js';
import {
  createWorld,
  mulberry32,
  savedCharacter,
  type HandoffState,
  type SavedCharacter,
  type WorldData,
  type WorldEvent,
  type WorldInput,
  type WorldRules,
} from '../world/index.js';
import { BorderLink } from './border-link.js';
import { GatewayLink, type SessionOutput } from './gateway-link.js';
import { zoneInput, zonePacketByOpcode } from './routes.js';
import { seatTransition, takesInputs, type SeatEffect, type SeatEvent, type SeatState } from './seat.js';
import { ZoneHost, type ZoneHostHooks } from './zone-host.js';

/** How a gateway ended: `stopped` as planned, or `lost` (killed, or lost for a lease's TTL). */
export type GatewayEnd = 'stopped' | 'lost';

export interface RealmOptions {
  readonly data: WorldData;
  /** The zones this host runs, by name (default: every zone in `data`). */
  readonly zones?: readonly string[];
  readonly store: Store;
  readonly saver: CharacterSaver;
  readonly bus: Bus;
  /** This zone host's id on the bus (its gateways keep its tick messages' seq by it). */
  readonly hostId?: string;
  readonly log: Logger;
  readonly tickRate: number;
  readonly autosaveMs: number;
  readonly rules?: Partial<WorldRules>;
  /** Server clock in ms (Unix epoch); clients sync to it through Ping/Pong. */
  readonly clock?: () => number;
  readonly seed?: number;
  /** Runs after every tick, once the gateways' messages are published. */
  readonly afterTick?: () => void;
  /** How long a character stays after its connection drops (ms). Default 0: it leaves at once. */
  readonly lingerMs?: number;
  /** ...and at least this long after its last combat action (ms). Default 0. */
  readonly combatLingerMs?: number;
  /**
   * Whether this host holds the zone's claim right now (its registry lease). A zone it does
   * not hold is not run (see Realm.runs). Default: always (one process, nobody to share with).
   * Given, every zone not held when the realm is made stands idle until it is (Realm.claimed).
   */
  readonly holds?: (zone: string) => boolean;
  /** A zone that stood idle runs from now on (its claim is held). */
  readonly onRunning?: (zone: string) => void;
}

/** A character in (or on its way into) one of this host's zones, for one gateway session. */
interface Seat {
  host: ZoneHost;
  /** The id the world knows the session by: this host's own, whichever gateway holds it. */
  readonly worldSession: number;
  /** The gateway holding the session, and its id there. */
  link: GatewayLink;
  session: number;
  readonly accountId: number;
  readonly characterId: number;
  /** Known spells travel with the stored row; the world does not change them yet. */
  spells: number[];
  playerId?: number;
  /** Where its bytes go while it has a connection. */
  output: SessionOutput | undefined;
  /** Where it stands: changed only by seatTransition, through Realm.drive. */
  state: SeatState;
  /** Resolves once the seat is gone (its entity left, or it never got one). */
  readonly gone: Promise<void>;
  readonly markGone: () => void;
}

/** What some seat effects need beyond the seat (see Realm.drive). */
interface SeatContext {
  /** The zone the event happened in (joined, walked into), when it is not the seat's own. */
  readonly host?: ZoneHost;
  /** The seat's entity, once the world has made it. */
  readonly playerId?: number;
  /** The row a join enters. */
  readonly character?: SavedCharacter;
  /** The state a player given back comes back with. */
  readonly arrival?: HandoffState;
  /** The session taking the seat over. */
  readonly taker?: { readonly link: GatewayLink; readonly session: number };
  /** The zone a seat was handed to on another host. */
  readonly zone?: string;
}

const WHO_LIST_MAX = 200;
/** How long inputs for a session handed to another host are sent on after it. */
const FORWARD_MS = 10_000;
/** How long a HANDOFF request waits for its answer, and how many times it is asked. */
const HANDOFF_ANSWER_MS = 1_000;
const HANDOFF_TRIES = 3;
/**
 * A HANDOFF request older than this (by the receiver's clock) is refused: its sender gives the
 * player back once HANDOFF_ANSWER_MS has passed without an answer. The difference allows for
 * the hosts' clocks being that far apart.
 */
const HANDOFF_FRESH_MS = 750;

export class Realm {
  readonly zones = new Map<string, ZoneHost>();
  /** By the world's session id. */
  private readonly seats = new Map<number, Seat>();
  /** By gateway id: the link, and its sessions' seats by their gateway session id. */
  private readonly links = new Map<string, { link: GatewayLink; seats: Map<number, Seat> }>();
  /** Seats whose connection dropped: their characters stay until their time is up. */
  private readonly lingering = new Set<Seat>();
  private readonly lingerMs: number;
  private readonly combatLingerMs: number;
  /** Characters whose leave is being saved; entering again waits for it. */
  private readonly leaving = new Map<number, Promise<unknown>>();
  private readonly clock: () => number;
  private readonly hostId: string;
  private readonly subscriptions: BusSubscription[] = [];
  /** Sessions handed to another host, by "gateway\nsession": where their late inputs go. */
  private readonly forwards = new Map<string, { zone: string; until: number }>();
  /** Each zone's zone-input handlers, made once. */
  private readonly inputHandlers = new WeakMap<ZoneHost, StreamHandlers<typeof ZoneInputs>>();
  /** Border strips to and from the neighbours of this host's zones. */
  private readonly border: BorderLink;
  private nextWorldSession = 1;
  private timer: NodeJS.Timeout | undefined;
  private autosaveTimer: NodeJS.Timeout | undefined;
  private nextTickAt = 0;
  private saveRequested = false;
  /** Characters that left since the last flush: they may not re-enter before it is written. */
  private leavingIds: number[] = [];
  /** Zones whose claim this host does not hold right now: not stepped, saved or sent. */
  private readonly fenced = new Set<string>();
  /**
   * Fenced zones this host has not held since it made them (at start, or anew after losing
   * them): another host's or nobody's. Their inputs, hand-off requests and strips are left to
   * whoever runs them; once claimed, the zone is made afresh and runs (see runs).
   */
  private readonly idle = new Set<string>();
  /** Zones this host has run (a claim held again after a loss is told apart from a first one). */
  private readonly ran = new Set<string>();
  private readonly hooks: ZoneHostHooks;
  private seed: number;
  /** Ticks started late by more than a whole interval (the loop was blocked). */
  lateTicks = 0;

  constructor(private readonly opts: RealmOptions) {
    this.clock = opts.clock ?? Date.now;
    this.hostId = opts.hostId ?? 'zone-host';
    this.lingerMs = opts.lingerMs ?? 0;
    this.combatLingerMs = opts.combatLingerMs ?? 0;
    this.hooks = {
      joined: (host, sessionId, playerId) => this.onJoined(host, sessionId, playerId),
      save: (host, e) => this.onSave(host, e),
      leftWorld: (host, e) => this.onLeftWorld(host, e),
      handedOff: (host, e) => this.onHandedOff(host, e),
    };
    this.seed = opts.seed ?? this.clock() & 0x7fffffff;
    for (const zone of opts.data.zones) {
      if (!this.hosted.includes(zone.name)) continue;
      this.zones.set(zone.name, this.createZone(zone.name));
      if (opts.holds && !opts.holds(zone.name)) {
        this.fenced.add(zone.name);
        this.idle.add(zone.name);
      } else this.ran.add(zone.name);
      // Subscribed before the zone is claimed, so that whoever sees the claim finds it listening.
      this.subscriptions.push(
        opts.bus.subscribe(Subjects.zoneInput(zoneId(zone.name)), (m) => {
          const host = this.admit(zone.name);
          if (host) this.onZoneInputs(host, m);
        }),
        opts.bus.subscribe(Subjects.zoneHandoff(zoneId(zone.name)), (m) => {
          // Unanswered while idle: the host that runs the zone answers.
          if (this.admit(zone.name)) this.onHandoff(zone.name, m);
        }),
      );
    }
    if (this.zones.size === 0) throw new Error('the world data has no zone');
    this.border = new BorderLink(opts.bus, this.zones, (zone) => this.running(zone), opts.log, this.clock);
    // Whispers never come here: gateways find their targets in the registry and deliver them.
    this.subscriptions.push(opts.bus.subscribe(Subjects.hostWho(this.hostId), (m) => this.who(m)));
  }

  private get hosted(): readonly string[] {
    return this.opts.zones ?? this.opts.data.zones.map((z) => z.name);
  }

  /** A zone as its data makes it: its mobs at home, nobody in it. */
  private createZone(name: string): ZoneHost {
    const rng = mulberry32(this.seed++);
    // Players walk across a border to a zone this host runs too (handed over in process).
    const world = createWorld(this.opts.data, {
      zone: name,
      rules: this.opts.rules,
      now: this.clock(),
      rng,
      openBorders: this.hosted,
    });
    return new ZoneHost(world, rng, this.hooks);
  }

  // ------------------------------------------------------------------ lifecycle

  start(): void {
    const interval = 1000 / this.opts.tickRate;
    this.nextTickAt = performance.now() + interval;
    const loop = () => {
      this.runTick();
      this.nextTickAt += interval;
      const now = performance.now();
      if (now - this.nextTickAt > interval) {
        // Far behind (the process was stalled): start afresh rather than burst ticks.
        this.lateTicks++;
        this.nextTickAt = now + interval;
      }
      this.timer = setTimeout(loop, Math.max(0, this.nextTickAt - now));
    };
    this.timer = setTimeout(loop, interval);
    this.autosaveTimer = setInterval(() => this.saveEveryone(), this.opts.autosaveMs);
    this.autosaveTimer.unref();
  }

  /** Runs every zone's tick once (the timer calls this; tests may call it directly). */
  runTick(): void {
    const started = performance.now();
    const now = this.clock();
    // Before the step: a leave queued here is applied in this very tick, so no resume can
    // come between the decision and the departure.
    if (this.lingering.size > 0) this.expireLingering(now);
    for (const host of this.zones.values()) this.runs(host);
    this.border.open(now);
    for (const host of this.zones.values()) if (!this.fenced.has(host.name)) host.tick(now);
    this.border.publish();
    if (this.saveRequested) {
      this.saveRequested = false;
      this.flushSaves();
    }
    for (const { link } of this.links.values()) link.publish();
    this.opts.afterTick?.();
    tickSeconds.observe((performance.now() - started) / 1000);
  }

  /** Stops ticking and listening, and writes every player's state. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    clearInterval(this.autosaveTimer);
    this.timer = this.autosaveTimer = undefined;
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
    this.border.close();
    this.markEveryoneDirty();
    await this.opts.saver.stop();
  }

  /**
   * Whether the zone is this host's to run at this tick, checked before each: a host whose
   * claim lapsed (a stall or a partition longer than the lease) steps, saves and sends nothing
   * for it, since another host may run it now. If the claim comes back to this host unbroken,
   * the zone carries on where it stopped (its gateways resync their sessions); if another
   * host took it, loseZone drops what is left here.
   */
  private runs(host: ZoneHost): boolean {
    const held = this.opts.holds?.(host.name) ?? true;
    const wasHeld = !this.fenced.has(host.name);
    if (held === wasHeld) return held;
    if (held) {
      this.fenced.delete(host.name);
      const idle = this.idle.delete(host.name);
      // Made while another host ran it, or nobody: as its data makes it, from now.
      if (idle) this.zones.set(host.name, this.createZone(host.name));
      if (this.ran.has(host.name)) {
        zoneClaimEvents.inc({ event: 'resumed' });
        this.opts.log.warn({ zone: host.name }, 'zone claim held again: running the zone');
      } else this.opts.log.info({ zone: host.name }, 'zone claimed: running the zone');
      this.ran.add(host.name);
      if (idle) this.opts.onRunning?.(host.name);
    } else {
      this.fenced.add(host.name);
      zoneClaimEvents.inc({ event: 'stopped' });
      this.opts.log.error({ zone: host.name }, 'zone claim not held: the zone stops until it is');
    }
    return held;
  }

  /** Whether this host runs the zone now (it holds its claim). */
  running(zone: string): boolean {
    return this.zones.has(zone) && !this.fenced.has(zone);
  }

  /**
   * The zone's claim was just taken (`holds` says so from now): it runs at once, without
   * waiting for the next tick, so its inputs are taken from the first message on.
   */
  claimed(zone: string): void {
    const host = this.zones.get(zone);
    if (host) this.runs(host);
  }

  /**
   * The zone, when its bus traffic is this host's to take: not while it stands idle (one
   * claimed a moment ago runs from here, should its first message come before claimed()).
   */
  private admit(zone: string): ZoneHost | undefined {
    if (this.idle.has(zone)) this.runs(this.zones.get(zone)!);
    return this.idle.has(zone) ? undefined : this.zones.get(zone);
  }

  /**
   * Another host runs the zone now: it took the claim while this host's had lapsed, and
   * entered the zone's players again from their last saves. Everything of the zone here goes,
   * unsaved and untold (the gateways route those sessions to the other host already), and the
   * zone starts afresh, stopped until this host holds its claim again.
   */
  loseZone(zone: string): void {
    const old = this.zones.get(zone);
    if (!old) return;
    this.fenced.add(zone);
    this.idle.add(zone);
    let dropped = 0;
    for (const seat of [...this.seats.values()]) {
      if (seat.host !== old) continue;
      dropped++;
      this.drive(seat, { type: 'lost' });
    }
    this.zones.set(zone, this.createZone(zone));
    zoneClaimEvents.inc({ event: 'lost' });
    this.opts.log.error({ zone, players: dropped }, 'zone lost to another host: its state here is dropped');
  }

  /** Marks everyone in the world dirty and writes them in one batch. */
  saveEveryone(): Promise<unknown> {
    this.markEveryoneDirty();
    return this.flushSaves();
  }

  get playerCount(): number {
    let n = 0;
    for (const host of this.zones.values()) if (!this.fenced.has(host.name)) n += host.world.players.size;
    return n;
  }

  // ------------------------------------------------------------------ zone inputs

  private linkOf(gateway: string): { link: GatewayLink; seats: Map<number, Seat> } {
    let entry = this.links.get(gateway);
    if (!entry) {
      entry = { link: new GatewayLink(gateway, this.opts.bus, this.hostId), seats: new Map() };
      this.links.set(gateway, entry);
    }
    return entry;
  }

  private onZoneInputs(host: ZoneHost, message: BusMessage): void {
    let handlers = this.inputHandlers.get(host);
    if (!handlers) this.inputHandlers.set(host, (handlers = this.zoneInputHandlers(host)));
    ZoneInputs.read(message.data, handlers);
  }

  /**
   * A HANDOFF request from the host of the zone beside (see handOver): the character walked
   * into this zone. Answered TAKEN once it is on its way in (again for a repeated request: an
   * answer may have been lost), REFUSED otherwise. A request older than HANDOFF_FRESH_MS is
   * refused: by then its sender may have given the player back to its own zone.
   */
  private onHandoff(zone: string, message: BusMessage): void {
    const answer = (a: HandoffAnswer, why?: string, detail?: object): void => {
      handoffs.inc({ kind: a === 'taken' ? 'received' : 'refused' });
      if (why) this.opts.log.warn({ zone, ...detail }, `hand-off refused: ${why}`);
      message.respond(HandoffAnswer.encode({ answer: a }));
    };
    const host = this.zones.get(zone);
    let got: { gateway: string; record: RecordOut<typeof Handoff> } | undefined;
    let state: HandoffState;
    try {
      HandoffRequest.read(message.data, {
        Handoff: (record, { gateway }) => {
          got = { gateway, record };
        },
      });
      if (!got) throw new Error('no HANDOFF record');
      state = decodeHandoff(got.record.state);
    } catch (err) {
      return answer('refused', 'unreadable', { err });
    }
    const { gateway, record } = got;
    const detail = { gateway, session: record.session };
    if (!host || !this.running(zone)) return answer('refused', 'the zone is not run here', detail);
    const age = this.clock() - record.sentAt;
    if (age > HANDOFF_FRESH_MS) return answer('refused', 'too old', { ...detail, age });
    const { link, seats } = this.linkOf(gateway);
    const seat = seats.get(record.session);
    if (seat) {
      const same = seat.characterId === state.characterId && seat.playerId === state.entity.id;
      const coming = seat.state.kind === 'arriving' || seat.state.kind === 'returning';
      if (same && (coming || seat.host === host)) return answer('taken');
      return answer('refused', 'the session is here already', detail);
    }
    this.forwards.delete(`${gateway}\n${record.session}`);
    const arriving = this.newSeat(host, link, record.session, record.account, state.characterId, {
      kind: 'arriving',
      connected: true,
    });
    arriving.spells = state.spells;
    arriving.playerId = state.entity.id;
    arriving.output = link.output(record.session);
    host.queue({ type: 'arrive', sessionId: arriving.worldSession, state });
    answer('taken');
  }

  /** What each zone input does, for the zone `host` runs. */
  private zoneInputHandlers(host: ZoneHost): StreamHandlers<typeof ZoneInputs> {
    return {
      Packet: (record, { gateway }) => {
        const { link } = this.linkOf(gateway);
        // Answered REFUSED already: nothing after the bad packet counts (its connection goes).
        if (link.refusedAny && link.refused(record.session)) return;
        const seat = this.inputSeat(gateway, Packet, record);
        // A player handed to another zone of this host: its inputs follow it there. A player
        // out to another host has no entity here to apply them to.
        if (!seat || seat.playerId === undefined || !takesInputs(seat.state)) return;
        const def = zonePacketByOpcode(record.opcode);
        if (!def) {
          // Gateways route by the declared target: only a broken one sends this.
          this.opts.log.warn({ gateway, opcode: record.opcode }, 'zone input refused: not a zone packet');
          return;
        }
        let input: WorldInput;
        try {
          // The payload's one decode: the gateway passed it on unread.
          input = zoneInput(def, seat.playerId, record.payload, record.receivedAt);
        } catch (err) {
          if (!(err instanceof DecodeError)) throw err;
          link.refuse(record.session, record.opcode, err);
          return;
        }
        // A zone stopped for its claim takes no game inputs: they would pile up to no end.
        if (this.fenced.has(seat.host.name)) return;
        seat.host.queue(input);
      },
      Join: ({ session, account, character }, { gateway }) => {
        const { link, seats } = this.linkOf(gateway);
        link.forgive(session);
        void this.join(host, link, session, account, character).catch((err: unknown) => {
          this.opts.log.error({ err, gateway, session }, 'enter world failed');
          const failed = seats.get(session);
          if (failed) this.drive(failed, { type: 'loadFailed' });
          else link.exited(session, LeftReason.NotEntered);
        });
      },
      Detach: (record, { gateway }) => {
        this.linkOf(gateway).link.forgive(record.session);
        const seat = this.inputSeat(gateway, Detach, record);
        if (seat) this.drive(seat, { type: 'closed', now: this.clock() });
      },
      Behind: (record, { gateway }) => {
        const seat = this.inputSeat(gateway, Behind, record);
        if (seat?.output) seat.output.behindNow = record.behind;
      },
      Resync: (record, { gateway }) => {
        const seat = this.inputSeat(gateway, Resync, record);
        if (seat && this.drive(seat, { type: 'resync' })) {
          this.opts.log.warn(
            { gateway: seat.link.gateway, session: seat.session },
            'a tick message was lost: sending the session its state anew',
          );
        }
      },
    };
  }

  /**
   * The seat a zone input is for, if the session has one here; undefined too when the
   * session was handed to another host and the input went on to it (see forward).
   */
  private inputSeat<R extends InnerRecord>(
    gateway: string,
    def: R,
    record: RecordOut<R> & { session: number },
  ): Seat | undefined {
    const seat = this.linkOf(gateway).seats.get(record.session);
    if (!seat && this.forwards.size > 0) this.forward(gateway, def, record);
    return seat;
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

  // ------------------------------------------------------------------ seats

  /**
   * Moves the seat by `event` (seat.ts) and carries out the effects, in order; `ctx` gives
   * what an effect needs beyond the seat. Returns false, changing nothing, if the seat's
   * state refuses the event. A seat that ends gone leaves the realm's books.
   */
  private drive(seat: Seat, event: SeatEvent, ctx: SeatContext = {}): boolean {
    const t = seatTransition(seat.state, event);
    if ('refused' in t) return false;
    if (seat.state.kind === 'lingering') this.lingering.delete(seat);
    seat.state = t.state;
    if (t.state.kind === 'lingering') this.lingering.add(seat);
    if (ctx.host) seat.host = ctx.host;
    if (ctx.playerId !== undefined) seat.playerId = ctx.playerId;
    for (const effect of t.effects) this.carryOut(seat, effect, ctx);
    if (t.state.kind === 'gone') this.dropSeat(seat);
    return true;
  }

  private carryOut(seat: Seat, effect: SeatEffect, ctx: SeatContext): void {
    const playerId = seat.playerId!;
    switch (effect.kind) {
      case 'queueJoin':
        seat.host.queue({ type: 'join', sessionId: seat.worldSession, character: ctx.character! });
        return;
      case 'queueLeave':
        seat.host.queue({ type: 'leave', entityId: playerId, reason: effect.reason });
        return;
      case 'queueDetach':
        seat.host.queue({ type: 'detach', entityId: playerId });
        return;
      case 'queueAttach':
        seat.host.queue({ type: 'attach', entityId: playerId, sessionId: seat.worldSession });
        return;
      case 'queueArrive':
        seat.host.queue({ type: 'arrive', sessionId: seat.worldSession, state: ctx.arrival! });
        return;
      case 'openOutput':
        seat.output = seat.link.output(seat.session);
        return;
      case 'bindOutput':
        if (seat.output) seat.host.bind(playerId, seat.output);
        return;
      case 'dropOutput':
        if (seat.playerId !== undefined) seat.host.unbind(playerId);
        if (seat.output) seat.output.closed = true;
        seat.output = undefined;
        return;
      case 'relink': {
        const { link, session } = ctx.taker!;
        seat.link = link;
        seat.session = session;
        this.linkOf(link.gateway).seats.set(session, seat);
        this.opts.log.info(
          { gateway: link.gateway, session, characterId: seat.characterId },
          'took over the character in the world',
        );
        return;
      }
      case 'tellEntered':
        seat.link.entered(seat.session, playerId, seat.characterId);
        return;
      case 'tellMoved':
        seat.link.moved(seat.session, seat.host.name);
        return;
      case 'tellExited': {
        // Unless the gateway forgot the session (it is gone, or took it over elsewhere).
        const seats = this.links.get(seat.link.gateway)?.seats;
        if (seats?.get(seat.session) !== seat) return;
        seats.delete(seat.session);
        seat.link.exited(seat.session, effect.exit);
        return;
      }
      case 'forwardInputs':
        this.forwards.set(`${seat.link.gateway}\n${seat.session}`, {
          zone: ctx.zone!,
          until: this.clock() + FORWARD_MS,
        });
        return;
      case 'forwardDetach': {
        // Its connection dropped while the request was out: the next host lets it linger.
        const w = new Writer(64);
        ZoneInputs.begin(w, { gateway: seat.link.gateway });
        Detach.write(w, { session: seat.session });
        this.opts.bus.publish(Subjects.zoneInput(zoneId(ctx.zone!)), w.finish());
        return;
      }
    }
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

  private expireLingering(now: number): void {
    for (const seat of this.lingering) {
      if (seat.state.kind !== 'lingering') continue;
      const player = seat.host.world.players.get(seat.playerId!);
      if (!player) continue;
      const until = Math.max(seat.state.since + this.lingerMs, player.lastCombatAt + this.combatLingerMs);
      if (now >= until) this.drive(seat, { type: 'expired' });
    }
  }

  // ------------------------------------------------------------------ enter world

  /**
   * A gateway session enters `characterId` (its account checked by the gateway): takes the
   * character over where it lingers, or takes it from an older session on its way in, waits
   * for its last save, and queues the join with the row read afresh.
   */
  private async join(
    requested: ZoneHost,
    link: GatewayLink,
    session: number,
    accountId: number,
    characterId: number,
  ): Promise<void> {
    const seats = this.linkOf(link.gateway).seats;
    if (seats.has(session)) return;
    const taker = { link, session };
    // Lingering: the new session takes it where it stands; the old one hears it left.
    for (const seat of this.lingering) {
      if (seat.characterId === characterId && this.drive(seat, { type: 'takeOver', exit: 'left' }, { taker }))
        return;
    }
    // Still connected through another gateway (which has not noticed its connection is gone
    // yet, or the account resumed elsewhere): taken over where it stands all the same. Its own
    // gateway always sends DETACH before such a JOIN; another gateway's comes in no order.
    for (const seat of this.seats.values()) {
      if (seat.characterId !== characterId || seat.link === link) continue;
      if (this.drive(seat, { type: 'takeOver', exit: 'takenOver' }, { taker })) return;
    }
    // The same character on its way in (or in the world) for an older connection: take it
    // out first, and load the row only once that entity's state has been saved.
    const previous = [...this.seats.values()].filter((s) => s.characterId === characterId);
    for (const other of previous) this.drive(other, { type: 'superseded' });
    const seat = this.newSeat(requested, link, session, accountId, characterId, { kind: 'loading' });
    await Promise.all(previous.map((o) => o.gone));
    await this.waitUntilSaved(characterId);
    const record = await this.opts.store.getCharacter(characterId);
    if (!record || record.accountId !== accountId) {
      this.drive(seat, { type: 'noRow' });
      return;
    }
    seat.spells = record.spells;
    // Its saved zone if this host has it (not standing idle for another host), else the one asked.
    const saved = this.idle.has(record.zone) ? undefined : this.zones.get(record.zone);
    this.drive(seat, { type: 'rowRead' }, { host: saved ?? requested, character: toSaved(record) });
  }

  private newSeat(
    host: ZoneHost,
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

  private async waitUntilSaved(characterId: number): Promise<void> {
    for (let pending = this.leaving.get(characterId); pending; pending = this.leaving.get(characterId)) {
      await pending.catch(() => undefined);
      if (this.leaving.get(characterId) === pending) this.leaving.delete(characterId);
    }
  }

  /**
   * The world made (join), took in (arrive) or re-attached (attach) an entity for the seat:
   * it is bound to its session's output, or sent away if its seat is gone meanwhile.
   */
  private onJoined(host: ZoneHost, worldSession: number, playerId: number): void {
    const seat = this.seats.get(worldSession);
    if (seat) this.drive(seat, { type: 'joined', now: this.clock() }, { host, playerId });
    // The connection went away, or the zone was lost and found again, while the join was queued.
    else host.queue({ type: 'leave', entityId: playerId, reason: 'disconnected' });
  }

  /** The seat of a world player, by the session id the world has for it. */
  private seatOf(worldSession: number, playerId: number): Seat | undefined {
    const seat = this.seats.get(worldSession);
    return seat?.playerId === playerId ? seat : undefined;
  }

  private onSave(host: ZoneHost, e: Extract<WorldEvent, { type: 'save' }>): void {
    const seat = this.seatOf(e.sessionId, e.playerId);
    const spells = seat?.spells ?? host.world.players.get(e.playerId)?.spells ?? [];
    this.opts.saver.markDirty(toSave(e.character, host.name, spells));
    this.leavingIds.push(e.character.id);
    this.saveRequested = true;
  }

  /**
   * A player walked into the zone beside (one this host runs: borders are open only to those):
   * its seat moves there with its session and output, and that zone takes it over at its next
   * step. Inputs already on their way to the old zone follow the seat (onZoneInput).
   */
  private onHandedOff(from: ZoneHost, e: Extract<WorldEvent, { type: 'handedOff' }>): void {
    from.unbind(e.playerId);
    const seat = this.seatOf(e.sessionId, e.playerId);
    const to = this.zones.get(e.to);
    // A zone this host has but does not run (a standby's, held by another host) is asked too.
    if (!to || !this.running(e.to)) {
      if (seat) this.handOver(seat, from, e.to, e.state);
      return;
    }
    handoffs.inc({ kind: 'local' });
    to.queue({ type: 'arrive', sessionId: e.sessionId, state: e.state });
    // After the arrive: what the seat queues there (a leave, a detach) applies to the arrival.
    if (seat) this.drive(seat, { type: 'handedOff' }, { host: to });
  }

  /**
   * Hands a seat to the host of `zone` (another process): a HANDOFF request on the zone's
   * handoff subject, sent as from the session's gateway, carries the player's state. Until
   * the answer, the seat stays here without an output (its inputs are dropped) and the player
   * stands here as a ghost. TAKEN: the seat leaves this host without a LEFT (the next host
   * tells the gateway MOVED), and inputs that still come here for the session are sent on
   * after it for a while. REFUSED, nobody running the zone, or no answer HANDOFF_TRIES times
   * over a live connection: the player is given back to its zone (giveBack). While this
   * host's connection is down the request is asked again, never given up: an answer lost on
   * the way may have been TAKEN, and the player must not be in two zones.
   */
  private handOver(seat: Seat, from: ZoneHost, zone: string, state: HandoffState): void {
    if (!this.drive(seat, { type: 'handedOut' })) return;
    handoffs.inc({ kind: 'sent' });
    void this.askHandoff(seat, from, zone, state);
  }

  private async askHandoff(seat: Seat, from: ZoneHost, zone: string, state: HandoffState): Promise<void> {
    const bytes = encodeHandoff(state);
    const subject = Subjects.zoneHandoff(zoneId(zone));
    let unanswered = 0;
    for (;;) {
      // The seat went with its zone (lost to another host) or the host is stopping.
      if (this.seats.get(seat.worldSession) !== seat || this.zones.get(from.name) !== from) return;
      const w = new Writer(64 + bytes.length);
      HandoffRequest.begin(w, { gateway: seat.link.gateway });
      Handoff.write(w, {
        session: seat.session,
        account: seat.accountId,
        sentAt: this.clock(),
        state: bytes,
      });
      let answer: HandoffAnswer | undefined;
      try {
        const reply = await this.opts.bus.request(subject, w.finish(), { timeoutMs: HANDOFF_ANSWER_MS });
        answer = HandoffAnswer.decode(reply).answer;
      } catch (err) {
        const code = err instanceof BusError ? err.code : undefined;
        if (code === BusErrorCode.Closed) return;
        const down = code === BusErrorCode.Disconnected || !this.opts.bus.stats().connected;
        if (down || (code === BusErrorCode.Timeout && ++unanswered < HANDOFF_TRIES)) {
          if (down) await new Promise((resolve) => setTimeout(resolve, HANDOFF_ANSWER_MS / 4));
          continue;
        }
        this.opts.log.warn(
          { err, zone, session: seat.session },
          'hand-off unanswered: the player is given back',
        );
      }
      if (this.seats.get(seat.worldSession) !== seat || this.zones.get(from.name) !== from) return;
      if (answer === 'taken') {
        // It leaves this host without a LEFT: the next host tells its gateway MOVED.
        this.drive(seat, { type: 'taken' }, { zone });
      } else if (this.drive(seat, { type: 'givenBack' }, { arrival: state })) {
        // Its ghost gives way to it in place, and its client is sent its zone and view anew.
        handoffs.inc({ kind: 'returned' });
      }
      return;
    }
  }

  /** An input for a session handed to another host: on to that host, as its gateway sent it. */
  private forward<R extends InnerRecord>(
    gateway: string,
    def: R,
    record: RecordOut<R> & { session: number },
  ): void {
    const key = `${gateway}\n${record.session}`;
    const to = this.forwards.get(key);
    if (!to) return;
    if (to.until < this.clock()) {
      this.forwards.delete(key);
      return;
    }
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway });
    // What a record reads is what it writes (its bytes as views into the message).
    def.write(w, record as RecordIn<R>);
    this.opts.bus.publish(Subjects.zoneInput(zoneId(to.zone)), w.finish());
  }

  private onLeftWorld(host: ZoneHost, e: Extract<WorldEvent, { type: 'leftWorld' }>): void {
    host.unbind(e.playerId);
    const seat = this.seatOf(e.sessionId, e.playerId);
    if (seat) this.drive(seat, { type: 'left' });
  }

  private flushSaves(): Promise<unknown> {
    const ids = this.leavingIds;
    this.leavingIds = [];
    const run = this.opts.saver.flush().then(
      (report) => {
        if (report.count > 0) storeSaveSeconds.observe(report.ms / 1000);
        return report;
      },
      (err: unknown) => {
        this.opts.log.error({ err }, 'saving characters failed; will retry');
      },
    );
    for (const id of ids) this.leaving.set(id, run);
    // Forget the wait once written, unless a newer save of the same character replaced it.
    void run.then(() => {
      for (const id of ids) if (this.leaving.get(id) === run) this.leaving.delete(id);
    });
    return run;
  }

  private markEveryoneDirty(): void {
    // Asked afresh: a process just woken from a stall may autosave before its next tick.
    for (const host of this.zones.values()) this.runs(host);
    for (const seat of this.seats.values()) {
      if (seat.playerId === undefined || this.fenced.has(seat.host.name)) continue;
      const p = seat.host.world.players.get(seat.playerId);
      if (!p) continue;
      const saved = savedCharacter(seat.host.world, p);
      this.opts.saver.markDirty(toSave(saved, seat.host.name, seat.spells));
    }
  }

  // ------------------------------------------------------------------ who

  /**
   * The players in this host's zones, zone by zone in the world's order: a WhoList payload.
   * A character lingering after its connection dropped is in the world but its player is not
   * online (a whisper to it is refused as such), so it is not listed.
   */
  private who(message: BusMessage): void {
    const players: { name: string; level: number; zone: string }[] = [];
    let total = 0;
    for (const host of this.zones.values()) {
      if (this.fenced.has(host.name)) continue;
      for (const p of host.world.players.values()) {
        const seat = this.seatOf(p.sessionId, p.id);
        if (seat?.state.kind === 'lingering') continue;
        total++;
        if (players.length < WHO_LIST_MAX) players.push({ name: p.name, level: p.level, zone: host.name });
      }
    }
    message.respond(WhoReply.encode({ total, players }));
  }
}

/** A stored character as the world takes it. */
export function toSaved(record: CharacterRecord): SavedCharacter {
  return {
    id: record.id,
    name: record.name,
    level: record.level,
    appearance: record.appearance,
    zone: record.zone,
    x: record.x,
    y: record.y,
    facing: record.facing,
    health: record.health,
    mana: record.mana,
    kills: record.kills,
    experience: record.experience,
  };
}

/** A world player's persistent state as the store writes it. */
export function toSave(c: SavedCharacter, zone: string, spells: number[]): CharacterSave {
  return {
    id: c.id,
    zone: c.zone ?? zone,
    x: c.x ?? 0,
    y: c.y ?? 0,
    facing: c.facing ?? 0,
    level: c.level,
    health: c.health ?? 0,
    mana: c.mana ?? 0,
    spells,
    kills: c.kills,
    experience: c.experience ?? 0,
  };
}
