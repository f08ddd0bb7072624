/**
 * Everything the page knows about the world, as plain data, updated by server packets:
 * the zone, the own character (predicted), remote entities (interpolated), cast bars,
 * projectiles, floating combat texts, chat, spells and cooldowns, the selected target.
 * The renderer and the HUD only read it. `localNow` is the page clock (performance.now()).
 */
import { INTERPOLATION_DELAY_MS } from '../../../shared/game/interpolation.js';
import type { Rect } from '../../../shared/game/movement.js';
import type { PayloadOf } from '../../../shared/protocol/define.js';
import type { AnyServerPacket, ServerPacketName } from '../../../shared/protocol/registry.js';
import type { EnterWorld } from '../../../shared/protocol/character.js';
import type { EntityRecord, MoveRecord, PathRecord, SpawnRecord } from '../../../shared/protocol/records.js';
import type { SpellBook } from '../../../shared/protocol/spell.js';
import { EntityTrack, SnapshotClock } from './interpolation-buffer.js';
import { Predictor } from './prediction.js';

/** A decoded server packet: its name and payload, discriminated by name. */
export type Incoming = {
  [P in AnyServerPacket as P['name']]: { name: P['name']; value: PayloadOf<P> };
}[ServerPacketName];

export type SpellInfo = PayloadOf<typeof SpellBook>['spells'][number];

export interface Zone {
  name: string;
  width: number;
  height: number;
  obstacles: Rect[];
  cellSize: number;
}

export interface EntityState {
  id: number;
  kind: 'player' | 'mob';
  template: number;
  name: string;
  level: number;
  health: number;
  maxHealth: number;
  alive: boolean;
  appearance: number;
  speed: number;
  track: EntityTrack;
  /** Page time of death, for the corpse fade. */
  diedAt: number | undefined;
}

export interface SelfState {
  id: number;
  name: string;
  level: number;
  mana: number;
  maxMana: number;
  kills: number;
  interestRadius: number;
  predictor: Predictor;
}

export interface CastBar {
  casterId: number;
  spellId: number;
  targetId: number;
  startedAt: number;
  castTime: number;
}

export interface Projectile {
  casterId: number;
  targetId: number;
  spellId: number;
  colour: number;
  startedAt: number;
  travelTime: number;
}

export interface CombatText {
  targetId: number;
  amount: number;
  kind: 'damage' | 'heal';
  crit: boolean;
  at: number;
}

export interface ChatLine {
  channel: 'say' | 'zone' | 'whisper' | 'system';
  from: string;
  to: string;
  text: string;
  at: number;
}

export const COMBAT_TEXT_MS = 1500;
const CHAT_KEEP = 100;

export interface NetToggles {
  interpolation: boolean;
  prediction: boolean;
}

export class ClientWorld {
  zone: Zone | undefined;
  self: SelfState | undefined;
  readonly entities = new Map<number, EntityState>();
  readonly casts = new Map<number, CastBar>();
  projectiles: Projectile[] = [];
  combatTexts: CombatText[] = [];
  readonly chat: ChatLine[] = [];
  spells: SpellInfo[] = [];
  /** Page time each spell is ready again. */
  readonly cooldowns = new Map<number, number>();
  targetId: number | undefined;
  serverTick = 0;
  readonly clock = new SnapshotClock(INTERPOLATION_DELAY_MS);
  readonly toggles: NetToggles = { interpolation: true, prediction: true };
  /** Messages for a person (spell failures, logout), newest last. */
  readonly notices: { text: string; at: number }[] = [];
  logoutAt: number | undefined;
  private batchTime: number | undefined;
  private batchLocal = 0;

  /** Applies one server packet. */
  apply(p: Incoming, localNow: number): void {
    switch (p.name) {
      case 'ZoneInfo':
        this.zone = {
          name: p.value.zone,
          width: p.value.width,
          height: p.value.height,
          obstacles: p.value.obstacles.map((o) => ({ ...o })),
          cellSize: p.value.cellSize,
        };
        this.self?.predictor.setWorld(this.predictionWorld());
        break;
      case 'SpellBook':
        this.spells = p.value.spells.map((s) => ({ ...s }));
        break;
      case 'EnterWorld':
        this.enter(p.value, localNow);
        break;
      case 'WorldUpdate':
        this.serverTick = p.value.tick;
        this.batchTime = p.value.time;
        this.batchLocal = localNow;
        this.clock.observe(p.value.time, localNow);
        this.applyRecords(p.value.records, p.value.time, localNow);
        break;
      case 'MoveAck':
        this.self?.predictor.ack(p.value.seq);
        break;
      case 'PositionCorrection': {
        const pr = this.self?.predictor;
        if (!pr) break;
        pr.correct(p.value);
        this.selfEntity()?.track.reset(this.packetTime(localNow), pr.x, pr.y, pr.facing);
        break;
      }
      case 'PlayerStats':
        if (this.self) {
          this.self.mana = p.value.mana;
          this.self.maxMana = p.value.maxMana;
          this.self.level = p.value.level;
          this.self.kills = p.value.kills;
          const e = this.selfEntity();
          if (e) e.level = p.value.level;
        }
        break;
      case 'SpellStart':
        this.casts.set(p.value.casterId, {
          casterId: p.value.casterId,
          spellId: p.value.spellId,
          targetId: p.value.targetId,
          startedAt: localNow,
          castTime: p.value.castTime,
        });
        break;
      case 'SpellGo':
        this.casts.delete(p.value.casterId);
        this.projectiles.push({
          casterId: p.value.casterId,
          targetId: p.value.targetId,
          spellId: p.value.spellId,
          colour: this.spellColour(p.value.spellId),
          startedAt: localNow,
          travelTime: p.value.travelTime,
        });
        break;
      case 'SpellFailed':
        this.casts.delete(p.value.casterId);
        if (this.self && p.value.casterId === this.self.id) {
          this.notice(spellFailText(p.value.reason), localNow);
        }
        break;
      case 'CombatEvent':
        this.combatTexts.push({
          targetId: p.value.targetId,
          amount: p.value.amount,
          kind: p.value.kind,
          crit: p.value.crit,
          at: localNow,
        });
        break;
      case 'Cooldown':
        this.cooldowns.set(p.value.spellId, localNow + p.value.remaining);
        break;
      case 'ChatMessage':
        this.chat.push({ ...p.value, at: localNow });
        if (this.chat.length > CHAT_KEEP) this.chat.splice(0, this.chat.length - CHAT_KEEP);
        break;
      case 'LogoutStarted':
        this.logoutAt = localNow + p.value.delay;
        this.notice(`Logging out in ${Math.ceil(p.value.delay / 1000)} s (move to cancel).`, localNow);
        break;
      case 'LogoutCancelled':
        this.logoutAt = undefined;
        this.notice('Logout cancelled.', localNow);
        break;
      case 'LogoutComplete':
        this.leave();
        break;
      default:
        break;
    }
  }

  /** One WorldUpdate's entity records, which happened at server time `t`. */
  private applyRecords(records: readonly EntityRecord[], t: number, localNow: number): void {
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      switch (r.kind) {
        case 'spawn': {
          // A spawn's position is the move or path record after it.
          const next = records[i + 1];
          const motion =
            next && next.id === r.id && (next.kind === 'move' || next.kind === 'path') ? next : undefined;
          if (motion) i++;
          this.spawn(r, motion, t, localNow);
          break;
        }
        case 'move': {
          const e = this.entities.get(r.id);
          // The own character is predicted; its corrections come as PositionCorrection.
          if (!e || e.id === this.self?.id) break;
          e.track.pushState(t, r.x, r.y, r.angle, r.moving, r.moving ? (r.speed ?? e.speed) : 0, r.jump);
          break;
        }
        case 'path': {
          const e = this.entities.get(r.id);
          if (e) e.track.pushPath(t, r.speed, r.waypoints, r);
          break;
        }
        case 'despawn':
          if (r.id === this.self?.id) break;
          this.entities.delete(r.id);
          this.casts.delete(r.id);
          if (this.targetId === r.id) this.targetId = undefined;
          break;
        case 'health': {
          const e = this.entities.get(r.id);
          if (e) {
            e.health = r.health;
            e.maxHealth = r.maxHealth;
          }
          break;
        }
        case 'death': {
          const e = this.entities.get(r.id);
          if (e) {
            e.alive = false;
            e.health = 0;
            e.diedAt = localNow;
          }
          this.casts.delete(r.id);
          break;
        }
        case 'respawn': {
          const e = this.entities.get(r.id);
          if (e) {
            e.alive = true;
            e.diedAt = undefined;
            e.health = r.health;
            e.maxHealth = r.maxHealth;
            e.track.reset(t, r.x, r.y, 0);
          }
          if (this.self && r.id === this.self.id) this.self.predictor.teleport(r.x, r.y);
          break;
        }
      }
    }
  }

  /** Drops finished projectiles, old combat texts and stale snapshots. */
  prune(localNow: number): void {
    this.projectiles = this.projectiles.filter((p) => localNow - p.startedAt < p.travelTime + 50);
    this.combatTexts = this.combatTexts.filter((c) => localNow - c.at < COMBAT_TEXT_MS);
    for (const [id, c] of this.casts) if (localNow - c.startedAt > c.castTime + 500) this.casts.delete(id);
    const t = this.clock.renderTime(localNow);
    for (const e of this.entities.values()) e.track.trim(t);
    if (this.notices.length > 0 && localNow - (this.notices[0] as { at: number }).at > 5000)
      this.notices.shift();
  }

  /** Where an entity is drawn now: predicted for the own character, interpolated for others. */
  drawnPosition(e: EntityState, localNow: number): { x: number; y: number; facing: number } {
    if (this.self && e.id === this.self.id) {
      const pr = this.self.predictor;
      return this.toggles.prediction
        ? { x: pr.x, y: pr.y, facing: pr.facing }
        : { x: pr.confirmed.x, y: pr.confirmed.y, facing: pr.facing };
    }
    if (!this.toggles.interpolation) return e.track.serverPosition(this.clock.serverNow(localNow));
    return e.track.sample(this.clock.renderTime(localNow));
  }

  /** The newest position the server sent for an entity (the ghost). */
  serverPosition(e: EntityState, localNow: number): { x: number; y: number } {
    return e.track.serverPosition(this.clock.serverNow(localNow));
  }

  selfEntity(): EntityState | undefined {
    return this.self ? this.entities.get(this.self.id) : undefined;
  }

  /** Next living entity (not self) after the current target, nearest first. */
  cycleTarget(localNow: number): number | undefined {
    const me = this.selfEntity();
    if (!me) return undefined;
    const at = this.drawnPosition(me, localNow);
    const others = [...this.entities.values()]
      .filter((e) => e.id !== me.id && e.alive)
      .map((e) => {
        const p = this.drawnPosition(e, localNow);
        return { id: e.id, d: Math.hypot(p.x - at.x, p.y - at.y) };
      })
      .sort((a, b) => a.d - b.d || a.id - b.id);
    if (others.length === 0) {
      this.targetId = undefined;
      return undefined;
    }
    const i = others.findIndex((o) => o.id === this.targetId);
    this.targetId = (others[(i + 1) % others.length] as { id: number }).id;
    return this.targetId;
  }

  /** The entity nearest to a world point within `radius`, for click selection. */
  entityAt(x: number, y: number, radius: number, localNow: number): number | undefined {
    let best: { id: number; d: number } | undefined;
    for (const e of this.entities.values()) {
      const p = this.drawnPosition(e, localNow);
      const d = Math.hypot(p.x - x, p.y - y);
      if (d <= radius && (!best || d < best.d)) best = { id: e.id, d };
    }
    return best?.id;
  }

  spell(id: number): SpellInfo | undefined {
    return this.spells.find((s) => s.id === id);
  }

  cooldownLeft(spellId: number, localNow: number): number {
    return Math.max(0, (this.cooldowns.get(spellId) ?? 0) - localNow);
  }

  notice(text: string, localNow: number): void {
    this.notices.push({ text, at: localNow });
    if (this.notices.length > 5) this.notices.shift();
  }

  /** Back to the character screen: forget the world. */
  leave(): void {
    this.zone = undefined;
    this.self = undefined;
    this.entities.clear();
    this.casts.clear();
    this.projectiles = [];
    this.combatTexts = [];
    this.cooldowns.clear();
    this.targetId = undefined;
    this.logoutAt = undefined;
    this.notices.length = 0;
  }

  private enter(v: PayloadOf<typeof EnterWorld>, localNow: number): void {
    // Entities spawned before this packet was applied stay: only leave() forgets the world.
    this.clock.observe(v.serverTime, localNow);
    this.serverTick = v.tick;
    const predictor = new Predictor(this.predictionWorld(), v.x, v.y, v.facing, v.speed);
    this.self = {
      id: v.entityId,
      name: v.name,
      level: v.level,
      mana: v.mana,
      maxMana: v.maxMana,
      kills: 0,
      interestRadius: v.interestRadius,
      predictor,
    };
    this.entities.set(v.entityId, {
      id: v.entityId,
      kind: 'player',
      template: 0,
      name: v.name,
      level: v.level,
      health: v.health,
      maxHealth: v.maxHealth,
      alive: v.health > 0,
      appearance: 0,
      speed: v.speed,
      track: new EntityTrack(v.x, v.y, v.facing, v.serverTime),
      diedAt: undefined,
    });
  }

  private spawn(
    v: SpawnRecord,
    motion: MoveRecord | PathRecord | undefined,
    t: number,
    localNow: number,
  ): void {
    // The own character is never spawned: it entered with EnterWorld and is predicted.
    if (this.self?.id === v.id) return;
    const x = motion?.x ?? 0;
    const y = motion?.y ?? 0;
    const facing = motion?.kind === 'move' ? motion.angle : 0;
    const e: EntityState = {
      id: v.id,
      kind: v.entity,
      template: v.template,
      name: v.name,
      level: v.level,
      health: v.health,
      maxHealth: v.maxHealth,
      alive: v.alive,
      appearance: v.appearance,
      speed: v.speed,
      track: new EntityTrack(x, y, facing, t),
      diedAt: v.alive ? undefined : localNow,
    };
    this.entities.set(v.id, e);
    if (motion?.kind === 'move') {
      e.track.pushState(t, x, y, facing, motion.moving, motion.moving ? (motion.speed ?? v.speed) : 0, true);
    } else if (motion?.kind === 'path') e.track.pushPath(t, motion.speed, motion.waypoints, motion);
  }

  /** The server time the packet being applied describes: its batch's tick time. */
  private packetTime(localNow: number): number {
    const estimate = this.clock.serverNow(localNow);
    // A batch split across reads may come without its WorldUpdate: the clock's estimate stands in.
    if (this.batchTime === undefined || localNow - this.batchLocal > 200) return estimate;
    return this.batchTime;
  }

  private predictionWorld(): { zone: { width: number; height: number }; obstacles: Rect[] } {
    return {
      zone: { width: this.zone?.width ?? 4096, height: this.zone?.height ?? 4096 },
      obstacles: this.zone?.obstacles ?? [],
    };
  }

  private spellColour(id: number): number {
    return this.spell(id)?.colour ?? 0xffd27f;
  }
}

export function spellFailText(reason: string): string {
  switch (reason) {
    case 'cooldown':
      return 'That spell is not ready yet.';
    case 'noMana':
      return 'Not enough mana.';
    case 'outOfRange':
      return 'Your target is too far away.';
    case 'badTarget':
      return 'You cannot cast that on this target.';
    case 'dead':
      return 'You cannot do that while dead (or at a dead target).';
    case 'busy':
      return 'You are already casting.';
    case 'unknownSpell':
      return 'You do not know that spell.';
    case 'interrupted':
      return 'Your cast was interrupted.';
    case 'cancelled':
      return 'Cast cancelled.';
    default:
      return `The spell failed (${reason}).`;
  }
}
