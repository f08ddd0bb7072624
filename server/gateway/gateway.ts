/**
 * The gateway role's side of the game: where the dispatch core sends packets whose target is
 * 'zone' or 'world' (it is the GameRouter), and where the zone hosts' bytes come back to the
 * connections. It holds no world state: only which zone each of its sessions is in and
 * whether that session has an entity there.
 *
 *   zone packet        -> a PACKET record on wyvern.zone.<zone>.in (the fields as received,
 *                         re-encoded without a header), with joins, detaches and the
 *                         connections' soft-limit verdicts on the same subject in order;
 *                         every zone's records of one event-loop turn go as one message
 *   EnterWorldRequest  -> the character's row is checked here (the account's own?), then a
 *                         JOIN for its zone; the zone host takes it from there
 *   Whisper, Who       -> request/reply on wyvern.world.<kind>: whoever owns the world answers
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
 */
import { Writer } from '../../shared/codec/writer.js';
import { EnterWorldRequest, Whisper, WhoList } from '../../shared/protocol/index.js';
import type { PayloadOf } from '../../shared/protocol/index.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import type { Bus, BusMessage, BusSubscription } from '../cluster/bus.js';
import { Subjects, WorldKind, zoneId } from '../cluster/subjects.js';
import {
  beginZoneInputs,
  decodeWhisperReply,
  encodeWhisper,
  LeftReason,
  nextSeq,
  visitGatewayBatch,
  WhisperStatus,
  writeBehindRecord,
  writeDetachRecord,
  writeJoinRecord,
  writePacketRecord,
  writeResyncRecord,
  type GatewayBatchVisitor,
} from '../cluster/wire.js';
import type { GameRouter } from '../dispatch/router.js';
import type { Logger } from '../log.js';
import { gatewayBatchSeconds } from '../metrics/index.js';
import type { ResumeWorld } from '../session/account.js';
import type { Session } from '../session/connection.js';
import { enteredWorld, leftWorld } from '../session/world-state.js';
import type { Store } from '../store/index.js';
import { routeWorld, type WorldRoutes } from '../zone/routes.js';

/**
 * Told which characters this gateway holds, for the cluster registry (so a whisper or a
 * resume elsewhere can find them): from the zone host's JOINED until its LEFT, lingering
 * included.
 */
export interface SessionDirectory {
  entered(accountId: number, character: string): void;
  left(accountId: number, character: string): void;
}

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
}

/** A zone's input message is sent at once past this many bytes. */
const INPUTS_SEND_AT = 256 * 1024;

/** One of this gateway's sessions with a character in (or on its way into) a zone. */
interface Placement {
  readonly session: Session;
  /** The zone's id on the bus (changed by MOVED when the character walks into the next zone). */
  zone: string;
  readonly accountId: number;
  readonly characterId: number;
  /** The character's name as stored. */
  readonly name: string;
  /** Set once the zone host says the character is in the world (kept across a Resume). */
  entityId: number | undefined;
  /** The connection is gone (DETACH sent); the character may linger until LEFT. */
  closed: boolean;
  /** The soft-limit verdict last sent to the zone host. */
  behind: boolean;
  /** The zone host that said JOINED (its tick messages carry this session's bytes). */
  host: string | undefined;
  /** Told to the directory as held here. */
  listed: boolean;
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
  /** By session id. */
  private readonly placements = new Map<number, Placement>();
  /** Placements written to by the batch being handled, and those last reported behind. */
  private readonly written: Placement[] = [];
  private readonly behind = new Set<Placement>();
  /** Each zone host's last tick message seq, and the sender of the batch being read. */
  private readonly seqs = new Map<string, number>();
  private batchHost = '';
  /** Times tick messages were found missing. */
  lostTicks = 0;
  private readonly outgoing = new Map<string, Outgoing>();
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
    if (!p || p.entityId === undefined || p.closed) return;
    const w = this.inputs(p.zone);
    if (!w) return;
    writePacketRecord(w, session.id, this.clock(), d.opcode, (out) =>
      (d.payload.write as (w: Writer, v: unknown) => void)(out, payload),
    );
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
    if (!p || p.closed) return;
    p.closed = true;
    const w = this.inputs(p.zone);
    if (w) writeDetachRecord(w, session.id);
  }

  // ------------------------------------------------------------------ entering

  /**
   * Resume: attaches `session` to the character its account left lingering in the world
   * from this gateway, if any, and returns that character's id; the world sends the session
   * its state and view at its next tick. (Should the zone host have let the character go in
   * the meantime, the JOIN enters it afresh from its saved row.)
   */
  reattach(session: Session): number | undefined {
    if (session.accountId === undefined || this.placements.has(session.id)) return undefined;
    for (const [id, p] of this.placements) {
      if (!p.closed || p.entityId === undefined || p.accountId !== session.accountId) continue;
      this.placements.delete(id);
      const next = this.place(session, p.zone, p.accountId, p.characterId, p.name);
      // Still held here: its directory entry stays. And it still has its entity: should this
      // session drop too before the host's JOINED, a later Resume finds the character again.
      next.listed = p.listed;
      next.entityId = p.entityId;
      return p.characterId;
    }
    return undefined;
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
    for (const [id, p] of this.placements) {
      if (p.closed && p.characterId === record.id) this.placements.delete(id);
    }
    this.place(
      session,
      this.zoneIds.get(record.zone) ?? this.defaultZone,
      record.accountId,
      record.id,
      record.name,
    );
  }

  private place(
    session: Session,
    zone: string,
    accountId: number,
    characterId: number,
    name: string,
  ): Placement {
    const p: Placement = {
      session,
      zone,
      accountId,
      characterId,
      name,
      entityId: undefined,
      closed: false,
      behind: false,
      listed: false,
      host: undefined,
    };
    this.placements.set(session.id, p);
    const w = this.inputs(zone);
    if (w) writeJoinRecord(w, session.id, accountId, characterId);
    return p;
  }

  // ------------------------------------------------------------------ world requests

  private whisper(session: Session, to: string, text: string): void {
    const p = this.placements.get(session.id);
    if (!p || p.entityId === undefined || this.closed) return;
    const request = encodeWhisper({ gateway: this.id, session: session.id, to, text });
    this.opts.bus.request(Subjects.world(WorldKind.Whisper), request, this.requestOptions()).then(
      (reply) => {
        if (session.closing) return;
        const { status, frames } = decodeWhisperReply(reply);
        if (status === WhisperStatus.Sent) session.conn.send(frames, 'reliable');
        else if (status === WhisperStatus.NoSuchPlayer) {
          session.error('ERR_NO_SUCH_PLAYER', `${to} is not online`, {
            fatal: false,
            opcode: Whisper.opcode,
          });
        }
      },
      (err: unknown) => this.requestFailed(session, Whisper.opcode, err),
    );
  }

  private who(session: Session): void {
    if (this.closed) return;
    this.opts.bus.request(Subjects.world(WorldKind.Who), new Uint8Array(0), this.requestOptions()).then(
      (reply) => {
        if (!session.closing) session.conn.send(reply, WhoList.delivery);
      },
      (err: unknown) => this.requestFailed(session, WhoList.opcode, err),
    );
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
    visitGatewayBatch(message.data, this.records);
    this.opts.flush();
    this.reportBehind();
    gatewayBatchSeconds.observe((performance.now() - started) / 1000);
  }

  /** What each record of a batch does (one object: no allocation per record). */
  private readonly records: GatewayBatchVisitor = {
    begin: (host, seq) => {
      this.batchHost = host;
      if (seq === 0) return;
      const last = this.seqs.get(host);
      this.seqs.set(host, seq);
      // 1 after anything: the host restarted (or wrapped), not a loss.
      if (last !== undefined && seq !== 1 && seq !== nextSeq(last)) this.lost(host, last, seq);
    },
    joined: (session, entity, character) => {
      const p = this.placements.get(session);
      if (!p) return;
      p.entityId = entity;
      p.host = this.batchHost;
      if (!p.listed) {
        p.listed = true;
        this.opts.directory?.entered(p.accountId, p.name);
      }
      if (!p.closed && !p.session.closing) enteredWorld(p.session, entity, character);
    },
    bytes: (session, buf, start, end) => {
      const p = this.placements.get(session);
      if (!p || p.closed) return;
      const conn = p.session.conn;
      if (conn.closed) return;
      conn.out.rawRange(buf, start, end);
      conn.commit();
      this.written.push(p);
    },
    moved: (session, zone) => {
      // The character walked into the zone beside: its inputs go there, its bytes come from there.
      const p = this.placements.get(session);
      if (!p) return;
      p.zone = this.zoneIds.get(zone) ?? zoneId(zone);
      p.host = this.batchHost;
    },
    left: (session, reason) => {
      const p = this.placements.get(session);
      if (!p) return;
      this.placements.delete(session);
      if (p.listed) this.opts.directory?.left(p.accountId, p.name);
      if (p.closed) return;
      leftWorld(p.session);
      if (reason === LeftReason.NotEntered) {
        p.session.error('ERR_INTERNAL', 'could not enter the world', {
          fatal: false,
          opcode: EnterWorldRequest.opcode,
        });
      }
    },
  };

  /**
   * Tick messages from `host` between `last` and `seq` never came (NATS delivers at most
   * once): its sessions here missed WorldUpdate deltas and motion they build on, so each is
   * sent its whole state anew.
   */
  private lost(host: string, last: number, seq: number): void {
    let sessions = 0;
    for (const [id, p] of this.placements) {
      if (p.host !== host || p.closed || p.entityId === undefined) continue;
      const w = this.inputs(p.zone);
      if (!w) continue;
      writeResyncRecord(w, id);
      sessions++;
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
    if (p.closed || p.entityId === undefined || this.placements.get(p.session.id) !== p) {
      this.behind.delete(p);
      return;
    }
    const behind = p.session.conn.behind();
    if (behind === p.behind) return;
    p.behind = behind;
    if (behind) this.behind.add(p);
    else this.behind.delete(p);
    const w = this.inputs(p.zone);
    if (w) writeBehindRecord(w, p.session.id, behind);
  }

  // ------------------------------------------------------------------ to the zone hosts

  /** The zone's input message of this turn, sent once the turn's I/O is done. */
  private inputs(zone: string): Writer | undefined {
    if (this.closed) return undefined;
    let o = this.outgoing.get(zone);
    if (!o) {
      const w = new Writer(1024);
      beginZoneInputs(w, this.id);
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
