/**
 * The zones this host has, and which of them it runs right now. Each zone is run while this
 * host holds its claim (its registry lease, asked through `holds` before every tick): a zone
 * whose claim lapsed is fenced (not stepped, saved or sent) until the claim is held again,
 * and one this host has not held since it made it (at start, or anew after losing it to
 * another host) stands idle, its bus traffic left to whoever runs it. Once claimed, an idle
 * zone is made afresh from its data and runs.
 */
import type { Logger } from '../log.js';
import { zoneClaimEvents } from '../metrics/index.js';
import { createWorld, mulberry32, type WorldData, type WorldRules } from '../world/index.js';
import { ZoneRunner, type ZoneRunnerHooks } from './zone-runner.js';

export interface HostedZonesOptions {
  readonly data: WorldData;
  /** The zones this host runs, by name (default: every zone in `data`). */
  readonly zones?: readonly string[];
  readonly rules?: Partial<WorldRules>;
  readonly log: Logger;
  readonly seed: number;
  /** Whether this host holds the zone's claim right now (default: always). */
  readonly holds?: (zone: string) => boolean;
  /** A zone that stood idle runs from now on (its claim is held). */
  readonly onRunning?: (zone: string) => void;
  /** A zone stopped for its claim runs again where it stopped (inputs were let go meanwhile). */
  readonly onResumed?: (zone: string) => void;
}

export class HostedZones {
  /** Every zone this host has, by name: one that is lost is replaced here by a fresh one. */
  readonly zones = new Map<string, ZoneRunner>();
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
  private seed: number;

  constructor(
    private readonly opts: HostedZonesOptions,
    private readonly clock: () => number,
    private readonly hooks: ZoneRunnerHooks,
  ) {
    this.seed = opts.seed;
    for (const zone of opts.data.zones) {
      if (!this.hosted.includes(zone.name)) continue;
      this.zones.set(zone.name, this.createZone(zone.name));
      if (opts.holds && !opts.holds(zone.name)) {
        this.fenced.add(zone.name);
        this.idle.add(zone.name);
      } else this.ran.add(zone.name);
    }
    if (this.zones.size === 0) throw new Error('the world data has no zone');
  }

  private get hosted(): readonly string[] {
    return this.opts.zones ?? this.opts.data.zones.map((z) => z.name);
  }

  /** A zone as its data makes it: its mobs at home, nobody in it. */
  private createZone(name: string): ZoneRunner {
    const rng = mulberry32(this.seed++);
    // Players walk across a border to a zone this host runs too (handed over in process).
    const world = createWorld(this.opts.data, {
      zone: name,
      rules: this.opts.rules,
      now: this.clock(),
      rng,
      openBorders: this.hosted,
    });
    return new ZoneRunner(world, rng, this.hooks);
  }

  /** Asks every zone's claim afresh (see runs). */
  runAll(): void {
    for (const host of this.zones.values()) this.runs(host);
  }

  /**
   * Whether the zone is this host's to run at this tick, checked before each: a host whose
   * claim lapsed (a stall or a partition longer than the lease) steps, saves and sends nothing
   * for it, since another host may run it now. If the claim comes back to this host unbroken,
   * the zone carries on where it stopped (its gateways resync their sessions); if another
   * host took it, lose drops what is left here.
   */
  runs(host: ZoneRunner): boolean {
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
        if (!idle) this.opts.onResumed?.(host.name);
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

  /** Whether the zone is stopped for its claim (as of the last time it was asked). */
  isFenced(zone: string): boolean {
    return this.fenced.has(zone);
  }

  /** Whether the zone stands idle for another host (this host has not held it since making it). */
  isIdle(zone: string): boolean {
    return this.idle.has(zone);
  }

  /** The zone's claim was just taken: it runs at once, without waiting for the next tick. */
  claimed(zone: string): void {
    const host = this.zones.get(zone);
    if (host) this.runs(host);
  }

  /**
   * The zone, when its bus traffic is this host's to take: not while it stands idle (one
   * claimed a moment ago runs from here, should its first message come before claimed()).
   */
  admit(zone: string): ZoneRunner | undefined {
    if (this.idle.has(zone)) this.runs(this.zones.get(zone)!);
    return this.idle.has(zone) ? undefined : this.zones.get(zone);
  }

  /**
   * Another host runs the zone now: `dropSeats` drops everything of the old zone's players
   * (returning how many), and the zone starts afresh, stopped until this host holds its claim
   * again.
   */
  lose(zone: string, dropSeats: (old: ZoneRunner) => number): void {
    const old = this.zones.get(zone);
    if (!old) return;
    this.fenced.add(zone);
    this.idle.add(zone);
    const dropped = dropSeats(old);
    this.zones.set(zone, this.createZone(zone));
    zoneClaimEvents.inc({ event: 'lost' });
    this.opts.log.error({ zone, players: dropped }, 'zone lost to another host: its state here is dropped');
  }

  /** The players in the zones this host runs. */
  get playerCount(): number {
    let n = 0;
    for (const host of this.zones.values()) if (!this.fenced.has(host.name)) n += host.world.players.size;
    return n;
  }
}
