/**
 * The gateway role's side of the game: where the dispatch core sends packets whose target is
 * 'zone' or 'world' (it is the GameRouter), and where the zone hosts' bytes come back to the
 * connections. It holds no world state: only each session's placement (its zone, and where it
 * stands there: server/gateway/placement.ts) and the characters left lingering in the world
 * after their connection closed, held here until their host says LEFT.
 *
 *   zone packet        -> a PACKET record on wyvern.zone.<zone>.in (the fields as received,
 *                         re-encoded without a header), with joins, detaches and the
 *                         connections' soft-limit verdicts on the same subject in order;
 *                         every zone's records of one event-loop turn go as one message
 *   EnterWorldRequest  -> the character's row is checked here (the account's own?), then a
 *                         JOIN for its zone; the zone host takes it from there
 *   Whisper            -> the target's gateway from the registry (char.<name>); this gateway
 *                         builds the ChatMessage once, and that one delivers it
 *                         (wyvern.gw.<target>.whisper) and says whether it could
 *   Who                -> every live zone host (wyvern.host.<host>.who), merged here
 *   Resume             -> the account's character lingering here, or (the registry's
 *                         account.<id>) on another gateway: a JOIN takes it over where it stands
 *   wyvern.gw.<self>.tick / .direct
 *                      -> JOINED puts the session in the world, BYTES go into its connection's
 *                         write buffer as they are, LEFT takes it out; then one flush
 *
 * The hard send limit stays here: appending a tick's bytes commits them like any frame, and
 * a connection over the limit is cut. The soft limit is the zone host's to act on (it skips
 * whole droppable sections while encoding), so after each batch the gateway tells the host of
 * each connection whose verdict changed. A tick message found missing by its seq (NATS
 * delivers at most once) gets that host's sessions here a RESYNC. The session state machine
 * is changed only through server/session/world-state.ts.
 *
 * A zone whose host is gone (its claim lapsed in the registry: zoneClaim) leaves its sessions
 * here connected and waiting: each is told ERR_ZONE_DOWN once, its zone packets are dropped
 * meanwhile, and once the zone is claimed again (the host restarted, or a standby took it)
 * each enters its character again by itself with a JOIN, from its last save; the client gets
 * EnterWorld as on entering.
 */
import { DecodeError } from '../../shared/codec/errors.js';
import { Writer } from '../../shared/codec/writer.js';
import { ChatMessage, EnterWorldRequest, Whisper, WhoList } from '../../shared/protocol/index.js';
import type { PayloadOf } from '../../shared/protocol/index.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import { BusError, BusErrorCode, type Bus, type BusMessage, type BusSubscription } from '../cluster/bus.js';
import type { ClusterRegistry } from '../cluster/registry.js';
import { SubjectError, Subjects, zoneId } from '../cluster/subjects.js';
import {
  Behind,
  Detach,
  GatewayBatch,
  Join,
  nextSeq,
  Packet,
  Resync,
  WhisperDelivery,
  WhisperReply,
  WhisperStatus,
  WhoReply,
  WhoRequest,
  ZoneInputs,
} from '../cluster/wire.js';
import type { StreamHandlers } from '../cluster/inner/define.js';
import type { GameRouter } from '../dispatch/router.js';
import type { Logger } from '../log.js';
import { gatewayBatchSeconds } from '../metrics/index.js';
import { sayTakenOver, type ResumeWorld } from '../session/account.js';
import type { Session } from '../session/connection.js';
import { enteredWorld, leftWorld } from '../session/world-state.js';
import type { Store } from '../store/index.js';
import { routeWorld, type WorldRoutes } from '../zone/routes.js';
import {
  placementStart,
  placementTransition,
  sendsInputs,
  takesBytes,
  type PlacementEffect,
  type PlacementEvent,
  type PlacementState,
} from './placement.js';

/**
 * Told which characters this gateway holds, for the cluster registry (so a whisper or a
 * resume elsewhere can find them): from the zone host's JOINED until its LEFT, lingering
 * included.
 */
export interface SessionDirectory {
  entered(accountId: number, characterId: number, character: string): void;
  left(accountId: number, character: string): void;
}

/** What the gateway looks up in the cluster registry: where a character or an account is held. */
export type GatewayLookups = Pick<ClusterRegistry, 'characterGateway' | 'sessionGateway'>;

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

const WHO_LIST_MAX = 200;
/**
 * A JOIN sent to a zone that has just been claimed again is repeated this often until the
 * host says JOINED (NATS drops what nobody listens to: a host listens on a zone before it
 * claims it, but over several nats-servers its interest may arrive after the claim), this many
 * times at most; the host ignores a repeat.
 */
const REJOIN_EVERY_MS = 250;
const REJOIN_TRIES = 40;

/** A zone's input message is sent at once past this many bytes. */
const INPUTS_SEND_AT = 256 * 1024;

/**
 * A character this gateway holds: in the directory from the host's JOINED to its LEFT. A live
 * session's placement carries it; once the connection closes it stays as a lingering record
 * (Gateway.lingering) until LEFT, and a Resume carries it into a new placement.
 */
interface Held {
  readonly accountId: number;
  readonly characterId: number;
  /** The character's name as stored. */
  readonly name: string;
  /** Its zone's id on the bus (changed by MOVED when the character walks into the next zone). */
  zone: string;
  /** Its entity, once a zone host said JOINED (kept across a Resume). */
  entityId: number | undefined;
  /** Told to the directory as held here. */
  listed: boolean;
}

/** One of this gateway's live sessions with a character in (or on its way into) a zone. */
interface Placement {
  readonly session: Session;
  readonly character: Held;
  /** Where it stands: changed only by placementTransition, through Gateway.drive. */
  state: PlacementState;
  /** The zone host that said JOINED (its tick messages carry this session's bytes). */
  host: string | undefined;
  /** The soft-limit verdict last sent to the zone host. */
  behind: boolean;
}

/** What some placement effects need beyond the placement (see Gateway.drive). */
interface PlacementContext {
  /** The host's JOINED: the entity, and the character it says. */
  readonly joined?: { readonly entity: number; readonly character: number };
  /** Its zone went down just now (not found down on entering). */
  readonly news?: boolean;
}

/** A zone's input message being filled this turn. */
interface Outgoing {
  readonly subject: ReturnType<typeof Subjects.zoneInput>;
  readonly w: Writer;
  /** Where the records start (after the gateway id). */
  readonly head: number;
}

export class Gateway implements GameRouter, ResumeWorld {
  readonly id: string;
  /** Live sessions' placements, by session id. */
  private readonly placements = new Map<number, Placement>();
  /** Characters whose connection closed, by that session's id: held here until the host's LEFT. */
  private readonly lingering = new Map<number, Held>();
  /** Placements written to by the batch being handled, and those last reported behind. */
  private readonly written: Placement[] = [];
  private readonly behind = new Set<Placement>();
  /** Each zone host's last tick message seq, and the sender of the batch being read. */
  private readonly seqs = new Map<string, number>();
  private batchHost = '';
  /** Times tick messages were found missing. */
  lostTicks = 0;
  private readonly outgoing = new Map<string, Outgoing>();
  /** Each zone's holder as the registry says ("id/instance"), and the zones with none. */
  private readonly holders = new Map<string, string>();
  /** Zones without a host, each with the holder it lost (to tell a return from a new host). */
  private readonly down = new Map<string, string | undefined>();
  private readonly zoneIds: ReadonlyMap<string, string>;
  private readonly defaultZone: string;
  private readonly clock: () => number;
  private readonly subscriptions: BusSubscription[];
  private scheduled = false;
  private closed = false;

  constructor(private readonly opts: GatewayOptions) {
    this.id = opts.id;
    this.clock = opts.clock ?? Date.now;
    this.zoneIds = new Map(opts.zones.map((name) => [name, zoneId(name)]));
    const first = opts.zones[0];
    if (first === undefined) throw new Error('the world has no zone');
    this.defaultZone = zoneId(first);
    this.subscriptions = [
      opts.bus.subscribe(Subjects.gatewayTick(opts.id), (m) => this.onBatch(m)),
      opts.bus.subscribe(Subjects.gatewayDirect(opts.id), (m) => this.onBatch(m)),
      opts.bus.subscribe(Subjects.gatewayWhisper(opts.id), (m) => this.onWhisper(m)),
    ];
  }

  /** Sends what is queued and stops listening; later packets go nowhere. */
  close(): void {
    if (this.closed) return;
    this.sendInputs();
    this.closed = true;
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
  }

  // ------------------------------------------------------------------ GameRouter

  zone<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void {
    const d: AnyClientPacket = def;
    if (d.target !== 'zone') {
      session.error('ERR_WRONG_STATE', `${d.name} is not a zone packet`, { fatal: false, opcode: d.opcode });
      return;
    }
    const p = this.placements.get(session.id);
    // Nobody to apply it while the zone is down: dropped (the client was told ERR_ZONE_DOWN).
    if (!p || !sendsInputs(p.state)) return;
    const w = this.inputs(p.character.zone);
    if (!w) return;
    Packet.write(w, {
      session: session.id,
      receivedAt: this.clock(),
      opcode: d.opcode,
      payload: (out) => (d.payload.write as (w: Writer, v: unknown) => void)(out, payload),
    });
  }

  world<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void {
    const d: AnyClientPacket = def;
    if (d.target !== 'world') {
      session.error('ERR_WRONG_STATE', `${d.name} is not a world packet`, { fatal: false, opcode: d.opcode });
      return;
    }
    routeWorld(this.worldRoutes, d, session, payload);
  }

  /** World packets: entering goes to the character's zone; whisper and who to whoever owns them. */
  private readonly worldRoutes: WorldRoutes = {
    EnterWorldRequest: (session, { characterId }) => {
      void this.enterWorld(session, characterId).catch((err: unknown) => {
        session.log.error({ err }, 'enter world failed');
        session.error('ERR_INTERNAL', 'could not enter the world', {
          fatal: false,
          opcode: EnterWorldRequest.opcode,
        });
      });
    },
    Whisper: (session, { to, text }) => this.whisper(session, to, text),
    Who: (session) => this.who(session),
  };

  sessionClosed(session: Session): void {
    const p = this.placements.get(session.id);
    if (p) this.drive(p, { type: 'closed' });
  }

  // ------------------------------------------------------------------ entering

  /**
   * Resume: attaches `session` to the character its account left lingering in the world,
   * here or (the registry says which) on another gateway, and returns that character's id;
   * the world sends the session its state and view at its next tick. The zone host takes the
   * character over where it stands and tells the other gateway it left. (Should the host have
   * let the character go in the meantime, the JOIN enters it afresh from its saved row.)
   */
  async reattach(session: Session): Promise<number | undefined> {
    const accountId = session.accountId;
    if (accountId === undefined || this.placements.has(session.id)) return undefined;
    for (const [id, held] of this.lingering) {
      if (held.entityId === undefined || held.accountId !== accountId) continue;
      this.lingering.delete(id);
      // Still held here: its directory entry stays. And it still has its entity: should this
      // session drop too before the host's JOINED, a later Resume finds the character again.
      this.place(session, held);
      return held.characterId;
    }
    try {
      const held = await this.opts.lookups?.sessionGateway(accountId);
      if (!held || held.gateway.id === this.id || held.characterId === undefined) return undefined;
      const record = await this.opts.store.getCharacter(held.characterId);
      if (!record || record.accountId !== accountId) return undefined;
      if (session.closing || this.closed || this.placements.has(session.id)) return undefined;
      this.place(session, this.heldFrom(record));
      return record.id;
    } catch (err) {
      // The session is resumed all the same; entering the character takes it over where it
      // lingers just as well (the zone host finds it).
      session.log.warn({ err }, 'could not look for a character lingering elsewhere');
      return undefined;
    }
  }

  private async enterWorld(session: Session, characterId: number): Promise<void> {
    const opcode = EnterWorldRequest.opcode;
    if (this.placements.has(session.id)) {
      session.error('ERR_WRONG_STATE', 'already entering the world', { fatal: false, opcode });
      return;
    }
    const record = await this.opts.store.getCharacter(characterId);
    if (!record || record.accountId !== session.accountId) {
      session.error('ERR_NO_SUCH_CHARACTER', `no character ${characterId} on this account`, {
        fatal: false,
        opcode,
      });
      return;
    }
    if (session.closing || this.placements.has(session.id)) return;
    // This gateway's record of the same character lingering: the zone host hands it over.
    for (const [id, held] of this.lingering) if (held.characterId === record.id) this.lingering.delete(id);
    this.place(session, this.heldFrom(record));
  }

  /** A character of the store not yet in the world, as this gateway holds it. */
  private heldFrom(record: { accountId: number; id: number; name: string; zone: string }): Held {
    return {
      accountId: record.accountId,
      characterId: record.id,
      name: record.name,
      zone: this.zoneIds.get(record.zone) ?? this.defaultZone,
      entityId: undefined,
      listed: false,
    };
  }

  /** Places `session` with `character` (its entity known if it is resumed): a JOIN, unless its zone is down. */
  private place(session: Session, character: Held): Placement {
    const { state, effects } = placementStart({
      zoneDown: this.down.has(character.zone),
      resumed: character.entityId !== undefined,
    });
    const p: Placement = { session, character, state, host: undefined, behind: false };
    this.placements.set(session.id, p);
    for (const effect of effects) this.carryOut(p, effect, {});
    return p;
  }

  // ------------------------------------------------------------------ placements

  /**
   * Moves the placement by `event` (placement.ts) and carries out the effects, in order.
   * Returns false, changing nothing, if its state refuses the event. A placement that ends
   * gone leaves the gateway's books (its character may stay, lingering).
   */
  private drive(p: Placement, event: PlacementEvent, ctx: PlacementContext = {}): boolean {
    const t = placementTransition(p.state, event);
    if ('refused' in t) return false;
    p.state = t.state;
    if (t.state.kind === 'gone') {
      if (this.placements.get(p.session.id) === p) this.placements.delete(p.session.id);
      this.behind.delete(p);
    }
    if (ctx.joined) {
      p.character.entityId = ctx.joined.entity;
      p.host = this.batchHost;
    }
    for (const effect of t.effects) this.carryOut(p, effect, ctx);
    return true;
  }

  private carryOut(p: Placement, effect: PlacementEffect, ctx: PlacementContext): void {
    const { session, character } = p;
    switch (effect.kind) {
      case 'sendJoin': {
        const w = this.inputs(character.zone);
        if (w)
          Join.write(w, {
            session: session.id,
            account: character.accountId,
            character: character.characterId,
          });
        return;
      }
      case 'sendDetach': {
        const w = this.inputs(character.zone);
        if (w) Detach.write(w, { session: session.id });
        return;
      }
      case 'sendResync': {
        const w = this.inputs(character.zone);
        if (w) Resync.write(w, { session: session.id });
        return;
      }
      case 'tellZoneDown': {
        const zone = character.zone;
        const reason = ctx.news ? `the host of zone ${zone} is gone` : `zone ${zone} has no host right now`;
        session.error('ERR_ZONE_DOWN', reason, { fatal: false });
        return;
      }
      case 'enterSession':
        if (!session.closing) {
          enteredWorld(session, character.entityId!, ctx.joined?.character ?? character.characterId);
        }
        return;
      case 'exitSession':
        if (effect.exit === 'takenOver') {
          // Resumed (or entered) through another gateway while this connection was still open.
          session.log.info(
            { accountId: character.accountId },
            'character taken over through another gateway',
          );
          sayTakenOver(session);
          return;
        }
        leftWorld(session);
        if (effect.exit === 'notEntered') {
          session.error('ERR_INTERNAL', 'could not enter the world', {
            fatal: false,
            opcode: EnterWorldRequest.opcode,
          });
        }
        return;
      case 'list':
        this.list(character);
        return;
      case 'unlist':
        this.unlist(character);
        return;
      case 'keepLingering':
        this.lingering.set(session.id, character);
        return;
      case 'forgetEntity':
        character.entityId = undefined;
        return;
    }
  }

  private list(character: Held): void {
    if (character.listed) return;
    character.listed = true;
    this.opts.directory?.entered(character.accountId, character.characterId, character.name);
  }

  private unlist(character: Held): void {
    if (!character.listed) return;
    character.listed = false;
    this.opts.directory?.left(character.accountId, character.name);
  }

  // ------------------------------------------------------------------ zone hosts coming and going

  /**
   * The registry's word on a zone's claim (its watch): `host` holds it now, or (undefined) the
   * claim lapsed or was released: the host is gone. A claim that passes straight to another
   * host is a loss and a return at once.
   */
  zoneClaim(zone: string, host: { id: string; instance: string } | undefined): void {
    if (this.closed) return;
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
    for (const [id, held] of this.lingering) {
      if (held.zone !== zone) continue;
      // It lingered on the host that is gone.
      this.lingering.delete(id);
      this.unlist(held);
    }
    let waiting = 0;
    for (const p of this.placements.values()) {
      if (p.character.zone === zone && this.drive(p, { type: 'zoneDown' }, { news: true })) waiting++;
    }
    this.opts.log.warn({ zone, host: lost, sessions: waiting }, 'zone host gone: its sessions wait for it');
  }

  /**
   * The zone is claimed again. By a new host (or a restart): each waiting session enters its
   * character afresh from its last save. By the same one (it kept running while the registry
   * could not see it): each is sent its whole state anew, as after a lost tick message.
   */
  private zoneUp(zone: string, sameHost: boolean): void {
    this.down.delete(zone);
    let entering = 0;
    for (const p of this.placements.values()) {
      if (p.character.zone === zone && this.drive(p, { type: 'zoneUp', sameHost })) entering++;
    }
    this.opts.log.info({ zone, sessions: entering, sameHost }, 'zone host back: its sessions enter again');
    if (entering > 0) this.rejoinLater(zone, 1);
  }

  private rejoinLater(zone: string, attempt: number): void {
    const timer = setTimeout(() => {
      if (this.closed || this.down.has(zone)) return;
      let left = 0;
      for (const p of this.placements.values()) {
        if (p.character.zone !== zone || p.session.closing) continue;
        if (this.drive(p, { type: 'rejoinDue' })) left++;
      }
      if (left > 0 && attempt < REJOIN_TRIES) this.rejoinLater(zone, attempt + 1);
    }, REJOIN_EVERY_MS);
    timer.unref();
  }

  // ------------------------------------------------------------------ world requests

  /**
   * Builds the ChatMessage once (this gateway knows the sender's entity and name; the
   * registry, the target's name as shown) and has the target's gateway deliver it; the
   * sender gets it back as its echo once delivered.
   */
  private whisper(session: Session, to: string, text: string): void {
    const p = this.placements.get(session.id);
    if (!p || p.character.entityId === undefined || this.closed) return;
    const from = { fromId: p.character.entityId, from: p.character.name };
    const noSuchPlayer = () =>
      session.error('ERR_NO_SUCH_PLAYER', `${to} is not online`, { fatal: false, opcode: Whisper.opcode });
    const deliver = async (): Promise<void> => {
      let target: { gateway: string; name: string } | undefined;
      if (this.opts.lookups) {
        // A name that cannot be a registry key (a dot, a space) is nobody's.
        const entry = await this.opts.lookups.characterGateway(to).catch((err: unknown) => {
          if (err instanceof SubjectError) return undefined;
          throw err;
        });
        if (entry) target = { gateway: entry.gateway.id, name: entry.name };
      } else {
        const local = this.inWorldByName(to);
        if (local) target = { gateway: this.id, name: local.character.name };
      }
      if (session.closing) return;
      if (!target) return noSuchPlayer();
      const frame = ChatMessage.encode({ channel: 'whisper', ...from, to: target.name, text });
      let status: WhisperStatus;
      if (target.gateway === this.id) status = this.deliverWhisper(target.name, frame);
      else {
        try {
          const request = WhisperDelivery.encode({ to: target.name, frames: frame });
          const reply = await this.opts.bus.request(
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
      if (status === WhisperStatus.Sent) session.conn.send(frame, 'reliable');
      else noSuchPlayer();
    };
    deliver().catch((err: unknown) => this.requestFailed(session, Whisper.opcode, err));
  }

  /** A whisper from another gateway for one of this gateway's characters. */
  private onWhisper(message: BusMessage): void {
    let status: WhisperStatus;
    try {
      const { to, frames } = WhisperDelivery.decode(message.data);
      status = this.deliverWhisper(to, frames);
    } catch (err) {
      this.opts.log.warn({ err }, 'whisper delivery refused');
      status = WhisperStatus.NoSuchPlayer;
    }
    message.respond(WhisperReply.encode({ status }));
  }

  /** Sends `frame` to the character named `to` if it is in the world on this gateway, with a connection. */
  private deliverWhisper(to: string, frame: Uint8Array): WhisperStatus {
    const p = this.inWorldByName(to);
    if (!p) return WhisperStatus.NoSuchPlayer;
    p.session.conn.send(frame, 'reliable');
    return WhisperStatus.Sent;
  }

  private inWorldByName(name: string): Placement | undefined {
    const key = name.toLowerCase();
    for (const p of this.placements.values()) {
      if (p.character.entityId === undefined || p.session.closing || p.session.state !== 'inWorld') continue;
      if (p.character.name.toLowerCase() === key) return p;
    }
    return undefined;
  }

  /**
   * Asks every live zone host for the players in its zones and merges the answers: zone by
   * zone in the world's order, each host's own order within a zone, at most WHO_LIST_MAX
   * listed and every player counted. A host that does not answer is left out (logged).
   */
  private who(session: Session): void {
    if (this.closed) return;
    const hosts = this.opts.zoneHosts?.() ?? [];
    const asked = hosts.map((host) =>
      this.opts.bus.request(Subjects.hostWho(host), WhoRequest.encode({}), this.requestOptions()),
    );
    void Promise.allSettled(asked).then((answers) => {
      if (session.closing) return;
      const order = new Map([...this.zoneIds.keys()].map((name, i) => [name, i]));
      const players: { name: string; level: number; zone: string }[] = [];
      let total = 0;
      let failed: unknown;
      for (const [i, answer] of answers.entries()) {
        if (answer.status === 'rejected') {
          failed = answer.reason;
          this.opts.log.warn({ err: answer.reason, host: hosts[i] }, 'a zone host did not answer who');
          continue;
        }
        try {
          const list = WhoReply.decode(answer.value);
          total += list.total;
          players.push(...list.players);
        } catch (err) {
          this.opts.log.warn({ err, host: hosts[i] }, 'a zone host answered who with bad bytes');
        }
      }
      if (failed !== undefined && answers.every((a) => a.status === 'rejected')) {
        return this.requestFailed(session, WhoList.opcode, failed);
      }
      const rank = (zone: string) => order.get(zone) ?? order.size;
      players.sort((a, b) => rank(a.zone) - rank(b.zone));
      players.length = Math.min(players.length, WHO_LIST_MAX);
      session.conn.send(WhoList.encode({ total, players }), WhoList.delivery);
    });
  }

  private requestOptions(): { timeoutMs?: number } {
    return this.opts.requestTimeoutMs === undefined ? {} : { timeoutMs: this.opts.requestTimeoutMs };
  }

  private requestFailed(session: Session, opcode: number, err: unknown): void {
    if (session.closing) return;
    session.log.warn({ err }, 'world request failed');
    session.error('ERR_INTERNAL', 'the world did not answer', { fatal: false, opcode });
  }

  // ------------------------------------------------------------------ from the zone hosts

  private onBatch(message: BusMessage): void {
    const started = performance.now();
    GatewayBatch.read(message.data, this.records);
    this.opts.flush();
    this.reportBehind();
    gatewayBatchSeconds.observe((performance.now() - started) / 1000);
  }

  /** What each record of a batch does. */
  private readonly records: StreamHandlers<typeof GatewayBatch> = {
    begin: ({ host, seq }) => {
      this.batchHost = host;
      if (seq === 0) return;
      const last = this.seqs.get(host);
      this.seqs.set(host, seq);
      // 1 after anything: the host restarted (or wrapped), not a loss.
      if (last !== undefined && seq !== 1 && seq !== nextSeq(last)) this.lost(host, last, seq);
    },
    Joined: ({ session, entity, character }) => {
      const p = this.placements.get(session);
      if (p) {
        this.drive(p, { type: 'joined' }, { joined: { entity, character } });
        return;
      }
      // Its connection closed on the way in: held here, lingering.
      const held = this.lingering.get(session);
      if (!held) return;
      held.entityId = entity;
      this.list(held);
    },
    Bytes: ({ session, frames }) => {
      const p = this.placements.get(session);
      if (!p || !takesBytes(p.state)) return;
      const conn = p.session.conn;
      if (conn.closed) return;
      conn.out.raw(frames);
      conn.commit();
      this.written.push(p);
    },
    Moved: ({ session, zone }) => {
      // The character walked into the zone beside: its inputs go there, its bytes come from there.
      const p = this.placements.get(session);
      const held = p?.character ?? this.lingering.get(session);
      if (!held) return;
      held.zone = this.zoneIds.get(zone) ?? zoneId(zone);
      if (p) p.host = this.batchHost;
    },
    Left: ({ session, reason }) => {
      const p = this.placements.get(session);
      if (p) {
        this.drive(p, { type: 'left', exit: reason });
        return;
      }
      const held = this.lingering.get(session);
      if (!held) return;
      this.lingering.delete(session);
      this.unlist(held);
    },
  };

  /**
   * Tick messages from `host` between `last` and `seq` never came (NATS delivers at most
   * once): its sessions here missed WorldUpdate deltas and motion they build on, so each is
   * sent its whole state anew.
   */
  private lost(host: string, last: number, seq: number): void {
    let sessions = 0;
    for (const p of this.placements.values()) {
      if (p.host === host && this.drive(p, { type: 'tickLost' })) sessions++;
    }
    this.lostTicks++;
    this.opts.log.warn(
      { host, last, seq, sessions },
      'tick messages lost: resending those sessions their state',
    );
  }

  /**
   * Tells the zone hosts of each in-world connection whose soft-limit verdict changed: those
   * just written to (only a write can put one behind) and those behind (a drain brings them
   * back).
   */
  private reportBehind(): void {
    for (const p of this.written) this.checkBehind(p);
    this.written.length = 0;
    for (const p of this.behind) this.checkBehind(p);
  }

  private checkBehind(p: Placement): void {
    if (!sendsInputs(p.state) || this.placements.get(p.session.id) !== p) {
      this.behind.delete(p);
      return;
    }
    const behind = p.session.conn.behind();
    if (behind === p.behind) return;
    p.behind = behind;
    if (behind) this.behind.add(p);
    else this.behind.delete(p);
    const w = this.inputs(p.character.zone);
    if (w) Behind.write(w, { session: p.session.id, behind });
  }

  // ------------------------------------------------------------------ to the zone hosts

  /** The zone's input message of this turn, sent once the turn's I/O is done. */
  private inputs(zone: string): Writer | undefined {
    if (this.closed) return undefined;
    let o = this.outgoing.get(zone);
    if (!o) {
      const w = new Writer(1024);
      ZoneInputs.begin(w, { gateway: this.id });
      o = { subject: Subjects.zoneInput(zone), w, head: w.pos };
      this.outgoing.set(zone, o);
    }
    // Far below the bus's 1 MiB (a record is at most one packet): a busy turn goes in parts.
    if (o.w.pos > INPUTS_SEND_AT) {
      this.opts.bus.publish(o.subject, o.w.finish());
      o.w.pos = o.head;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      // After the poll phase: every socket read this turn lands in one message per zone,
      // which reaches the zone host before its next tick timer.
      setImmediate(() => this.sendInputs());
    }
    return o.w;
  }

  private sendInputs(): void {
    this.scheduled = false;
    if (this.closed) return;
    for (const o of this.outgoing.values()) {
      if (o.w.pos === o.head) continue;
      this.opts.bus.publish(o.subject, o.w.finish());
      o.w.pos = o.head;
    }
  }
}
