/**
 * Zone hosts coming and going, as the registry's claims say. A zone whose host is gone (its
 * claim lapsed) leaves its sessions here connected and waiting: each is told ERR_ZONE_DOWN
 * once, its zone packets are dropped meanwhile, and once the zone is claimed again (the host
 * restarted, or a standby took it) each enters its character again by itself with a JOIN,
 * from its last save; the client gets EnterWorld as on entering.
 */
import type { Logger } from '../log.js';
import type { PlacementBook } from './placements.js';

/**
 * A JOIN sent to a zone that has just been claimed again is repeated this often until the
 * host says JOINED (NATS drops what nobody listens to: a host listens on a zone before it
 * claims it, but over several nats-servers its interest may arrive after the claim), this many
 * times at most; the host ignores a repeat.
 */
const REJOIN_EVERY_MS = 250;
const REJOIN_TRIES = 40;

export interface ZoneClaimsDeps {
  readonly book: Pick<PlacementBook, 'dropLingeringIn' | 'driveAll'>;
  readonly log: Logger;
  readonly closed: () => boolean;
}

export class ZoneClaims {
  /** Each zone's holder as the registry says ("id/instance"), and the zones with none. */
  private readonly holders = new Map<string, string>();
  /** Zones without a host, each with the holder it lost (to tell a return from a new host). */
  private readonly down = new Map<string, string | undefined>();

  constructor(private readonly deps: ZoneClaimsDeps) {}

  /** Whether the zone's host is gone and no other has claimed it yet. */
  isDown(zone: string): boolean {
    return this.down.has(zone);
  }

  /** The id of the host the registry says holds the zone now (undefined: none, or not known). */
  holderOf(zone: string): string | undefined {
    const holder = this.down.has(zone) ? undefined : this.holders.get(zone);
    return holder?.slice(0, holder.lastIndexOf('/'));
  }

  /** A zone the registry says `host` (its id) holds now (undefined: none known). */
  zoneOf(host: string): string | undefined {
    for (const [zone, holder] of this.holders) {
      if (!this.down.has(zone) && holder.slice(0, holder.lastIndexOf('/')) === host) return zone;
    }
    return undefined;
  }

  /**
   * The registry's word on a zone's claim (its watch): `host` holds it now, or (undefined) the
   * claim lapsed or was released: the host is gone. A claim that passes straight to another
   * host is a loss and a return at once.
   */
  zoneClaim(zone: string, host: { id: string; instance: string } | undefined): void {
    if (this.deps.closed()) return;
    const known = this.holders.get(zone);
    const now = host && `${host.id}/${host.instance}`;
    if (now === known) return;
    if (known !== undefined && !this.down.has(zone)) this.zoneDown(zone, known);
    if (now === undefined) {
      this.holders.delete(zone);
      return;
    }
    this.holders.set(zone, now);
    if (this.down.has(zone)) this.zoneUp(zone, this.down.get(zone) === now);
  }

  /** Its sessions here wait: told once, their inputs dropped, their lingering characters gone. */
  private zoneDown(zone: string, lost: string): void {
    this.down.set(zone, lost);
    this.deps.book.dropLingeringIn(zone);
    const waiting = this.deps.book.driveAll(
      (p) => p.character.zone === zone,
      { type: 'zoneDown' },
      { news: true },
    );
    this.deps.log.warn({ zone, host: lost, sessions: waiting }, 'zone host gone: its sessions wait for it');
  }

  /**
   * The zone is claimed again. By a new host (or a restart): each waiting session enters its
   * character afresh from its last save. By the same one (it kept running while the registry
   * could not see it): each is sent its whole state anew, as after a lost tick message.
   */
  private zoneUp(zone: string, sameHost: boolean): void {
    this.down.delete(zone);
    const entering = this.deps.book.driveAll((p) => p.character.zone === zone, { type: 'zoneUp', sameHost });
    this.deps.log.info({ zone, sessions: entering, sameHost }, 'zone host back: its sessions enter again');
    if (entering > 0) this.rejoinLater(zone, 1);
  }

  private rejoinLater(zone: string, attempt: number): void {
    const timer = setTimeout(() => {
      if (this.deps.closed() || this.down.has(zone)) return;
      const left = this.deps.book.driveAll((p) => p.character.zone === zone && !p.session.closing, {
        type: 'rejoinDue',
      });
      if (left > 0 && attempt < REJOIN_TRIES) this.rejoinLater(zone, attempt + 1);
    }, REJOIN_EVERY_MS);
    timer.unref();
  }
}
