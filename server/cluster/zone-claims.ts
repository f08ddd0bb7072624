/**
 * A zone host's claims on the zones it runs, each zone on its own: a zone runs here the moment
 * its claim is held (`claimed`), whatever becomes of the others. A host claims its zones at
 * start and is refused any another host holds; a standby waits for each and takes it once its
 * host is gone. A claim lost later to another host (this one's had lapsed: a stall or a
 * partition) is given up (`lost`) and waited for again, to be taken back once that host's
 * claim lapses in turn.
 */
import type { Logger } from '../log.js';
import { claimZone } from './presence.js';
import type { ClusterRegistry, Holder, Lease } from './registry.js';

export interface ZoneClaimEvents {
  /** The claim on `zone` is held: run it from now on. */
  claimed(zone: string): void;
  /** Another host took `zone` over: stop running it (this host waits for it again). */
  lost(zone: string): void;
}

export class ZoneClaims {
  /** The claims held, by zone name. */
  private readonly leases = new Map<string, Lease>();
  /** Zones waited for (not claimed at start), until told once by `takenOver`. */
  private readonly awaited = new Set<string>();
  /** Stops every wait for a claim when this host stops. */
  private readonly standing = new AbortController();

  constructor(
    private readonly registry: ClusterRegistry,
    private readonly holder: Holder,
    private readonly log: Logger,
    private readonly on: ZoneClaimEvents,
  ) {}

  /** Whether this host holds `zone`'s claim now (the realm's fence before each tick's work). */
  holds(zone: string): boolean {
    return this.leases.get(zone)?.held() ?? false;
  }

  /**
   * Claims each zone at once; resolves when all are held, rejects with the first refusal (a
   * zone another host holds). Those held by then stay held: `stop` and `held` give them back.
   */
  async claimAll(zones: readonly string[]): Promise<void> {
    const claims = await Promise.allSettled(zones.map((zone) => this.claim(zone, false)));
    const failed = claims.find((c) => c.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  /** Waits for each zone apart, taking each as its host is gone. */
  standByAll(zones: readonly string[]): void {
    for (const zone of zones) this.standBy(zone);
  }

  /** Whether `zone` was waited for (a standby's, or one lost and taken back); true once. */
  takenOver(zone: string): boolean {
    return this.awaited.delete(zone);
  }

  /** The claims held now, for a release at shutdown. */
  held(): Lease[] {
    return [...this.leases.values()];
  }

  /** Stops waiting for any zone: a wait under way rejects and leaves nothing claimed. */
  stop(): void {
    this.standing.abort();
  }

  private async claim(zone: string, standby: boolean): Promise<void> {
    if (standby) this.awaited.add(zone);
    const lease = await claimZone(this.registry, this.holder, zone, this.log, {
      standby,
      signal: this.standing.signal,
      onLost: () => {
        this.leases.delete(zone);
        this.on.lost(zone);
        if (!this.standing.signal.aborted) this.standBy(zone);
      },
    });
    this.leases.set(zone, lease);
    this.on.claimed(zone);
  }

  private standBy(zone: string): void {
    this.claim(zone, true).catch((err: unknown) => {
      if (!this.standing.signal.aborted) this.log.error({ err, zone }, 'no longer standing by for the zone');
    });
  }
}
