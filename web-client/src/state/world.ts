/**
 * Everything the page knows about the world, as plain data. Entities live in the client SDK's
 * WorldView (`view`): the WyvernClient the page talks through applies each WorldUpdate's
 * records to it before the page sees the packet, and the page draws from it. What is the
 * page's own: the zone as drawn, the own character's prediction, a visual track per entity
 * (blending small corrections, the corpse fade), cast bars, projectiles, floating combat
 * texts, chat, spells and cooldowns, the selected target, notices.
 *
 * Remote entities are drawn at the render clock's time (the newest server time seen, less an
 * interpolation delay that follows the arrival jitter, held when the link stalls) through
 * WorldView.positionAt, so a stop is never overshot; the own
 * character is drawn where the predictor has it. The renderer and the HUD only read this.
 * `localNow` is the page clock (performance.now()).
 */
import {
  WorldView,
  type SelfStats,
  type ViewEntity,
  type WorldChange,
} from '../../../shared/client/world-view.js';
import type { Placement } from '../../../shared/game/interpolation.js';
import { walkGround } from '../../../shared/game/ground.js';
import type { Rect, ZoneBounds } from '../../../shared/game/movement.js';
import { sightFirst } from '../../../shared/game/sight.js';
import type { PayloadOf } from '../../../shared/protocol/define.js';
import type { AnyServerPacket, ServerPacketName } from '../../../shared/protocol/registry.js';
import type { EnterWorld } from '../../../shared/protocol/character.js';
import type { SpellBook } from '../../../shared/protocol/spell.js';
import type { MoveState } from '../../../shared/client/move-sender.js';
import { ChatLog, type ChatLine } from './chat-log.js';
import { Notices, type Notice } from './notices.js';
import { Predictor } from './prediction.js';
import { RenderClock } from './render-clock.js';
import { REMOTE_BLEND_MAX_UNITS, VisualTrack } from './visual-track.js';

/** A decoded server packet: its name and payload, discriminated by name. */
export type Incoming = {
  [P in AnyServerPacket as P['name']]: { name: P['name']; value: PayloadOf<P> };
}[ServerPacketName];

export type { ChatLine } from './chat-log.js';

export type SpellInfo = PayloadOf<typeof SpellBook>['spells'][number];

export interface RangeRing {
  radius: number;
  colour: number;
  name: string;
  /** Whether the target is within it; undefined without one. */
  inRange: boolean | undefined;
}

/** A zone's rectangle in the world plane (zones lie side by side; positions never translate). */
export interface ZoneArea {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Zone extends ZoneArea {
  /** Its walls, and its neighbours' walls near the border. */
  obstacles: Rect[];
  /** The zones beside it: ground a player near the border sees. */
  neighbours: ZoneArea[];
  cellSize: number;
  /** How long the dead lie before standing up at the graveyard (ms). */
  respawnDelay: number;
}

/** An entity as the page draws it: the SDK's view of it. */
export type EntityState = ViewEntity;

export interface SelfState {
  id: number;
  name: string;
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
  /** 'experience': earned for a kill, shown over the own character. */
  kind: 'damage' | 'heal' | 'experience';
  crit: boolean;
  at: number;
}

/** An entity in view reached a level (LevelUp): drawn as a burst around it for LEVEL_UP_MS. */
export interface LevelUpEffect {
  entityId: number;
  level: number;
  /** Page time. */
  at: number;
}

export const LEVEL_UP_MS = 2500;

export interface Correction {
  /** Where the server put the own character. */
  x: number;
  y: number;
  /** Where it was drawn before. */
  fromX: number;
  fromY: number;
  /** How far the replay moved it. */
  distance: number;
  /** Why the server refused the move (speed, bounds, obstacle, dead). */
  reason: string;
  /** Page time. */
  at: number;
}

export const COMBAT_TEXT_MS = 1500;
const CORRECTIONS_KEPT = 32;

export interface NetToggles {
  interpolation: boolean;
  prediction: boolean;
}

export interface ClientWorldOptions {
  /** The entity store (default: a new one); the page gives the same view to each WyvernClient. */
  view?: WorldView;
  /** The page clock, for what happens as the view changes (default performance.now()). */
  now?: () => number;
  /** The wall clock, for chat timestamps (default Date.now()). */
  wallClock?: () => number;
}

/** Motion states older than this behind the drawn time are forgotten. */
const KEEP_BEHIND_MS = 1000;

export class ClientWorld {
  readonly view: WorldView;
  zone: Zone | undefined;
  self: SelfState | undefined;
  /** How each entity in the view is drawn, by id. */
  readonly tracks = new Map<number, VisualTrack>();
  readonly casts = new Map<number, CastBar>();
  projectiles: Projectile[] = [];
  combatTexts: CombatText[] = [];
  levelUps: LevelUpEffect[] = [];
  /** Called with each level-up shown (the own or another's), for what else marks it (a sound). */
  onLevelUp: ((e: LevelUpEffect, self: boolean) => void) | undefined;
  /** The chat's newest lines and who whispered last. */
  readonly chatLog = new ChatLog();
  spells: SpellInfo[] = [];
  /** Page time each spell is ready again. */
  readonly cooldowns = new Map<number, number>();
  targetId: number | undefined;
  /** The action slot whose range the page rings round the own character: the last one used. */
  selectedSlot = 0;
  /** A slot the pointer rests on: its range is shown instead while it does. */
  previewSlot: number | undefined;
  /** The own character's appearance, from the character list (EnterWorld carries none). */
  selfAppearance: number | undefined;
  serverTick = 0;
  /** Remote entities are drawn by it: its delay adapts to the arrival jitter. */
  readonly clock = new RenderClock();
  readonly toggles: NetToggles = { interpolation: true, prediction: true };
  /** The own character's newest corrections: where it was, where the server put it. */
  readonly corrections: Correction[] = [];
  /** Messages for a person (spell failures, logout), repeats merged. */
  private readonly noticeLines = new Notices();
  logoutAt: number | undefined;
  readonly now: () => number;
  private readonly wallClock: () => number;

  constructor(options: ClientWorldOptions = {}) {
    this.view = options.view ?? new WorldView();
    this.now = options.now ?? (() => performance.now());
    this.wallClock = options.wallClock ?? (() => Date.now());
    this.view.onChange((change) => this.viewChanged(change));
  }

  /** Every entity in view, the own character included. */
  get entities(): ReadonlyMap<number, EntityState> {
    return this.view.entities;
  }

  /** The chat's lines, oldest first. */
  get chat(): readonly ChatLine[] {
    return this.chatLog.lines;
  }

  /** The own mana, level and kills (PlayerStats, EnterWorld). */
  get stats(): SelfStats | undefined {
    return this.view.stats;
  }

  /**
   * Applies one server packet's page-side effects; the SDK has already applied it to `view`
   * (entities, own stats, acks). Called for every packet the page's WyvernClient decodes.
   */
  apply(p: Incoming, localNow: number): void {
    switch (p.name) {
      case 'ZoneInfo':
        this.zone = {
          name: p.value.zone,
          x: p.value.x,
          y: p.value.y,
          width: p.value.width,
          height: p.value.height,
          obstacles: p.value.obstacles.map((o) => ({ ...o })),
          neighbours: p.value.neighbours.map((n) => ({ ...n, name: n.zone })),
          cellSize: p.value.cellSize,
          respawnDelay: p.value.respawnDelay,
        };
        this.self?.predictor.setWorld(this.predictionWorld());
        break;
      case 'SpellBook':
        this.spells = p.value.spells.map((s) => ({ ...s }));
        break;
      case 'EnterWorld':
        this.enter(p.value, localNow);
        break;
      case 'ZoneChanged':
        // Walked into the zone beside: the view and the prediction carry on (ZoneInfo came first).
        this.serverTick = p.value.tick;
        break;
      case 'WorldUpdate':
        this.serverTick = p.value.tick;
        this.clock.observe(p.value.time, localNow);
        break;
      case 'Pong':
        this.clock.observePong(p.value.serverTime, localNow);
        break;
      case 'MoveAck':
        this.self?.predictor.ack(p.value.seq);
        break;
      case 'PositionCorrection': {
        const self = this.self;
        if (!self) break;
        const before = { x: self.predictor.x, y: self.predictor.y };
        self.predictor.correct(p.value);
        const jump =
          p.value.reason === 'dead' || p.value.reason === 'respawn' || p.value.reason === 'teleport';
        this.corrections.push({
          x: p.value.x,
          y: p.value.y,
          fromX: before.x,
          fromY: before.y,
          distance: self.predictor.lastCorrectionDistance,
          reason: p.value.reason,
          at: localNow,
        });
        if (this.corrections.length > CORRECTIONS_KEPT) this.corrections.shift();
        // A small correction glides onto the replayed position; a large one snaps, and so
        // does a jump the server made (the character is there once the event is shown).
        const pr = self.predictor;
        this.tracks.get(self.id)?.retarget({ x: pr.x, y: pr.y }, localNow, jump);
        break;
      }
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
      case 'ExperienceGain':
        if (this.self)
          this.combatTexts.push({
            targetId: this.self.id,
            amount: p.value.amount,
            kind: 'experience',
            crit: false,
            at: localNow,
          });
        break;
      case 'ChatMessage':
        this.chatLog.add({ ...p.value, at: localNow, time: this.wallClock() }, this.self?.id);
        break;
      case 'LogoutStarted':
        this.logoutAt = localNow + p.value.delay;
        this.notice(
          `Logging out in ${Math.ceil(p.value.delay / 1000)} s (moving or fighting cancels it).`,
          localNow,
        );
        break;
      case 'LogoutCancelled':
        this.logoutAt = undefined;
        this.notice('Logout cancelled (you moved or are in a fight).', localNow);
        break;
      case 'LogoutComplete':
        this.leave();
        break;
      default:
        break;
    }
  }

  /**
   * One frame of the own character: the held keys (`dir`, undefined while they go to a text
   * field) move it, and its movement state goes out through `send` when due. The dead neither
   * walk nor send: the server said where the corpse lies, and a key held through the death
   * walks on from the graveyard once the respawn is shown.
   */
  frame(
    dir: { x: number; y: number } | undefined,
    dtMs: number,
    clientTime: number,
    send: (state: MoveState) => number,
  ): void {
    const pr = this.self?.predictor;
    if (!pr || !this.selfEntity()?.alive) return;
    if (dir) pr.step(dir.x, dir.y, dtMs);
    pr.takeInput(clientTime, send);
  }

  /** What the view's changes mean for the page: tracks, cast bars, the target, the predictor. */
  private viewChanged(c: WorldChange): void {
    switch (c.type) {
      case 'enter':
        // A new world: nothing drawn before belongs to it.
        this.tracks.clear();
        this.casts.clear();
        this.targetId = undefined;
        this.tracks.set(c.entity.id, new VisualTrack());
        return;
      case 'spawn': {
        const track = new VisualTrack();
        if (!c.entity.alive) track.diedAt = this.now();
        this.tracks.set(c.entity.id, track);
        return;
      }
      case 'despawn':
        this.tracks.delete(c.entity.id);
        this.casts.delete(c.entity.id);
        if (this.targetId === c.entity.id) this.targetId = undefined;
        return;
      case 'move':
      case 'path':
        this.retarget(c.entity, c.type === 'move' && c.jump);
        return;
      case 'death': {
        const track = this.tracks.get(c.entity.id);
        if (track) track.diedAt = this.now();
        this.casts.delete(c.entity.id);
        if (!c.entity.self) this.retarget(c.entity, false);
        return;
      }
      case 'respawn': {
        const track = this.tracks.get(c.entity.id);
        if (track) {
          track.diedAt = undefined;
          track.snap();
        }
        if (c.entity.self) this.self?.predictor.teleport(c.entity.x, c.entity.y);
        return;
      }
      case 'levelUp': {
        const effect = { entityId: c.entity.id, level: c.entity.level, at: this.now() };
        this.levelUps.push(effect);
        this.onLevelUp?.(effect, c.entity.self);
        return;
      }
      case 'reset':
        this.clearWorld();
        return;
      default:
        return;
    }
  }

  /** A remote entity's motion changed: glide from what was drawn onto where it now is. */
  private retarget(e: ViewEntity, jump: boolean): void {
    const track = this.tracks.get(e.id);
    if (!track) return;
    const t = track.drawnAt;
    // A player's JUMP within reach is the server catching up with a walker whose inputs came
    // late (it jumps when its own reckoning strayed), not a teleport: glided like any other.
    track.retarget(
      t === undefined ? undefined : this.view.positionAt(e, t),
      this.now(),
      jump && e.kind !== 'player',
      REMOTE_BLEND_MAX_UNITS,
    );
  }

  /** Per frame: drops finished projectiles, old combat texts and motion states no longer drawn. */
  prune(localNow: number): void {
    this.projectiles = this.projectiles.filter((p) => localNow - p.startedAt < p.travelTime + 50);
    this.combatTexts = this.combatTexts.filter((c) => localNow - c.at < COMBAT_TEXT_MS);
    if (this.levelUps.length > 0) this.levelUps = this.levelUps.filter((e) => localNow - e.at < LEVEL_UP_MS);
    for (const [id, c] of this.casts) if (localNow - c.startedAt > c.castTime + 500) this.casts.delete(id);
    // The drawn time is held at what was heard only while a remote player is in view.
    this.clock.bounded = this.remotePlayers;
    const t = this.clock.renderTime(localNow);
    this.view.advance(t, t - KEEP_BEHIND_MS);
    const pr = this.self?.predictor;
    // The view's own entity is where the prediction has it (nearest(), the HUD, tests).
    if (pr) this.view.setSelfPosition(pr.x, pr.y, pr.facing, this.clock.serverNow(localNow));
    this.noticeLines.prune(localNow);
  }

  /**
   * Where an entity is drawn now: the own character where the predictor has it (the newest
   * position the server agreed to with prediction off); others where the view has them at
   * the render time (at the server's now with interpolation off); plus what is left of a
   * correction's blend.
   */
  drawnPosition(e: EntityState, localNow: number): Placement {
    const track = this.tracks.get(e.id);
    if (this.self && e.id === this.self.id) {
      const pr = this.self.predictor;
      const base = this.toggles.prediction
        ? { x: pr.x, y: pr.y, facing: pr.facing }
        : { x: pr.confirmed.x, y: pr.confirmed.y, facing: pr.facing };
      return track ? track.place(base, localNow, localNow) : base;
    }
    const t = this.drawnTime(localNow);
    const base = this.view.positionAt(e, t);
    return track ? track.place(base, t, localNow) : base;
  }

  /** The server time remote entities are drawn at: the render time, or the server's now with interpolation off. */
  drawnTime(localNow: number): number {
    return this.toggles.interpolation ? this.clock.renderTime(localNow) : this.clock.serverNow(localNow);
  }

  /** Where the server has an entity now, as far as the newest state says (the ghost). */
  serverPosition(e: EntityState, localNow: number): Placement {
    return this.view.positionAt(e, this.clock.serverNow(localNow));
  }

  /**
   * Whether a remote player is in view: it may start, stop or turn at any tick, so the drawn
   * time is held at what was heard (the server sends such a client a WorldUpdate every tick).
   */
  get remotePlayers(): boolean {
    for (const e of this.entities.values()) if (!e.self && e.kind === 'player') return true;
    return false;
  }

  selfEntity(): EntityState | undefined {
    return this.self ? this.entities.get(this.self.id) : undefined;
  }

  /** Page time the entity died (for the corpse fade), undefined while it lives. */
  diedAt(id: number): number | undefined {
    return this.tracks.get(id)?.diedAt;
  }

  /**
   * While the own character lies dead: ms until the server stands it up at the graveyard
   * (0 once that is due and the word is on its way); undefined while it lives.
   */
  respawnIn(localNow: number): number | undefined {
    const me = this.selfEntity();
    if (!me || me.alive) return undefined;
    const died = this.diedAt(me.id) ?? localNow;
    return Math.max(0, died + (this.zone?.respawnDelay ?? 0) - localNow);
  }

  /**
   * Tab: the next living mob after the current target, those in sight first, nearest first, as
   * "target nearest enemy" goes in MMOs: a spell on a player beside you or on a mob behind a
   * wall is refused, so either first would make Tab then 1 fail. The other players only while
   * no mob is in view. A click targets anyone.
   */
  cycleTarget(localNow: number): number | undefined {
    const me = this.selfEntity();
    if (!me) return undefined;
    const at = this.drawnPosition(me, localNow);
    const living = [...this.entities.values()].filter((e) => e.id !== me.id && e.alive);
    const mobs = living.filter((e) => e.kind !== 'player');
    const candidates = (mobs.length > 0 ? mobs : living).map((e) => ({
      id: e.id,
      ...this.drawnPosition(e, localNow),
    }));
    const others = sightFirst(at, candidates, this.predictionWorld().obstacles);
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

  /**
   * The selected spell's range round the own character, and whether the target stands within
   * it (undefined without a target): what the ring shows before the key is pressed.
   */
  rangeRing(localNow: number): RangeRing | undefined {
    const me = this.selfEntity();
    const spell = this.spells[this.previewSlot ?? this.selectedSlot];
    if (!me || !me.alive || !spell || spell.range <= 0) return undefined;
    const t = this.targetId !== undefined ? this.entities.get(this.targetId) : undefined;
    let inRange: boolean | undefined;
    if (t && t.id !== me.id) {
      const a = this.drawnPosition(me, localNow);
      const b = this.drawnPosition(t, localNow);
      inRange = Math.hypot(b.x - a.x, b.y - a.y) <= spell.range;
    }
    return { radius: spell.range, colour: spell.colour, name: spell.name, inRange };
  }

  spell(id: number): SpellInfo | undefined {
    return this.spells.find((s) => s.id === id);
  }

  cooldownLeft(spellId: number, localNow: number): number {
    return Math.max(0, (this.cooldowns.get(spellId) ?? 0) - localNow);
  }

  /** The notices shown, oldest first. */
  get notices(): readonly Notice[] {
    return this.noticeLines.list;
  }

  notice(text: string, localNow: number): void {
    this.noticeLines.add(text, localNow);
  }

  /** Takes back the notices `stale` matches (a "Reconnecting…" once back) and says `text`. */
  settleNotices(stale: (text: string) => boolean, text: string, localNow: number): void {
    this.noticeLines.settle(stale, text, localNow);
  }

  /** Back to the character screen: forget the world (the view too). */
  leave(): void {
    this.view.reset();
    this.clearWorld();
  }

  private clearWorld(): void {
    this.zone = undefined;
    this.self = undefined;
    this.tracks.clear();
    this.casts.clear();
    this.projectiles = [];
    this.combatTexts = [];
    this.levelUps = [];
    this.cooldowns.clear();
    this.targetId = undefined;
    this.logoutAt = undefined;
    this.noticeLines.clear();
  }

  private enter(v: PayloadOf<typeof EnterWorld>, localNow: number): void {
    this.clock.reset();
    this.clock.observe(v.serverTime, localNow);
    this.corrections.length = 0;
    this.serverTick = v.tick;
    this.self = {
      id: v.entityId,
      name: v.name,
      interestRadius: v.interestRadius,
      predictor: new Predictor(this.predictionWorld(), v.x, v.y, v.facing, v.speed),
    };
    if (!this.tracks.has(v.entityId)) this.tracks.set(v.entityId, new VisualTrack());
  }

  /** The ground the own character may walk: its zone and the zones beside it (their bounding box). */
  private predictionWorld(): { zone: ZoneBounds; obstacles: Rect[] } {
    return this.zone ? walkGround(this.zone) : { zone: { width: 4096, height: 4096 }, obstacles: [] };
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
    case 'lineOfSight':
      return 'Your target is out of sight.';
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
