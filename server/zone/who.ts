/**
 * This host's part of who: the players in the zones it runs. Whispers never come here:
 * gateways find their targets in the registry and deliver them.
 */
import type { BusMessage } from '../cluster/bus.js';
import { WhoReply } from '../cluster/wire.js';
import type { SeatBook } from './seat-book.js';
import type { HostedZones } from './hosted-zones.js';

const WHO_LIST_MAX = 200;

/**
 * The players in this host's zones, zone by zone in the world's order: a WhoList payload.
 * A character lingering after its connection dropped is in the world but its player is not
 * online (a whisper to it is refused as such), so it is not listed.
 */
export function answerWho(hosted: HostedZones, seats: SeatBook, message: BusMessage): void {
  const players: { name: string; level: number; zone: string }[] = [];
  let total = 0;
  for (const host of hosted.zones.values()) {
    if (hosted.isFenced(host.name)) continue;
    for (const p of host.world.players.values()) {
      const seat = seats.seatOf(p.sessionId, p.id);
      if (seat?.state.kind === 'lingering') continue;
      total++;
      if (players.length < WHO_LIST_MAX) players.push({ name: p.name, level: p.level, zone: host.name });
    }
  }
  message.respond(WhoReply.encode({ total, players }));
}
