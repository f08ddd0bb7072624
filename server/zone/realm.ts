/**
 * The realm: the zone-host role. Every zone this process runs, the fixed tick that drives
 * them, saving, lingering, and its part of who (the players in its zones). It knows sessions only as
 * (gateway, session id) pairs that arrive on the bus: zone inputs, joins, detaches and the
 * gateways' soft-limit verdicts come on `wyvern.zone.<zone>.in`, and each tick ends with one
 * message per gateway carrying its sessions' bytes (gateway-link.ts). The gateway role
 * (server/gateway/) holds the sockets and the session state machine.
 *
 * The realm only wires its rooms, each with one job:
 * - tick-loop.ts: the fixed tick (runTick below is one tick, in order);
 * - hosted-zones.ts: the zones this host has, and which it runs now (claims held, fencing);
 * - seat-book.ts: the seats (each session's character here), lingering, join and take-over;
 * - input-intake.ts: what the gateways send a zone (inputs, joins, detaches, verdicts);
 * - handoff-desk.ts, forwards.ts and arrivals.ts: players handed across a border, in process or
 *   to another host (and the inputs on their way after them);
 * - saving.ts: leaves, autosaves and the save at shutdown;
 * - who.ts: this host's part of who;
 * - border-link.ts: the border strips to and from the zones beside.
 */
import type { Bus, BusSubscription } from '../cluster/bus.js';
import { newEpoch } from '../cluster/sequenced.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import type { Logger } from '../log.js';
import { tickSeconds } from '../metrics/index.js';
import type { CharacterSaver, Store } from '../store/index.js';
import type { WorldData, WorldRules } from '../world/index.js';
import { Arrivals } from './arrivals.js';
import { BorderLink } from './border-link.js';
import { Forwards } from './forwards.js';
import { HandoffDesk } from './handoff-desk.js';
import { InputIntake } from './input-intake.js';
import { Saving } from './saving.js';
import { resyncSeats, SeatBook, type GatewayEnd } from './seat-book.js';
import { TickLoop } from './tick-loop.js';
import { answerWho } from './who.js';
import { HostedZones } from './hosted-zones.js';
import type { ZoneRunner, ZoneRunnerHooks } from './zone-runner.js';

export type { GatewayEnd } from './seat-book.js';

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
   * not hold is not run (see HostedZones.runs). Default: always (one process, nobody to share with).
   * Given, every zone not held when the realm is made stands idle until it is (Realm.claimed).
   */
  readonly holds?: (zone: string) => boolean;
  /** A zone that stood idle runs from now on (its claim is held). */
  readonly onRunning?: (zone: string) => void;
}

export class Realm {
  private readonly clock: () => number;
  private readonly hosted: HostedZones;
  private readonly seats: SeatBook;
  private readonly saving: Saving;
  private readonly handoffs: HandoffDesk;
  private readonly intake: InputIntake;
  private readonly arrivals: Arrivals;
  private readonly loop: TickLoop;
  private readonly subscriptions: BusSubscription[] = [];
  private stopReconnects: () => void = () => {};
  /** Border strips to and from the neighbours of this host's zones. */
  private readonly border: BorderLink;

  constructor(private readonly opts: RealmOptions) {
    const clock = (this.clock = opts.clock ?? Date.now);
    const hostId = opts.hostId ?? 'zone-host';
    const epoch = newEpoch();
    const hooks: ZoneRunnerHooks = {
      joined: (host, sessionId, playerId) => this.seats.onJoined(host, sessionId, playerId),
      save: (host, e) => this.saving.onSave(host, e),
      leftWorld: (host, e) => this.seats.onLeftWorld(host, e),
      handedOff: (host, e) => this.handoffs.onHandedOff(host, e),
    };
    const seed = opts.seed ?? clock() & 0x7fffffff;
    // A zone resumed after its claim lapsed let its inputs go meanwhile: each client is sent
    // where the zone has it.
    const onResumed = (zone: string) => resyncSeats(this.seats, (seat) => seat.host.name === zone);
    this.hosted = new HostedZones({ ...opts, seed, onResumed }, clock, hooks);
    const forwards = new Forwards(opts.bus, clock);
    const seats = {
      values: () => this.seats.values(),
      seatOf: (worldSession: number, playerId: number) => this.seats.seatOf(worldSession, playerId),
    };
    this.saving = new Saving(opts, this.hosted, seats);
    this.seats = new SeatBook(
      {
        store: opts.store,
        bus: opts.bus,
        hostId,
        epoch,
        log: opts.log,
        clock,
        lingerMs: opts.lingerMs ?? 0,
        combatLingerMs: opts.combatLingerMs ?? 0,
      },
      this.hosted,
      this.saving,
      forwards,
    );
    this.arrivals = new Arrivals(clock, (seat, record) =>
      this.intake.packet(seat.link.gateway, record, false),
    );
    this.handoffs = new HandoffDesk(
      { bus: opts.bus, log: opts.log, clock },
      this.hosted,
      this.seats,
      forwards,
      this.arrivals,
    );
    this.intake = new InputIntake(
      { bus: opts.bus, hostId, epoch, log: opts.log, clock },
      this.hosted,
      this.seats,
      forwards,
      this.arrivals,
    );
    // Through the instance's runTick, so that whoever wraps it (a bench) sees every tick.
    this.loop = new TickLoop(opts.tickRate, (lateMs) => this.runTick(lateMs));
    this.border = new BorderLink(opts.bus, this.zones, (zone) => this.running(zone), opts.log, clock);
    this.listen(hostId);
  }

  /** Every zone this host has, by name (running or not: see running). */
  get zones(): ReadonlyMap<string, ZoneRunner> {
    return this.hosted.zones;
  }

  /** Ticks started late by more than a whole interval (the loop was blocked). */
  get lateTicks(): number {
    return this.loop.lateTicks;
  }

  /** Each zone's inputs and hand-off requests, and who. */
  private listen(hostId: string): void {
    for (const zone of this.hosted.zones.keys()) {
      // Subscribed before the zone is claimed, so that whoever sees the claim finds it listening.
      this.subscriptions.push(
        this.opts.bus.subscribe(Subjects.zoneInput(zoneId(zone)), (m) => {
          if (this.hosted.admit(zone)) this.intake.onZoneInputs(zone, m);
        }),
        this.opts.bus.subscribe(Subjects.zoneHandoff(zoneId(zone)), (m) => {
          // Unanswered while idle: the host that runs the zone answers.
          if (this.hosted.admit(zone)) this.handoffs.onHandoff(zone, m);
        }),
      );
    }
    // Back on the bus: what either end sent while the other was not listening is found at once.
    this.stopReconnects =
      this.opts.bus.onReconnect?.(() => {
        this.intake.probe();
        this.seats.markNow();
      }) ?? this.stopReconnects;
    // Whispers never come here: gateways find their targets in the registry and deliver them.
    this.subscriptions.push(
      this.opts.bus.subscribe(Subjects.hostWho(hostId), (m) => answerWho(this.hosted, this.seats, m)),
    );
  }

  // ------------------------------------------------------------------ lifecycle

  start(): void {
    this.loop.start();
    this.saving.start();
  }

  /**
   * Runs every zone's tick once (the timer calls this; tests may call it directly). `lateMs`:
   * how long after it was due the tick started.
   */
  runTick(lateMs = 0): void {
    const started = performance.now();
    const now = this.clock();
    // Before the step: a leave queued here is applied in this very tick, so no resume can
    // come between the decision and the departure.
    this.seats.expireLingering(now);
    this.arrivals.releaseDue(now);
    this.hosted.runAll();
    this.border.open(now);
    for (const host of this.zones.values())
      if (!this.hosted.isFenced(host.name)) host.tick(now, now - lateMs);
    this.border.publish();
    this.saving.flushRequested();
    this.seats.publish();
    this.opts.afterTick?.();
    tickSeconds.observe((performance.now() - started) / 1000);
  }

  /** Stops ticking and listening, and writes every player's state. */
  async stop(): Promise<void> {
    this.loop.stop();
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
    this.stopReconnects();
    this.intake.close();
    this.border.close();
    await this.saving.stop();
  }

  // ------------------------------------------------------------------ claims

  /** Whether this host runs the zone now (it holds its claim). */
  running(zone: string): boolean {
    return this.hosted.running(zone);
  }

  /**
   * The zone's claim was just taken (`holds` says so from now): it runs at once, without
   * waiting for the next tick, so its inputs are taken from the first message on.
   */
  claimed(zone: string): void {
    this.hosted.claimed(zone);
  }

  /**
   * Another host runs the zone now: it took the claim while this host's had lapsed, and
   * entered the zone's players again from their last saves. Everything of the zone here goes,
   * unsaved and untold (the gateways route those sessions to the other host already), and the
   * zone starts afresh, stopped until this host holds its claim again.
   */
  loseZone(zone: string): void {
    this.intake.forgetZone(zone);
    this.hosted.lose(zone, (old) => this.seats.loseZone(old));
  }

  /** Marks everyone in the world dirty and writes them in one batch. */
  saveEveryone(): Promise<unknown> {
    return this.saving.saveEveryone();
  }

  get playerCount(): number {
    return this.hosted.playerCount;
  }

  /** A gateway is gone: its sessions' characters linger (see SeatBook.gatewayGone). */
  gatewayGone(gateway: string, how: GatewayEnd = 'lost'): void {
    this.intake.forgetGateway(gateway);
    this.seats.gatewayGone(gateway, how);
  }
}
