/**
 * What the client knows of the world near its character: every entity the server has
 * spawned in view, kept up to date from the server's packets, plus the client's own entity.
 * Pure bookkeeping: no sockets, no clock; every call that depends on time takes the server
 * time as an argument. Each change is reported to `onChange` listeners as data.
 *
 * Ids: players count up from 1, mobs from MOB_ID_BASE (2^20); `kind` says which.
 */
import { positionAlongPath, type Vec2 } from '../game/movement.js';
import { MOB_ID_BASE, type EntityKind } from '../protocol/common.js';
import type { PayloadOf } from '../protocol/define.js';
import type {
  Death,
  EntityDespawn,
  EntitySpawn,
  HealthUpdate,
  PlayerStats,
  Respawn,
} from '../protocol/entity.js';
import type { EnterWorld, ZoneInfo } from '../protocol/character.js';
import type { EntityMove, MobPath, MoveAck, PositionCorrection } from '../protocol/movement.js';

export type SpawnPayload = PayloadOf<typeof EntitySpawn>;
export type DespawnPayload = PayloadOf<typeof EntityDespawn>;
export type MovePayload = PayloadOf<typeof EntityMove>;
export type MobPathPayload = PayloadOf<typeof MobPath>;
export type HealthPayload = PayloadOf<typeof HealthUpdate>;
export type DeathPayload = PayloadOf<typeof Death>;
export type RespawnPayload = PayloadOf<typeof Respawn>;
export type PlayerStatsPayload = PayloadOf<typeof PlayerStats>;
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
  /** Last known position, as of `updatedAt` (use positionAt for walking mobs). */
  x: number;
  y: number;
  /** Radians in [0, 2π). */
  facing: number;
  speed: number;
  appearance: number;
  /** Server time of the last position update. */
  updatedAt: number;
  path: PathState | undefined;
  /** The client's own character. */
  readonly self: boolean;
}

export interface SelfStats {
  mana: number;
  maxMana: number;
  level: number;
  kills: number;
}

export type WorldChange =
  | { readonly type: 'enter'; readonly entity: ViewEntity }
  | { readonly type: 'spawn'; readonly entity: ViewEntity }
  | { readonly type: 'despawn'; readonly entity: ViewEntity; readonly reason: DespawnPayload['reason'] }
  | { readonly type: 'move'; readonly entity: ViewEntity }
  | { readonly type: 'path'; readonly entity: ViewEntity }
  | { readonly type: 'health'; readonly entity: ViewEntity }
  | { readonly type: 'death'; readonly entity: ViewEntity; readonly killerId: number }
  | { readonly type: 'respawn'; readonly entity: ViewEntity }
  | { readonly type: 'stats'; readonly stats: SelfStats }
  /** The server accepted the client's moves up to seq. */
  | { readonly type: 'ack'; readonly seq: number }
  /** The server refused a move: the self entity was snapped to the payload's position. */
  | { readonly type: 'correction'; readonly correction: CorrectionPayload }
  | { readonly type: 'reset' };

export type WorldChangeListener = (change: WorldChange) => void;

export function isMobId(id: number): boolean {
  return id >= MOB_ID_BASE;
}

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
      appearance: 0,
      updatedAt: enter.serverTime,
      path: undefined,
      self: true,
    };
    this.selfId = entity.id;
    this.entities.set(entity.id, entity);
    this.stats = {
      mana: enter.mana,
      maxMana: enter.maxMana,
      level: enter.level,
      kills: this.stats?.kills ?? 0,
    };
    this.emit({ type: 'enter', entity });
    return entity;
  }

  spawn(p: SpawnPayload, at: number): ViewEntity {
    const self = p.id === this.selfId;
    const old = this.entities.get(p.id);
    const entity: ViewEntity = {
      id: p.id,
      kind: p.kind,
      template: p.template,
      name: p.name,
      level: p.level,
      health: p.health,
      maxHealth: p.maxHealth,
      alive: p.alive,
      // The client moves its own entity; a spawn of it must not undo its prediction.
      x: self && old ? old.x : p.x,
      y: self && old ? old.y : p.y,
      facing: self && old ? old.facing : p.facing,
      speed: p.speed,
      appearance: p.appearance,
      updatedAt: at,
      path: undefined,
      self,
    };
    this.entities.set(p.id, entity);
    this.emit({ type: 'spawn', entity });
    return entity;
  }

  despawn(p: DespawnPayload): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity || entity.self) return undefined;
    this.entities.delete(p.id);
    this.emit({ type: 'despawn', entity, reason: p.reason });
    return entity;
  }

  move(p: MovePayload, at: number): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    entity.x = p.x;
    entity.y = p.y;
    entity.facing = p.facing;
    entity.updatedAt = at;
    // A position from the server is newer than any path it sent before.
    entity.path = undefined;
    this.emit({ type: 'move', entity });
    return entity;
  }

  path(p: MobPathPayload): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    // The walk starts where the entity stands at startTime, which may be mid-way along an older path.
    const from = this.positionAt(entity, p.startTime);
    entity.x = from.x;
    entity.y = from.y;
    entity.updatedAt = p.startTime;
    entity.speed = p.speed;
    entity.path = {
      from: { x: from.x, y: from.y },
      waypoints: p.waypoints.map((w) => ({ x: w.x, y: w.y })),
      speed: p.speed,
      startTime: p.startTime,
    };
    this.emit({ type: 'path', entity });
    return entity;
  }

  health(p: HealthPayload): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    entity.health = p.health;
    entity.maxHealth = p.maxHealth;
    this.emit({ type: 'health', entity });
    return entity;
  }

  death(p: DeathPayload, at: number): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    this.settle(entity, at);
    entity.alive = false;
    entity.health = 0;
    this.emit({ type: 'death', entity, killerId: p.killerId });
    return entity;
  }

  respawn(p: RespawnPayload, at: number): ViewEntity | undefined {
    const entity = this.entities.get(p.id);
    if (!entity) return undefined;
    entity.alive = true;
    entity.x = p.x;
    entity.y = p.y;
    entity.health = p.health;
    entity.maxHealth = p.maxHealth;
    entity.updatedAt = at;
    entity.path = undefined;
    this.emit({ type: 'respawn', entity });
    return entity;
  }

  playerStats(p: PlayerStatsPayload): SelfStats {
    const stats = { mana: p.mana, maxMana: p.maxMana, level: p.level, kills: p.kills };
    this.stats = stats;
    const self = this.self;
    if (self) self.level = p.level;
    this.emit({ type: 'stats', stats });
    return stats;
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
      case 'EntitySpawn':
        this.spawn(payload as SpawnPayload, at);
        return true;
      case 'EntityDespawn':
        this.despawn(payload as DespawnPayload);
        return true;
      case 'EntityMove':
        this.move(payload as MovePayload, at);
        return true;
      case 'MobPath':
        this.path(payload as MobPathPayload);
        return true;
      case 'HealthUpdate':
        this.health(payload as HealthPayload);
        return true;
      case 'Death':
        this.death(payload as DeathPayload, at);
        return true;
      case 'Respawn':
        this.respawn(payload as RespawnPayload, at);
        return true;
      case 'PlayerStats':
        this.playerStats(payload as PlayerStatsPayload);
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

  /** Where an entity is at a server time, following its path if it walks one. */
  positionAt(entity: ViewEntity, serverTime: number): { x: number; y: number; facing: number } {
    const path = entity.path;
    if (!path) return { x: entity.x, y: entity.y, facing: entity.facing };
    const p = positionAlongPath(path.from, path.waypoints, path.speed, serverTime - path.startTime);
    // An empty path (no segment walked) keeps the facing the entity had.
    return { x: p.x, y: p.y, facing: path.waypoints.length > 0 ? p.facing : entity.facing };
  }

  /** Moves walking entities to where they are at `serverTime`; a finished path is dropped. */
  advance(serverTime: number): void {
    for (const entity of this.entities.values()) if (entity.path) this.settle(entity, serverTime);
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
    const p = positionAlongPath(path.from, path.waypoints, path.speed, serverTime - path.startTime);
    entity.x = p.x;
    entity.y = p.y;
    if (path.waypoints.length > 0) entity.facing = p.facing;
    entity.updatedAt = serverTime;
    if (p.arrived) {
      entity.path = undefined;
    } else {
      // Re-anchor the rest of the walk here so the path stays a pure function of time.
      const walked = path.speed * ((serverTime - path.startTime) / 1000);
      entity.path = { ...path, ...restOfPath(path, walked, p), startTime: serverTime };
    }
  }

  private emit(change: WorldChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/** The waypoints still ahead after walking `walked` units, starting from the current point. */
function restOfPath(path: PathState, walked: number, at: Vec2): { from: Vec2; waypoints: Vec2[] } {
  let remaining = walked;
  let prev = path.from;
  let i = 0;
  for (; i < path.waypoints.length; i++) {
    const w = path.waypoints[i]!;
    const segment = Math.hypot(w.x - prev.x, w.y - prev.y);
    if (remaining < segment) break;
    remaining -= segment;
    prev = w;
  }
  return { from: { x: at.x, y: at.y }, waypoints: path.waypoints.slice(i).map((w) => ({ x: w.x, y: w.y })) };
}
