/**
 * The realm: every zone this process runs, the fixed tick that drives them, and the routing
 * of zone- and world-targeted packets (the dispatch core's GameRouter) through the tables of
 * routes.ts, typed from the packets' declared targets. Zone packets become world inputs
 * queued for the session's zone; world packets (enter world, whisper, who) are answered here
 * because they cross zones.
 *
 * Saving: a player's state is stored when the world says so (logout, disconnect), every
 * autosave interval for everyone in the world (one batched write), and at shutdown. A
 * character that is leaving cannot enter again until its save has been written, so a quick
 * reconnect never loads a stale row.
 *
 * Lingering: a character whose connection drops stays in the world, standing, visible and
 * attackable, for lingerMs (and at least combatLingerMs after its last combat action), then
 * leaves as a logout does. A Resume of its account, or a login that enters the same character,
 * within that time takes it over where it stands: the new session is attached to the same
 * entity, which never leaves anyone's view.
 */
import { ChatMessage, EnterWorldRequest, Whisper, WhoList } from '../../shared/protocol/index.js';
import type { PayloadOf } from '../../shared/protocol/index.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import type { GameRouter } from '../dispatch/router.js';
import type { Logger } from '../log.js';
import { storeSaveSeconds, tickSeconds } from '../metrics/index.js';
import type { Session } from '../session/connection.js';
import type { CharacterRecord, CharacterSave, CharacterSaver, Store } from '../store/index.js';
import {
  createWorld,
  entityById,
  findPlayerByName,
  mulberry32,
  savedCharacter,
  type Player,
  type SavedCharacter,
  type WorldData,
  type WorldEvent,
  type WorldRules,
} from '../world/index.js';
import { routeWorld, zoneInput, type WorldRoutes } from './routes.js';
import { ZoneHost, type ZoneHostHooks } from './zone-host.js';

export interface RealmOptions {
  readonly data: WorldData;
  readonly store: Store;
  readonly saver: CharacterSaver;
  readonly log: Logger;
  readonly tickRate: number;
  readonly autosaveMs: number;
  readonly rules?: Partial<WorldRules>;
  /** Server clock in ms (Unix epoch); clients sync to it through Ping/Pong. */
  readonly clock?: () => number;
  readonly seed?: number;
  /** Runs after every tick (the server flushes every connection's queued frames here). */
  readonly afterTick?: () => void;
  /** How long a character stays after its connection drops (ms). Default 0: it leaves at once. */
  readonly lingerMs?: number;
  /** ...and at least this long after its last combat action (ms). Default 0. */
  readonly combatLingerMs?: number;
}

interface Placement {
  host: ZoneHost;
  accountId: number | undefined;
  characterId: number;
  /** Known spells travel with the stored row; the world does not change them yet. */
  spells: number[];
  playerId?: number;
  session: Session;
  /** A newer session took the character: this one leaves as soon as it has an entity. */
  superseded: boolean;
  /** Server ms its connection dropped, while the character lingers without one. */
  lingerSince: number | undefined;
  /** Attached to a new session, waiting for the world to apply it (see Realm.attach). */
  attaching: boolean;
  /** Resolves once the placement is gone (its entity left, or it never got one). */
  readonly gone: Promise<void>;
  readonly markGone: () => void;
}

function newPlacement(host: ZoneHost, characterId: number, spells: number[], session: Session): Placement {
  let markGone!: () => void;
  const gone = new Promise<void>((resolve) => (markGone = resolve));
  return {
    host,
    accountId: session.accountId,
    characterId,
    spells,
    session,
    superseded: false,
    lingerSince: undefined,
    attaching: false,
    gone,
    markGone,
  };
}

const WHO_LIST_MAX = 200;

export class Realm implements GameRouter {
  readonly zones = new Map<string, ZoneHost>();
  private readonly defaultZone: ZoneHost;
  /** By session id: where a session's character is (or is about to be). */
  private readonly placements = new Map<number, Placement>();
  /** Placements whose connection dropped: their characters stay until their time is up. */
  private readonly lingering = new Set<Placement>();
  private readonly lingerMs: number;
  private readonly combatLingerMs: number;
  /** Characters whose leave is being saved; entering again waits for it. */
  private readonly leaving = new Map<number, Promise<unknown>>();
  private readonly clock: () => number;
  private timer: NodeJS.Timeout | undefined;
  private autosaveTimer: NodeJS.Timeout | undefined;
  private nextTickAt = 0;
  private saveRequested = false;
  /** Characters that left since the last flush: they may not re-enter before it is written. */
  private leavingIds: number[] = [];
  /** Ticks started late by more than a whole interval (the loop was blocked). */
  lateTicks = 0;

  constructor(private readonly opts: RealmOptions) {
    this.clock = opts.clock ?? Date.now;
    this.lingerMs = opts.lingerMs ?? 0;
    this.combatLingerMs = opts.combatLingerMs ?? 0;
    const hooks: ZoneHostHooks = {
      joined: (host, sessionId, playerId) => this.onJoined(host, sessionId, playerId),
      save: (host, e) => this.onSave(host, e),
      leftWorld: (host, e) => this.onLeftWorld(host, e),
    };
    let seed = opts.seed ?? this.clock() & 0x7fffffff;
    for (const zone of opts.data.zones) {
      const rng = mulberry32(seed++);
      const world = createWorld(opts.data, { zone: zone.name, rules: opts.rules, now: this.clock(), rng });
      this.zones.set(zone.name, new ZoneHost(world, rng, hooks));
    }
    const first = this.zones.values().next().value;
    if (!first) throw new Error('the world data has no zone');
    this.defaultZone = first;
  }

  // ------------------------------------------------------------------ lifecycle

  start(): void {
    const interval = 1000 / this.opts.tickRate;
    this.nextTickAt = performance.now() + interval;
    const loop = () => {
      this.runTick();
      this.nextTickAt += interval;
      const now = performance.now();
      if (now - this.nextTickAt > interval) {
        // Far behind (the process was stalled): start afresh rather than burst ticks.
        this.lateTicks++;
        this.nextTickAt = now + interval;
      }
      this.timer = setTimeout(loop, Math.max(0, this.nextTickAt - now));
    };
    this.timer = setTimeout(loop, interval);
    this.autosaveTimer = setInterval(() => this.saveEveryone(), this.opts.autosaveMs);
    this.autosaveTimer.unref();
  }

  /** Runs every zone's tick once (the timer calls this; tests may call it directly). */
  runTick(): void {
    const started = performance.now();
    const now = this.clock();
    // Before the step: a leave queued here is applied in this very tick, so no resume can
    // come between the decision and the departure.
    if (this.lingering.size > 0) this.expireLingering(now);
    for (const host of this.zones.values()) host.tick(now);
    if (this.saveRequested) {
      this.saveRequested = false;
      this.flushSaves();
    }
    this.opts.afterTick?.();
    tickSeconds.observe((performance.now() - started) / 1000);
  }

  /** Stops ticking and writes every player's state. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    clearInterval(this.autosaveTimer);
    this.timer = this.autosaveTimer = undefined;
    this.markEveryoneDirty();
    await this.opts.saver.stop();
  }

  /** Marks everyone in the world dirty and writes them in one batch. */
  saveEveryone(): Promise<unknown> {
    this.markEveryoneDirty();
    return this.flushSaves();
  }

  get playerCount(): number {
    let n = 0;
    for (const host of this.zones.values()) n += host.world.players.size;
    return n;
  }

  // ------------------------------------------------------------------ routing

  zone<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void {
    const d: AnyClientPacket = def;
    if (d.target !== 'zone') {
      session.error('ERR_WRONG_STATE', `${d.name} is not a zone packet`, { fatal: false, opcode: d.opcode });
      return;
    }
    const placement = this.placements.get(session.id);
    const entityId = placement?.playerId;
    if (!placement || entityId === undefined) return;
    placement.host.queue(zoneInput(d, entityId, payload, this.clock()));
  }

  world<P extends AnyClientPacket>(session: Session, def: P, payload: PayloadOf<P>): void {
    const d: AnyClientPacket = def;
    if (d.target !== 'world') {
      session.error('ERR_WRONG_STATE', `${d.name} is not a world packet`, { fatal: false, opcode: d.opcode });
      return;
    }
    routeWorld(this.worldRoutes, d, session, payload);
  }

  /** World packets: they cross zones, so the realm answers them. */
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
    const placement = this.placements.get(session.id);
    // Not yet bound: onJoined sees the session gone and acts then.
    if (!placement || placement.playerId === undefined || placement.session !== session) return;
    this.detach(placement);
  }

  /**
   * Resume: attaches `session` to the character its account left lingering in the world, if
   * any, and returns that character's id; the world sends the session its state and view at
   * the next tick.
   */
  reattach(session: Session): number | undefined {
    if (session.accountId === undefined || this.placements.has(session.id)) return undefined;
    for (const placement of this.lingering) {
      if (placement.accountId !== session.accountId) continue;
      this.attach(placement, session);
      return placement.characterId;
    }
    return undefined;
  }

  // ------------------------------------------------------------------ linger

  /** The connection is gone: the character stays, standing, with nobody to write to. */
  private detach(placement: Placement): void {
    const playerId = placement.playerId!;
    placement.host.unbind(playerId);
    placement.attaching = false;
    placement.lingerSince = this.clock();
    this.lingering.add(placement);
    placement.host.queue({ type: 'detach', entityId: playerId });
  }

  /** Hands a lingering character to `session`; the world re-sends it everything at the next tick. */
  private attach(placement: Placement, session: Session): void {
    this.lingering.delete(placement);
    this.placements.delete(placement.session.id);
    placement.session = session;
    placement.lingerSince = undefined;
    placement.attaching = true;
    this.placements.set(session.id, placement);
    session.log.info({ characterId: placement.characterId }, 'took over the character in the world');
    placement.host.queue({ type: 'attach', entityId: placement.playerId!, sessionId: session.id });
  }

  private expireLingering(now: number): void {
    for (const placement of this.lingering) {
      const player = placement.host.world.players.get(placement.playerId!);
      if (!player) {
        this.lingering.delete(placement);
        continue;
      }
      const until = Math.max(
        placement.lingerSince! + this.lingerMs,
        player.lastCombatAt + this.combatLingerMs,
      );
      if (now < until) continue;
      this.lingering.delete(placement);
      placement.host.queue({ type: 'leave', entityId: player.id, reason: 'disconnected' });
    }
  }

  // ------------------------------------------------------------------ enter world

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
    // The same character lingering after its connection dropped (or was taken over): this
    // session takes it where it stands, no despawn.
    for (const placement of this.lingering) {
      if (placement.characterId !== record.id) continue;
      this.attach(placement, session);
      return;
    }
    // The same character on its way in for an older connection: take it out first, and load
    // the row only once that entity's state has been saved.
    const previous = [...this.placements.values()].filter((o) => o.characterId === record.id);
    for (const other of previous) {
      other.superseded = true;
      if (other.playerId !== undefined) {
        other.host.queue({ type: 'leave', entityId: other.playerId, reason: 'takenOver' });
      }
    }
    const host = this.zones.get(record.zone) ?? this.defaultZone;
    this.placements.set(session.id, newPlacement(host, record.id, record.spells, session));
    await Promise.all(previous.map((o) => o.gone));
    await this.waitUntilSaved(record.id);
    // Reload after any save that was in flight, so the freshest state enters.
    const fresh = (await this.opts.store.getCharacter(record.id)) ?? record;
    if (session.closing) {
      this.removePlacement(session.id);
      return;
    }
    host.queue({ type: 'join', sessionId: session.id, character: toSaved(fresh) });
  }

  private removePlacement(sessionId: number): void {
    const placement = this.placements.get(sessionId);
    if (!placement) return;
    this.placements.delete(sessionId);
    // After this tick's saves are flushed (runTick does that before yielding), so a waiter
    // that then calls waitUntilSaved finds the save in flight.
    placement.markGone();
  }

  private async waitUntilSaved(characterId: number): Promise<void> {
    for (let pending = this.leaving.get(characterId); pending; pending = this.leaving.get(characterId)) {
      await pending.catch(() => undefined);
      if (this.leaving.get(characterId) === pending) this.leaving.delete(characterId);
    }
  }

  private onJoined(host: ZoneHost, sessionId: number, playerId: number): void {
    const placement = this.placements.get(sessionId);
    // An attach whose new session closed before the world applied it lingers again.
    if (placement && this.lingering.has(placement)) return;
    if (placement?.attaching && placement.session.closing) {
      this.detach(placement);
      return;
    }
    if (!placement || placement.session.closing || placement.superseded) {
      // The connection went away (or another took the character) while the join was queued.
      if (placement) placement.playerId = playerId;
      const reason = placement?.superseded ? 'takenOver' : 'disconnected';
      host.queue({ type: 'leave', entityId: playerId, reason });
      return;
    }
    placement.playerId = playerId;
    placement.attaching = false;
    const session = placement.session;
    session.entityId = playerId;
    session.characterId = placement.characterId;
    session.state = 'inWorld';
    host.bind(playerId, session);
  }

  /** The placement of a world player, by the session id the world has for it. */
  private placementOf(host: ZoneHost, sessionId: number, playerId: number): Placement | undefined {
    const placement = this.placements.get(sessionId);
    if (placement?.host === host && placement.playerId === playerId) return placement;
    // Re-keyed by an attach the world has not applied yet.
    for (const p of this.placements.values()) if (p.host === host && p.playerId === playerId) return p;
    return undefined;
  }

  private onSave(host: ZoneHost, e: Extract<WorldEvent, { type: 'save' }>): void {
    const placement = this.placementOf(host, e.sessionId, e.playerId);
    const spells = placement?.spells ?? host.world.players.get(e.playerId)?.spells ?? [];
    this.opts.saver.markDirty(toSave(e.character, host.name, spells));
    this.leavingIds.push(e.character.id);
    this.saveRequested = true;
  }

  private onLeftWorld(host: ZoneHost, e: Extract<WorldEvent, { type: 'leftWorld' }>): void {
    host.unbind(e.playerId);
    const placement = this.placementOf(host, e.sessionId, e.playerId);
    if (!placement) return;
    this.lingering.delete(placement);
    this.removePlacement(placement.session.id);
    const session = placement.session;
    session.entityId = undefined;
    session.characterId = undefined;
    if (!session.closing && session.state === 'inWorld') session.state = 'authenticated';
  }

  private flushSaves(): Promise<unknown> {
    const ids = this.leavingIds;
    this.leavingIds = [];
    const run = this.opts.saver.flush().then(
      (report) => {
        if (report.count > 0) storeSaveSeconds.observe(report.ms / 1000);
        return report;
      },
      (err: unknown) => {
        this.opts.log.error({ err }, 'saving characters failed; will retry');
      },
    );
    for (const id of ids) this.leaving.set(id, run);
    // Forget the wait once written, unless a newer save of the same character replaced it.
    void run.then(() => {
      for (const id of ids) if (this.leaving.get(id) === run) this.leaving.delete(id);
    });
    return run;
  }

  private markEveryoneDirty(): void {
    for (const placement of this.placements.values()) {
      if (placement.playerId === undefined) continue;
      const p = placement.host.world.players.get(placement.playerId);
      if (!p) continue;
      const saved = savedCharacter(placement.host.world, p);
      this.opts.saver.markDirty(toSave(saved, placement.host.name, placement.spells));
    }
  }

  // ------------------------------------------------------------------ whisper, who

  private findPlayer(name: string): { host: ZoneHost; player: Player } | undefined {
    for (const host of this.zones.values()) {
      const player = findPlayerByName(host.world, name);
      if (player) return { host, player };
    }
    return undefined;
  }

  private whisper(session: Session, to: string, text: string): void {
    const opcode = Whisper.opcode;
    const placement = this.placements.get(session.id);
    const self =
      placement?.playerId !== undefined ? entityById(placement.host.world, placement.playerId) : undefined;
    if (!placement || !self) return;
    const found = this.findPlayer(to);
    const target = found && found.host.sessionOf(found.player.id);
    if (!found || !target) {
      session.error('ERR_NO_SUCH_PLAYER', `${to} is not online`, { fatal: false, opcode });
      return;
    }
    const line = {
      channel: 'whisper' as const,
      fromId: self.id,
      from: self.name,
      to: found.player.name,
      text,
    };
    target.send(ChatMessage, line);
    if (target !== session) session.send(ChatMessage, line);
  }

  private who(session: Session): void {
    const players: { name: string; level: number; zone: string }[] = [];
    let total = 0;
    for (const host of this.zones.values()) {
      for (const p of host.world.players.values()) {
        total++;
        if (players.length < WHO_LIST_MAX) players.push({ name: p.name, level: p.level, zone: host.name });
      }
    }
    session.send(WhoList, { total, players });
  }
}

/** A stored character as the world takes it. */
export function toSaved(record: CharacterRecord): SavedCharacter {
  return {
    id: record.id,
    name: record.name,
    level: record.level,
    appearance: record.appearance,
    zone: record.zone,
    x: record.x,
    y: record.y,
    facing: record.facing,
    health: record.health,
    mana: record.mana,
    kills: record.kills,
  };
}

/** A world player's persistent state as the store writes it. */
export function toSave(c: SavedCharacter, zone: string, spells: number[]): CharacterSave {
  return {
    id: c.id,
    zone: c.zone ?? zone,
    x: c.x ?? 0,
    y: c.y ?? 0,
    facing: c.facing ?? 0,
    level: c.level,
    health: c.health ?? 0,
    mana: c.mana ?? 0,
    spells,
    kills: c.kills,
  };
}
