/**
 * A zone host's side of its zones' borders: after each tick it sends each neighbour of each
 * zone it runs that zone's border strip (`wyvern.zone.<neighbour>.border`, encoded once), and
 * it queues the strips its own zones receive as `strip` inputs for their next tick. The
 * neighbour may run in this process (the message goes over the InProcessBus, arriving right
 * after the tick) or on another host over NATS: the same bytes either way.
 */
import type { Bus, BusSubscription } from '../cluster/bus.js';
import { decodeStrip, encodeStrip } from '../cluster/border-wire.js';
import { Subjects, zoneId } from '../cluster/subjects.js';
import type { Logger } from '../log.js';
import { neighbours } from '../world/border.js';
import { stripStates } from '../world/ghosts.js';
import type { ZoneHost } from './zone-host.js';

export class BorderLink {
  private readonly subscriptions: BusSubscription[] = [];
  /** Strips last sent empty, by "from>to": an empty strip goes once, then not again until it fills. */
  private readonly quiet = new Set<string>();

  constructor(
    private readonly bus: Bus,
    private readonly hosts: ReadonlyMap<string, ZoneHost>,
    private readonly log: Logger,
  ) {
    for (const host of hosts.values()) {
      this.subscriptions.push(
        bus.subscribe(Subjects.zoneBorder(zoneId(host.name)), (m) => {
          let strip;
          try {
            strip = decodeStrip(m.data);
          } catch (err) {
            this.log.warn({ err, zone: host.name }, 'border strip refused');
            return;
          }
          host.queue({ type: 'strip', from: strip.from, entities: strip.entities });
        }),
      );
    }
  }

  /** Sends every zone's strips to its neighbours (after the tick). */
  publish(): void {
    for (const host of this.hosts.values()) {
      const w = host.world;
      for (const n of neighbours(w.data.zones, w.zone)) {
        const states = stripStates(w, n);
        const key = `${w.zone.name}>${n.name}`;
        if (states.length === 0) {
          if (this.quiet.has(key)) continue;
          this.quiet.add(key);
        } else this.quiet.delete(key);
        this.bus.publish(Subjects.zoneBorder(zoneId(n.name)), encodeStrip(w.zone.name, states));
      }
    }
  }

  close(): void {
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
  }
}
