/**
 * What the client knows of the world near its character: every entity the server has
 * spawned in view, kept up to date from the entity records of WorldUpdate frames, plus the
 * client's own entity. Pure bookkeeping: no sockets, no clock; every call that depends on
 * time takes the server time as an argument. Each change is reported to `onChange`
 * listeners as data.
 *
 * Movement is state (shared/game/motion.ts): each entity keeps its newest motion states.
 * Between two states it is where a straight line between them puts it (so an explicit stop
 * is exact: no overshoot), with a state added where a walker changed course between them
 * (insertCorner: the speed stays steady through stops, starts and turns); past the newest
 * it is dead-reckoned from it, and held once that state is older than MAX_DEAD_RECKON_MS. A mob's path record becomes states too (one per
 * waypoint, shared/game/interpolation.ts), so a new path or move takes over from its own
 * time and the entity is still where it was for any earlier time a renderer draws.
 *
 * Ids: players count up from 1, mobs from MOB_ID_BASE (2^20); `kind` says which.
 */
import { cornerAfter, type MotionState } from '../game/motion.js';
import type { Vec2 } from '../game/movement.js';
import { pathMotion, sampleMotion, type Placement } from '../game/interpolation.js';
import { MOB_ID_BASE, type EntityKind } from '../protocol/common.js';
import type { PayloadOf } from '../protocol/define.js';
import type { LevelUp, PlayerStats } from '../protocol/entity.js';
import type { EnterWorld, ZoneInfo } from '../protocol/character.js';
import type { MoveAck, PositionCorrection } from '../protocol/movement.js';
import {
  MAX_PATH_POINTS,
  type DeathRecord,
  type DespawnRecord,
  type EntityRecord,
  type HealthRecord,
  type MoveRecord,
  type PathRecord,
  type RespawnRecord,
  type SpawnRecord,
} from '../protocol/records.js';

export type PlayerStatsPayload = PayloadOf<typeof PlayerStats>;
export type LevelUpPayload = PayloadOf<typeof LevelUp>;
export type EnterWorldPayload = PayloadOf<typeof EnterWorld>;
export type ZoneInfoPayload = PayloadOf<typeof ZoneInfo>;
export type MoveAckPayload = PayloadOf<typeof MoveAck>;
export type CorrectionPayload = PayloadOf<typeof PositionCorrection>;

/** A walk in progress: from `from` (where the entity stood at startTime) through the waypoints. */
export interface PathState {
  readonly from: Vec2;
  readonly waypoints: readonly Vec2[];
  /** Units per second. */
  readonly speed: number;
  /** Server ms. */
  readonly startTime: number;
}

export interface ViewEntity {
  readonly id: number;
  kind: EntityKind;
  /** Mob template id; 0 for players. */
  template: number;
  name: string;
  level: number;
  health: number;
  maxHealth: number;
  alive: boolean;
  /** Last known position, as of `updatedAt` (use positionAt for where it is at a time). */
  x: number;
  y: number;
  /** Radians in [0, 2π). */
  facing: number;
  speed: number;
  /** The speed its spawn gave: motion records without a speed of their own walk at it. */
  spawnSpeed: number;
  appearance: number;
  /** Server time of the last position update. */
  updatedAt: number;
  /** The path it is walking (a mob), until a move, a death or its end; its states are in `motion`. */
  path: PathState | undefined;
  /**
   * Newest motion states, oldest first; a path's run into the future (one per waypoint).
   * Empty for the self entity, which the client predicts.
   */
  motion: MotionState[];
  /** The client's own character. */
  readonly self: boolean;
}

export interface SelfStats {
  mana: number;
  maxMana: number;
  level: number;
  kills: number;
  /** Experience into the current level, and what the level needs (0 at the highest). */
  experience: number;
  experienceNeeded: number;
}

export type WorldChange =
  | { readonly type: 'enter'; readonly entity: ViewEntity }
  | { readonly type: 'spawn'; readonly entity: ViewEntity }
  | { readonly type: 'despawn'; readonly entity: ViewEntity; readonly reason: DespawnRecord['reason'] }
  /** A movement state; `jump` when it is a discontinuity to snap to (never blend into). */
  | { readonly type: 'move'; readonly entity: ViewEntity; readonly jump: boolean }
  | { readonly type: 'path'; readonly entity: ViewEntity }
  | { readonly type: 'health'; readonly entity: ViewEntity }
  | { readonly type: 'death'; readonly entity: ViewEntity; readonly killerId: number }
  | { readonly type: 'respawn'; readonly entity: ViewEntity }
  | { readonly type: 'stats'; readonly stats: SelfStats }
  /** An entity in view (or the own one) reached `entity.level` (LevelUp). */
  | { readonly type: 'levelUp'; readonly entity: ViewEntity }
  /** The server accepted the client's moves up to seq. */
  | { readonly type: 'ack'; readonly seq: number }
  /** The server refused a move: the self entity was snapped to the payload's position. */
  | { readonly type: 'correction'; readonly correction: CorrectionPayload }
  | { readonly type: 'reset' };

export type WorldChangeListener = (change: WorldChange) => void;

export function isMobId(id: number): boolean {
  return id >= MOB_ID_BASE;
}

/**
 * Motion states kept per entity: a path's (MAX_PATH_POINTS + 1) and a few before it, enough to
 * draw a short way into the past; advance() forgets those no longer needed sooner.
 */
const MOTION_HISTORY = MAX_PATH_POINTS + 8;

export class WorldView {
  readonly entities = new Map<number, ViewEntity>();
  selfId: number | undefined;
  zone: ZoneInfoPayload | undefined;
  stats: SelfStats | undefined;
  /** Newest move seq the server acknowledged. */
  lastAckedSeq = 0;
  private readonly listeners = new Set<WorldChangeListener>();

  onChange(listener: WorldChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get self(): ViewEntity | undefined {
    return this.selfId === undefined ? undefined : this.entities.get(this.selfId);
  }

  get(id: number): ViewEntity | undefined {
    return this.entities.get(id);
  }

  /** Forgets everything (on logout or a new connection). */
  reset(): void {
    this.entities.clear();
    this.selfId = undefined;
    this.zone = undefined;
    this.stats = undefined;
    this.lastAckedSeq = 0;
    this.emit({ type: 'reset' });
  }

  /** Starts over in a zone with the client's own entity, from EnterWorld (and ZoneInfo). */
  enter(enter: EnterWorldPayload, zone?: ZoneInfoPayload): ViewEntity {
    this.entities.clear();
    this.lastAckedSeq = 0;
    this.zone = zone;
    const entity: ViewEntity = {
      id: enter.entityId,
      kind: 'player',
      template: 0,
      name: enter.name,
      level: enter.level,
      health: enter.health,
      maxHealth: enter.maxHealth,
      alive: enter.health > 0,
      x: enter.x,
      y: enter.y,
      facing: enter.facing,
      speed: enter.speed,
      spawnSpeed: enter.speed,
      appearance: 0,
      updatedAt: enter.serverTime,
      path: undefined,
      motion: [],
      self: true,
    };
    this.selfId = entity.id;
    this.entities.set(entity.id, entity);
    this.stats = {
      mana: enter.mana,
      maxMana: enter.maxMana,
      level: enter.level,
      kills: this.stats?.kills ?? 0,
      experience: this.stats?.experience ?? 0,
      experienceNeeded: this.stats?.experienceNeeded ?? 0,
    };
    this.emit({ type: 'enter', entity });
    return entity;
  }

  /**
   * Applies one WorldUpdate's records, which happened at server time `at`. A spawn record is
   * followed by its entity's motion record; both are applied before the spawn is reported.
   */
  applyRecords(records: readonly EntityRecord[], at: number): void {
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      switch (r.kind) {
        case 'spawn': {
          const next = records[i + 1];
          const motion =
            next && next.id === r.id && (next.kind === 'move' || next.kind === 'path') ? next : undefined;
          if (motion) i++;
          this.spawn(r, motion, at);
          break;
        }
        case 'move':
          this.move(r, at);
          break;
        case 'path':
          this.path(r, at);
          break;
        case 'despawn':
          this.despawn(r);
          break;
        case 'health':
          this.health(r);
          break;
        case 'death':
          this.death(r, at);
          break;
        case 'respawn':
          this.respawn(r, at);
          break;
      }
    }
  }

  spawn(p: SpawnRecord, motion: MoveRecord | PathRecord | undefined, at: number): ViewEntity | undefined {
    // The own entity comes from EnterWorld and is moved by the client: never spawned over.
    if (p.id === this.selfId) return undefined;
    const entity: ViewEntity = {
      id: p.id,
      kind: p.entity,
      template: p.template,
      name: p.name,
      level: p.level,
      health: p.health,
      maxHealth: p.maxHealth,
      alive: p.alive,
      x: motion ? motion.x : 0,
      y: motion ? motion.y : 0,
      facing: motion?.kind === 'move' ? motion.angle : 0,
      speed: p.speed,
      spawnSpeed: p.speed,
      appearance: p.appearance,
      updatedAt: at,
      path: undefined,
      motion: [],
      self: false,
    };
    this.entities.set(p.id, entity);
    if (motion?.kind === 'move') this.setMotion(entity, motion, at, true);
    else if (motion?.kind === 'path') this.setPath(entity, motion, at);
    else entity.motion.push(standing(entity.x, entity.y, entity.facing, at));
    this.emit({ type: 'spawn', entity });
    return entity;
  }

  despawn(p: { id: number; reason: DespawnRecord['reason'] }): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity || entity.self) return undefined;
    this.entities.delete(p.id);
    this.emit({ type: 'despawn', entity, reason: p.reason });
    return entity;
  }

  /** A movement state; the own entity's are ignored (the client predicts it; corrections say otherwise). */
  move(p: MoveRecord, at: number): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity || entity.self) return undefined;
    this.setMotion(entity, p, at, p.jump);
    this.emit({ type: 'move', entity, jump: p.jump });
    return entity;
  }

  path(p: PathRecord, at: number): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity || entity.self) return undefined;
    this.setPath(entity, p, at);
    this.emit({ type: 'path', entity });
    return entity;
  }

  health(p: HealthRecord): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    entity.health = p.health;
    entity.maxHealth = p.maxHealth;
    this.emit({ type: 'health', entity });
    return entity;
  }

  death(p: Pick<DeathRecord, 'id' | 'killerId'>, at: number): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    const where = this.positionAt(entity, at);
    entity.path = undefined;
    entity.x = where.x;
    entity.y = where.y;
    entity.facing = where.facing;
    entity.updatedAt = at;
    // It stops where it fell; what came before stays, for times drawn before the death.
    if (!entity.self) pushState(entity.motion, standing(where.x, where.y, where.facing, at), false);
    entity.alive = false;
    entity.health = 0;
    this.emit({ type: 'death', entity, killerId: p.killerId });
    return entity;
  }

  respawn(p: Omit<RespawnRecord, 'kind'>, at: number): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    entity.alive = true;
    entity.x = p.x;
    entity.y = p.y;
    entity.health = p.health;
    entity.maxHealth = p.maxHealth;
    entity.updatedAt = at;
    entity.path = undefined;
    if (!entity.self) entity.motion = [standing(p.x, p.y, entity.facing, at)];
    this.emit({ type: 'respawn', entity });
    return entity;
  }

  private setMotion(entity: ViewEntity, p: MoveRecord, at: number, snap: boolean): void {
    const state: MotionState = {
      x: p.x,
      y: p.y,
      // A player's state is dated when its input took effect: `age` ms before the update's time.
      t: at - (p.age ?? 0),
      moving: p.moving,
      angle: p.angle,
      speed: p.moving ? (p.speed ?? entity.spawnSpeed) : 0,
    };
    entity.path = undefined;
    entity.x = p.x;
    entity.y = p.y;
    entity.facing = p.angle;
    entity.updatedAt = at;
    pushState(entity.motion, state, snap);
    if (!snap) {
      insertCorner(entity.motion);
      dropImplausible(entity.motion, Math.max(entity.spawnSpeed, state.speed));
    }
  }

  private setPath(entity: ViewEntity, p: PathRecord, at: number): void {
    const from = { x: p.x, y: p.y };
    const waypoints = p.waypoints.map((w) => ({ x: w.x, y: w.y }));
    // A path without a speed walks at the spawn's (kept in entity.speed until one says otherwise).
    const speed = p.speed ?? entity.spawnSpeed;
    const states = pathMotion(from, waypoints, speed, at, entity.facing);
    entity.x = p.x;
    entity.y = p.y;
    entity.facing = states[0]!.angle;
    entity.updatedAt = at;
    entity.speed = speed;
    entity.path = { from, waypoints, speed, startTime: at };
    // The path takes over from its start: what the history had from then on is void.
    const motion = entity.motion;
    while (motion.length > 0 && motion[motion.length - 1]!.t >= at) motion.pop();
    motion.push(...states);
    trimHistory(motion);
  }

  playerStats(p: PlayerStatsPayload): SelfStats {
    const stats = {
      mana: p.mana,
      maxMana: p.maxMana,
      level: p.level,
      kills: p.kills,
      experience: p.experience,
      experienceNeeded: p.experienceNeeded,
    };
    this.stats = stats;
    const self = this.self;
    if (self) self.level = p.level;
    this.emit({ type: 'stats', stats });
    return stats;
  }

  levelUp(p: LevelUpPayload): void {
    const entity = this.entities.get(p.entityId);
    if (!entity) return;
    entity.level = p.level;
    this.emit({ type: 'levelUp', entity });
  }

  moveAck(p: MoveAckPayload): void {
    if (p.seq > this.lastAckedSeq) this.lastAckedSeq = p.seq;
    this.emit({ type: 'ack', seq: p.seq });
  }

  /** Snaps the self entity to the server's position; replaying later inputs is the predictor's job. */
  correction(p: CorrectionPayload, at: number): void {
    const self = this.self;
    if (self) {
      self.x = p.x;
      self.y = p.y;
      self.facing = p.facing;
      self.updatedAt = at;
    }
    this.emit({ type: 'correction', correction: p });
  }

  /** The client moved its own entity (prediction). Not reported as a change: the caller knows. */
  setSelfPosition(x: number, y: number, facing: number, at: number): void {
    const self = this.self;
    if (!self) return;
    self.x = x;
    self.y = y;
    self.facing = facing;
    self.updatedAt = at;
  }

  /**
   * Applies a decoded server packet by name; returns whether it concerned the view.
   * `at` is the server time the update happened (the tick's time when known).
   */
  apply(name: string, payload: unknown, at: number): boolean {
    switch (name) {
      case 'PlayerStats':
        this.playerStats(payload as PlayerStatsPayload);
        return true;
      case 'LevelUp':
        this.levelUp(payload as LevelUpPayload);
        return true;
      case 'MoveAck':
        this.moveAck(payload as MoveAckPayload);
        return true;
      case 'PositionCorrection':
        this.correction(payload as CorrectionPayload, at);
        return true;
      case 'ZoneInfo':
        this.zone = payload as ZoneInfoPayload;
        return true;
      default:
        return false;
    }
  }

  /**
   * Where an entity is at a server time, from its motion states (a path's included): between
   * two states on the line between them, past the newest dead-reckoned (then held). The self
   * entity is where the client last put it.
   */
  positionAt(entity: ViewEntity, serverTime: number): Placement {
    return sampleMotion(entity.motion, serverTime) ?? { x: entity.x, y: entity.y, facing: entity.facing };
  }

  /**
   * Moves pathing entities to where they are at `serverTime` (a finished path is dropped), and
   * forgets motion states older than the one in force at `keepFrom`: a renderer that draws
   * the past passes the oldest time it may still draw.
   */
  advance(serverTime: number, keepFrom = serverTime): void {
    for (const entity of this.entities.values()) {
      if (entity.path) this.settle(entity, serverTime);
      const motion = entity.motion;
      let drop = 0;
      while (drop + 1 < motion.length && motion[drop + 1]!.t <= keepFrom) drop++;
      if (drop > 0) motion.splice(0, drop);
    }
  }

  /** The closest entity to `from` that passes `filter` (the self entity never counts). */
  nearest(
    from: Vec2,
    serverTime: number,
    filter: (e: ViewEntity) => boolean = () => true,
  ): ViewEntity | undefined {
    let best: ViewEntity | undefined;
    let bestDistance = Infinity;
    for (const entity of this.entities.values()) {
      if (entity.self || !filter(entity)) continue;
      const p = this.positionAt(entity, serverTime);
      const d = Math.hypot(p.x - from.x, p.y - from.y);
      if (d < bestDistance) {
        best = entity;
        bestDistance = d;
      }
    }
    return best;
  }

  private settle(entity: ViewEntity, serverTime: number): void {
    const path = entity.path;
    if (!path || serverTime < path.startTime) return;
    const p = this.positionAt(entity, serverTime);
    entity.x = p.x;
    entity.y = p.y;
    entity.facing = p.facing;
    entity.updatedAt = serverTime;
    const end = entity.motion[entity.motion.length - 1];
    if (!end || (!end.moving && serverTime >= end.t)) entity.path = undefined;
  }

  private emit(change: WorldChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

function standing(x: number, y: number, facing: number, t: number): MotionState {
  return { x, y, t, moving: false, angle: facing, speed: 0 };
}

/** Where motion states put an entity at a time (shared/game/interpolation.ts). */
export { sampleMotion };

/**
 * Adds the newest state. A state at or before the newest one's time replaces what the history
 * had from then on (records of one update share its time); a snap starts the history over.
 */
function pushState(motion: MotionState[], state: MotionState, snap: boolean): void {
  if (snap) motion.length = 0;
  while (motion.length > 0 && motion[motion.length - 1]!.t >= state.t) motion.pop();
  motion.push(state);
  trimHistory(motion);
}

/**
 * A player's state is dated when its input took effect (its client's time, shifted by a
 * steady offset), but a client sends its state only so often (a heartbeat while walking, at
 * once on a start, stop or turn), and a mob's stop is dated by the tick: a start or a turn may have happened somewhat before its state's time.
 * Between the two newest states `a` and `b` the walker went at a's heading and speed, then
 * at b's: the time it changed course is where those two legs meet `b` (least squares over
 * both axes). A state there keeps the speed steady on each leg, so a stop is walked up to
 * at full speed and held (not crept up to), and a start leaves the spot when it did (not
 * when the previous state was made). Nothing is added when the two legs are one (a
 * heartbeat) or do not meet inside the gap.
 */
function insertCorner(motion: MotionState[]): void {
  const b = motion[motion.length - 1];
  const a = motion[motion.length - 2];
  if (!a || !b) return;
  const u = cornerAfter(a, b);
  if (u === undefined || !(u > CORNER_MIN_MS && u < b.t - a.t - CORNER_MIN_MS)) return;
  const corner: MotionState = {
    x: a.x + (a.moving ? Math.cos(a.angle) * a.speed * u : 0) / 1000,
    y: a.y + (a.moving ? Math.sin(a.angle) * a.speed * u : 0) / 1000,
    t: a.t + u,
    moving: b.moving,
    angle: b.moving ? b.angle : a.angle,
    speed: b.speed,
  };
  motion.splice(motion.length - 1, 0, corner);
  trimHistory(motion);
}

/**
 * Two states closer in time than the walk between them allows: the server dates a player's
 * states on its client's clock through an offset it learns from the least delayed input, so
 * while that offset settles (a less delayed input moves it back) one state can sit too
 * early or too late against the next. Interpolating between the two would move the entity
 * many times faster than it walks, so the earlier one is forgotten (and the state before
 * it, while the way to the new state is still too fast): a renderer then glides from what
 * it drew onto the newer course.
 */
function dropImplausible(motion: MotionState[], speed: number): void {
  const limit = (Math.max(speed, 1) * IMPLAUSIBLE_FACTOR) / 1000;
  while (motion.length >= 2) {
    const b = motion[motion.length - 1]!;
    const a = motion[motion.length - 2]!;
    const dt = b.t - a.t;
    const d = Math.hypot(b.x - a.x, b.y - a.y);
    if (d <= IMPLAUSIBLE_SLACK_UNITS || d <= limit * dt) return;
    motion.splice(motion.length - 2, 1);
  }
}

/** Faster than this many times its speed between two states, the earlier one was a guess. */
const IMPLAUSIBLE_FACTOR = 1.5;
/** Differences this small (quantization, a tick's wait) are never guesses. */
const IMPLAUSIBLE_SLACK_UNITS = 4;

/** A corner closer than this to either state adds nothing worth a state. */
const CORNER_MIN_MS = 1;

function trimHistory(motion: MotionState[]): void {
  if (motion.length > MOTION_HISTORY) motion.splice(0, motion.length - MOTION_HISTORY);
}
