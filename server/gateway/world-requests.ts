/**
 * The world requests a gateway answers by asking others:
 *
 *   Whisper  -> the target's gateway from the registry (char.<name>); this gateway builds the
 *               ChatMessage once, and that one delivers it (wyvern.gw.<target>.whisper) and
 *               says whether it could
 *   Who      -> every live zone host (wyvern.host.<host>.who), merged here
 */
import { DecodeError } from '../../shared/codec/errors.js';
import { ChatMessage, Whisper, WhoList, type PayloadOf } from '../../shared/protocol/index.js';
import { BusError, BusErrorCode, type Bus, type BusMessage } from '../cluster/bus.js';
import { SubjectError, Subjects } from '../cluster/subjects.js';
import { WhisperDelivery, WhisperReply, WhisperStatus, WhoReply, WhoRequest } from '../cluster/wire.js';
import type { Logger } from '../log.js';
import type { Session } from '../session/session.js';
import type { GatewayLookups } from './entering.js';
import type { PlacementBook } from './placements.js';

const WHO_LIST_MAX = 200;

type WhoListPayload = PayloadOf<typeof WhoList>;

/**
 * The zone hosts' who lists as one: zone by zone in the world's order (a zone it does not
 * name after those), each host's own order within a zone, at most `max` listed and every
 * player counted.
 */
export function mergeWho(
  lists: readonly WhoListPayload[],
  zones: readonly string[],
  max = WHO_LIST_MAX,
): WhoListPayload {
  const order = new Map(zones.map((name, i) => [name, i]));
  const rank = (zone: string) => order.get(zone) ?? order.size;
  let total = 0;
  const players: WhoListPayload['players'][number][] = [];
  for (const list of lists) {
    total += list.total;
    players.push(...list.players);
  }
  players.sort((a, b) => rank(a.zone) - rank(b.zone));
  players.length = Math.min(players.length, max);
  return { total, players };
}

export interface WorldRequestsDeps {
  /** This gateway's id on the bus. */
  readonly id: string;
  readonly bus: Bus;
  readonly book: PlacementBook;
  /** Each zone's id on the bus, by its name, in the world's order. */
  readonly zoneIds: ReadonlyMap<string, string>;
  readonly log: Logger;
  /** How long a world request (whisper, who) may take. Default 2 s. */
  readonly requestTimeoutMs?: number;
  /** Without it, whispers find only this gateway's own characters. */
  readonly lookups?: GatewayLookups;
  /** The ids of the live zone hosts (from the registry's watch), asked for who. */
  readonly zoneHosts?: () => readonly string[];
  readonly closed: () => boolean;
}

export class WorldRequests {
  constructor(private readonly deps: WorldRequestsDeps) {}

  /**
   * Builds the ChatMessage once (this gateway knows the sender's entity and name; the
   * registry, the target's name as shown) and has the target's gateway deliver it; the
   * sender gets it back as its echo once delivered (once, when it whispered to itself).
   */
  whisper(session: Session, to: string, text: string): void {
    const p = this.deps.book.get(session.id);
    if (!p || p.character.entityId === undefined || this.deps.closed()) return;
    const from = { fromId: p.character.entityId, from: p.character.name };
    const noSuchPlayer = () =>
      session.error('ERR_NO_SUCH_PLAYER', `${to} is not online`, { fatal: false, opcode: Whisper.opcode });
    const deliver = async (): Promise<void> => {
      let target: { gateway: string; name: string } | undefined;
      if (this.deps.lookups) {
        // A name that cannot be a registry key (a dot, a space) is nobody's.
        const entry = await this.deps.lookups.characterGateway(to).catch((err: unknown) => {
          if (err instanceof SubjectError) return undefined;
          throw err;
        });
        if (entry) target = { gateway: entry.gateway.id, name: entry.name };
      } else {
        const local = this.deps.book.inWorldByName(to);
        if (local) target = { gateway: this.deps.id, name: local.character.name };
      }
      if (session.closing) return;
      if (!target) return noSuchPlayer();
      const frame = ChatMessage.encode({ channel: 'whisper', ...from, to: target.name, text });
      let status: WhisperStatus;
      if (target.gateway === this.deps.id) status = this.deliverWhisper(target.name, frame);
      else {
        try {
          const request = WhisperDelivery.encode({ to: target.name, frames: frame });
          const reply = await this.deps.bus.request(
            Subjects.gatewayWhisper(target.gateway),
            request,
            this.requestOptions(),
          );
          status = WhisperReply.decode(reply).status;
        } catch (err) {
          // The registry still lists a gateway that just went away: nobody there to hear it. An
          // answer that is no WhisperReply is no delivery either.
          const gone = err instanceof BusError && err.code === BusErrorCode.NoResponders;
          if (!gone && !(err instanceof DecodeError)) throw err;
          status = WhisperStatus.NoSuchPlayer;
        }
      }
      if (session.closing) return;
      if (status !== WhisperStatus.Sent) return noSuchPlayer();
      // A whisper to oneself was delivered to this very connection: that is its echo.
      const toSelf = target.gateway === this.deps.id && target.name === p.character.name;
      if (!toSelf) session.conn.send(frame, 'reliable');
    };
    // Said with its target and first words: after a bus outage a player may be refused
    // several in a row, and must know which to say again.
    deliver().catch((err: unknown) =>
      this.requestFailed(session, Whisper.opcode, err, `whisper to ${to} ${quoted(text)} not delivered: `),
    );
  }

  /** A whisper from another gateway for one of this gateway's characters. */
  onWhisper(message: BusMessage): void {
    let status: WhisperStatus;
    try {
      const { to, frames } = WhisperDelivery.decode(message.data);
      status = this.deliverWhisper(to, frames);
    } catch (err) {
      this.deps.log.warn({ err }, 'whisper delivery refused');
      status = WhisperStatus.NoSuchPlayer;
    }
    message.respond(WhisperReply.encode({ status }));
  }

  /** Sends `frame` to the character named `to` if it is in the world on this gateway, with a connection. */
  private deliverWhisper(to: string, frame: Uint8Array): WhisperStatus {
    const p = this.deps.book.inWorldByName(to);
    if (!p) return WhisperStatus.NoSuchPlayer;
    p.session.conn.send(frame, 'reliable');
    return WhisperStatus.Sent;
  }

  /**
   * Asks every live zone host for the players in its zones and merges the answers: zone by
   * zone in the world's order, each host's own order within a zone, at most WHO_LIST_MAX
   * listed and every player counted. A host that does not answer is left out (logged).
   */
  who(session: Session): void {
    if (this.deps.closed()) return;
    const hosts = this.deps.zoneHosts?.() ?? [];
    const asked = hosts.map((host) =>
      this.deps.bus.request(Subjects.hostWho(host), WhoRequest.encode({}), this.requestOptions()),
    );
    void Promise.allSettled(asked).then((answers) => {
      if (session.closing) return;
      const lists: WhoListPayload[] = [];
      let failed: unknown;
      for (const [i, answer] of answers.entries()) {
        if (answer.status === 'rejected') {
          failed = answer.reason;
          this.deps.log.warn({ err: answer.reason, host: hosts[i] }, 'a zone host did not answer who');
          continue;
        }
        try {
          lists.push(WhoReply.decode(answer.value));
        } catch (err) {
          this.deps.log.warn({ err, host: hosts[i] }, 'a zone host answered who with bad bytes');
        }
      }
      if (failed !== undefined && answers.every((a) => a.status === 'rejected')) {
        return this.requestFailed(session, WhoList.opcode, failed);
      }
      const merged = mergeWho(lists, [...this.deps.zoneIds.keys()]);
      session.conn.send(WhoList.encode(merged), WhoList.delivery);
    });
  }

  private requestOptions(): { timeoutMs?: number } {
    return this.deps.requestTimeoutMs === undefined ? {} : { timeoutMs: this.deps.requestTimeoutMs };
  }

  private requestFailed(session: Session, opcode: number, err: unknown, what = ''): void {
    if (session.closing) return;
    session.log.warn({ err }, 'world request failed');
    session.error('ERR_INTERNAL', `${what}the world did not answer`, { fatal: false, opcode });
  }
}

/** How much of a refused whisper its refusal quotes (an Error's reason holds 200 bytes). */
const QUOTED_MAX = 40;

/** `text` in quotes, cut at QUOTED_MAX characters with an ellipsis. */
function quoted(text: string): string {
  const chars = [...text];
  return `"${chars.length > QUOTED_MAX ? `${chars.slice(0, QUOTED_MAX - 1).join('')}…` : text}"`;
}
