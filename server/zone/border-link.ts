/**
 * A zone host's side of its zones' borders: after each tick it sends each neighbour of each
 * zone it runs that zone's border strip (`wyvern.zone.<neighbour>.border`, encoded once; an
 * empty one once a second, which tells the neighbour this host is there), and it queues the strips its own zones receive as `strip` inputs for their next tick. The
 * neighbour may run in this process (the message goes over the InProcessBus, arriving right
 * after the tick) or on another host over NATS: the same bytes either way. Borders open
 * (players may be handed across) to the zones run here and those whose host was heard from.
 */
import type { Bus, BusSubscription } from '../cluster/bus.js';
import { decodeStrip, encodeStrip } from '../cluster/border-wire.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import type { Logger } from '../log.js';
import { neighbours } from '../world/border.js';
import { stripStates } from '../world/ghosts.js';
import type { ZoneRunner } from './zone-runner.js';

/** An empty strip goes this often (ms): enough to say the host is there. */
const HEARTBEAT_MS = 1000;
/** A border to a zone run elsewhere is open while a strip came from it within this (ms). */
const OPEN_MS = 3000;

export class BorderLink {
  private readonly subscriptions: BusSubscription[] = [];
  /** When each empty strip last went, by "from>to" (absent: the last one was not empty). */
  private readonly quiet = new Map<string, number>();
  /** When a strip last came from each zone run elsewhere. */
  private readonly heard = new Map<string, number>();

  constructor(
    private readonly bus: Bus,
    private readonly hosts: ReadonlyMap<string, ZoneRunner>,
    /** Whether this process runs the zone right now (it holds its claim). */
    private readonly running: (zone: string) => boolean,
    private readonly log: Logger,
    private readonly clock: () => number,
  ) {
    for (const name of hosts.keys()) {
      this.subscriptions.push(
        bus.subscribe(Subjects.zoneBorder(zoneId(name)), (m) => {
          const host = this.hosts.get(name);
          if (!host || !this.running(name)) return;
          let strip;
          try {
            strip = decodeStrip(m.data);
          } catch (err) {
            this.log.warn({ err, zone: host.name }, 'border strip refused');
            return;
          }
          this.heard.set(strip.from, this.clock());
          host.queue({ type: 'strip', ...strip });
        }),
      );
    }
  }

  /**
   * Opens each zone's borders to the neighbours a player can be handed to (before the tick):
   * those this process runs, and those whose host was heard from lately. A border to a zone
   * nobody runs stays closed (a walker there would be handed to nobody).
   */
  open(now: number): void {
    for (const host of this.hosts.values()) {
      const w = host.world;
      w.openBorders = neighbours(w.data.zones, w.zone).filter(
        (n) => this.running(n.name) || now - (this.heard.get(n.name) ?? -Infinity) <= OPEN_MS,
      );
    }
  }

  /** Sends every zone's strips to its neighbours (after the tick). */
  publish(): void {
    const now = this.clock();
    for (const host of this.hosts.values()) {
      if (!this.running(host.name)) continue;
      const w = host.world;
      for (const n of neighbours(w.data.zones, w.zone)) {
        const states = stripStates(w, n);
        // Hits and kills for that zone go once, with this strip (lost with it, as a tick is).
        const news = w.borderNews.get(n.name);
        w.borderNews.delete(n.name);
        const key = `${w.zone.name}>${n.name}`;
        if (states.length === 0 && !news) {
          if (now - (this.quiet.get(key) ?? -Infinity) < HEARTBEAT_MS) continue;
          this.quiet.set(key, now);
        } else this.quiet.delete(key);
        this.bus.publish(Subjects.zoneBorder(zoneId(n.name)), encodeStrip(w.zone.name, states, news));
      }
    }
  }

  close(): void {
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
  }
}
