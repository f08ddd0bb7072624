/**
 * The world's types: loaded data, tunable rules, entities, the inputs `step` applies and the
 * domain events it returns (see WorldEvent): what happened, never which packet says it.
 */
import type { MotionState } from '../../shared/game/motion.js';
import type { CellSet } from './cell-set.js';
import type { IdMap, IdSet } from './id-table.js';
import type { InputTimeline } from './timeline.js';
import type { Rect, Vec2 } from '../../shared/game/movement.js';
import type {
  MoveInput as MoveInputPacket,
  PayloadOf,
  SpellFailReason,
} from '../../shared/protocol/index.js';

// ---------------------------------------------------------------- data

export type SpellKind = 'damage' | 'heal';

export interface SpellData {
  id: number;
  name: string;
  kind: SpellKind;
  /** ms; 0 is instant (no cast bar). */
  castTime: number;
  /** ms */
  cooldown: number;
  manaCost: number;
  range: number;
  /** Units per second; 0 lands at once. */
  projectileSpeed: number;
  min: number;
  max: number;
  /** 0xRRGGBB */
  colour: number;
}

export interface MobTemplate {
  id: number;
  name: string;
  minLevel: number;
  maxLevel: number;
  health: number;
  /** Units per second. */
  speed: number;
  wanderRadius: number;
  aggroRadius: number;
  meleeMin: number;
  meleeMax: number;
  /** ms between melee swings. */
  swingTime: number;
  /** ms from death to respawn. */
  respawnTime: number;
  appearance: number;
  /** 0xRRGGBB */
  colour: number;
}

export interface MobSpawnPoint {
  template: number;
  x: number;
  y: number;
  count: number;
}

export interface ZoneData {
  name: string;
  /**
   * The zone's number, unique in the world: its mobs' entity ids are
   * MOB_ID_BASE + (number - 1) * MOB_IDS_PER_ZONE + n, so ids never meet across zones and hosts.
   */
  number: number;
  /** The zone's corner in the world plane: zones lie side by side, positions never translate. */
  x: number;
  y: number;
  width: number;
  height: number;
  obstacles: Rect[];
  playerSpawn: Vec2;
  graveyard: Vec2;
  spawns: MobSpawnPoint[];
}

/** A new character: its level (its health and mana are that level's, see Progression), speed and spells. */
export interface StartingCharacter {
  level: number;
  speed: number;
  spells: number[];
}

/** What a character has at one level (data/progression.json). */
export interface LevelStats {
  level: number;
  /** Experience from the start of this level to the next; 0 at the highest level. */
  experience: number;
  maxHealth: number;
  maxMana: number;
  /** Health and mana back per regeneration tick (rules.manaRegenInterval), while alive. */
  healthRegen: number;
  manaRegen: number;
  /** Percent added to what the character's spells do, damage and healing. */
  spellPower: number;
}

/**
 * Experience for a kill, by the mob's level and the difference to the killer's:
 * `base + perMobLevel × mobLevel`, then per level the mob is above the killer
 * `+aboveBonus` (counted up to `aboveCap` levels), per level below `-1 / greyLevels`:
 * a mob `greyLevels` or more below the killer is grey and gives none.
 */
export interface KillExperience {
  base: number;
  perMobLevel: number;
  aboveBonus: number;
  aboveCap: number;
  greyLevels: number;
}

export interface Progression {
  /** levels[0] is level 1; the last is the highest level a character reaches. */
  levels: LevelStats[];
  kill: KillExperience;
}

/** Tunables: timers, ranges and limits. data/rules.json holds them; a server config may override. */
export interface WorldRules {
  /** Side of a spatial-grid cell: the unit of interest and of encode-once replication. */
  cellSize: number;
  /** A player sees every cell with a point within this distance... */
  interestRadius: number;
  /** ...and stops seeing a cell once all of it is beyond interestRadius × interestMargin (hysteresis). */
  interestMargin: number;
  /**
   * How far an entity may stray past its grid cell's edge before it is filed in the next cell
   * (hysteresis): an entity pacing across a cell border does not leave and enter the views
   * of the players at the edge of their interest with every step. At most cellSize / 2.
   */
  cellHysteresis: number;
  /**
   * A client's clock may run ahead of the server's by at most this many ms of walking
   * (inputs that bunch up after a stall spend time banked while they were on the way).
   */
  moveBurstMs: number;
  sayRange: number;
  chatBurst: number;
  chatPerSecond: number;
  logoutDelay: number;
  corpseTime: number;
  playerRespawnDelay: number;
  /**
   * ms between two rounds of regeneration (health and mana alike): in a fight each gives a
   * living player its level's healthRegen and manaRegen (progression.json).
   */
  manaRegenInterval: number;
  /**
   * ms after a player's last cast, blow dealt or blow taken from which it rests: each round
   * then brings back restHealthPercent and restManaPercent of its maximum (when more than its
   * level's amounts in a fight).
   */
  restDelay: number;
  restHealthPercent: number;
  restManaPercent: number;
  /** A player stands up from death with at least these shares of its maximum health and mana. */
  respawnHealthPercent: number;
  respawnManaPercent: number;
  critChance: number;
  critMultiplier: number;
  meleeRange: number;
  /** A mob further than this from its spawn point gives up and walks home at full health. */
  leashDistance: number;
  /** A chasing mob re-paths when its target moved this far from where the path ends. */
  rechaseDistance: number;
  wanderPauseMin: number;
  wanderPauseMax: number;
  wanderWaypoints: number;
}

export interface WorldData {
  spells: ReadonlyMap<number, SpellData>;
  templates: ReadonlyMap<number, MobTemplate>;
  character: StartingCharacter;
  progression: Progression;
  rules: WorldRules;
  zones: ZoneData[];
}

// ---------------------------------------------------------------- entities

/** A character as storage keeps it; missing position, health or mana mean "new": spawn point, full. */
export interface SavedCharacter {
  id: number;
  name: string;
  level: number;
  appearance: number;
  zone?: string;
  x?: number;
  y?: number;
  facing?: number;
  health?: number;
  mana?: number;
  kills: number;
  /** Experience into the current level (0 when absent). */
  experience?: number;
}

interface EntityBase {
  id: number;
  name: string;
  level: number;
  x: number;
  y: number;
  facing: number;
  speed: number;
  health: number;
  maxHealth: number;
  alive: boolean;
  appearance: number;
  /** Players that see this entity (those whose view holds its cell, itself excluded). */
  observers: IdSet;
  /** Frozen copy of observers, rebuilt only after they change; events share it. */
  observerList: readonly number[] | null;
  /** Grid cell index, -1 when not in the grid (a decayed corpse, a player that left). */
  cell: number;
  /** Index inside the cell's list, for O(1) removal. */
  slot: number;
}

export interface Cast {
  spell: SpellData;
  targetId: number;
  endsAt: number;
}

export interface Player extends EntityBase {
  kind: 'player';
  sessionId: number;
  characterId: number;
  mana: number;
  maxMana: number;
  kills: number;
  /** Experience into the current level. */
  experience: number;
  spells: number[];
  /** Entities this player sees (never itself), by id: everything in its view cells. */
  visible: IdMap<Entity>;
  /** The grid cells this player sees (a bitmap over the zone's grid). */
  viewCells: CellSet;
  /** Where the player stood at its last view refresh. */
  viewX: number;
  viewY: number;
  lastSeq: number;
  /**
   * Counts the times the server put the player somewhere its client did not walk (u8,
   * wrapping): each starts a new epoch the client is told of (moves.ts). Inputs stamped
   * with another epoch were made before the client heard and are dropped.
   */
  moveEpoch: number;
  /** Server time of the last accepted move. */
  lastMoveAt: number;
  /** Client time of the last accepted move (undefined before the first). */
  lastClientTime: number | undefined;
  /**
   * Ms of walking the client may still claim beyond the server time that passed: grows with
   * server time up to WorldRules.moveBurstMs, shrinks by the client time each move covers
   * (by the walking its distance needed for a move from standing).
   */
  timeBank: number;
  /** The movement state the client last reported (position is x, y). */
  moving: boolean;
  /** Units per second along facing while moving. */
  moveSpeed: number;
  /** The motion state observers were last sent; they dead-reckon from it. */
  sent: MotionState;
  /**
   * Server ms minus client ms: maps a MoveInput's clientTime onto the server's clock, where it
   * takes effect (timeline.ts: the most delayed recent input's, chosen while standing).
   * Infinity before the first move.
   */
  clockOffset: number;
  /** Server time the newest accepted position held at (when it took effect on the timeline). */
  inputAt: number;
  /** inputAt of the position in `sent`. */
  sentInputAt: number;
  /**
   * Where its newest accepted input had it, or where the server last put it and told its
   * client so (entering, a refusal, a relocation, a new connection): its client walks on from
   * there, whatever the server did meanwhile without telling it (a walker held for silence
   * stands further on, where watchers have it), so the move checks start there. Its own
   * object, changed in place.
   */
  lastInput: Vec2;
  /** Its MoveInputs' lateness, and its inputs waiting for their time (timeline.ts). */
  timeline: InputTimeline<TimedInput>;
  cast: Cast | null;
  /** spell id -> time it is ready again */
  cooldowns: Map<number, number>;
  logoutAt: number | null;
  /** Server time it last cast, dealt or took damage (-Infinity before its first fight). */
  lastCombatAt: number;
  respawnAt: number | null;
  nextManaRegenAt: number;
  chatTokens: number;
  chatRefilledAt: number;
}

export type MobState = 'idle' | 'wander' | 'chase' | 'return' | 'dead';

export interface MobRoute {
  start: Vec2;
  waypoints: Vec2[];
  startTime: number;
  speed: number;
}

export interface Mob extends EntityBase {
  kind: 'mob';
  template: MobTemplate;
  home: Vec2;
  state: MobState;
  route: MobRoute | null;
  targetId: number;
  nextWanderAt: number;
  nextSwingAt: number;
  /** A chase that found no way round walls tries again at this time. */
  repathAt: number;
  /**
   * Chasing: the target's motion state the route was aimed by, and how far ahead (ms past the
   * route's start) it aimed. The route holds while the target keeps to that course.
   */
  chaseCourse: MotionState | null;
  chaseLead: number;
  corpseUntil: number;
  respawnAt: number;
}

export type Entity = Player | Mob;

/**
 * A player's whole state as one zone hands it to the next: the entity as a ghost carries it,
 * and what only its own zone keeps (mana, spells, the move checks' clock and bank, the cast,
 * cooldowns, timers), so the next zone takes its inputs on without a correction.
 */
export interface HandoffState extends Pick<
  Player,
  | 'characterId'
  | 'mana'
  | 'maxMana'
  | 'kills'
  | 'experience'
  | 'spells'
  | 'lastSeq'
  | 'moveEpoch'
  | 'lastMoveAt'
  | 'lastClientTime'
  | 'timeBank'
  | 'moving'
  | 'moveSpeed'
  | 'clockOffset'
  | 'inputAt'
  | 'sentInputAt'
  | 'logoutAt'
  | 'lastCombatAt'
  | 'respawnAt'
  | 'nextManaRegenAt'
  | 'chatTokens'
  | 'chatRefilledAt'
> {
  entity: GhostState;
  cast: { spellId: number; targetId: number; endsAt: number } | null;
  cooldowns: [spellId: number, readyAt: number][];
  /**
   * Its MoveInputs still waiting for their time (timeline.ts), with it: a stop or turn made
   * just past the line is not lost with the zone it was queued in.
   */
  queued: { move: MovePayload; due: number }[];
  /** Its input timeline's lateness window, hold and late count: a crossing keeps its offset's grounds. */
  lateness: [arrived: number, offset: number][];
  held: number;
  late: number;
}

/**
 * What a zone host tells its neighbour of one entity in the border strip, each tick: enough to
 * keep it there as a ghost (in view, not simulated) and replicate it as the entity's own host
 * does: its look, health, and its motion (a player's last sent motion state, a mob's route).
 */
export interface GhostState {
  id: number;
  kind: 'player' | 'mob';
  /** A mob's template (0 for a player). */
  template: number;
  name: string;
  level: number;
  appearance: number;
  health: number;
  maxHealth: number;
  alive: boolean;
  speed: number;
  x: number;
  y: number;
  facing: number;
  /** A player's motion state as its observers were last sent it. */
  sent: MotionState | null;
  /** A mob's walk, while it has one. */
  route: MobRoute | null;
}

/**
 * A spell that landed here on a ghost: it is applied by the entity's own zone, to which the
 * next strip carries it (ghosts.ts). The caster's zone rolled it and showed the hit to its
 * own players.
 */
export interface BorderHit {
  sourceId: number;
  targetId: number;
  spellId: number;
  effect: 'damage' | 'heal';
  amount: number;
  crit: boolean;
}

/** A neighbour's player killed one of this zone's mobs from across the line: credited there. */
export interface BorderKill {
  killerId: number;
  victimId: number;
  /** The victim's level: the killer's zone works out the experience. */
  victimLevel: number;
}

/** What a zone sends a neighbour beside its strip, once. */
export interface BorderNews {
  hits: BorderHit[];
  kills: BorderKill[];
}

// ---------------------------------------------------------------- inputs

export type LeaveReason = 'disconnected' | 'kicked' | 'takenOver' | 'shutdown';

/** A MoveInput's payload: the client's movement state, declared once in shared/protocol/movement.ts. */
export type MovePayload = PayloadOf<typeof MoveInputPacket>;

/**
 * A MoveInput as the zone gets it: the packet's fields for player `entityId`, and when it
 * arrived. Its `epoch` is absent where the world is driven without a client (tests, benches):
 * the current one.
 */
export type MoveInput = Omit<MovePayload, 'epoch'> &
  Partial<Pick<MovePayload, 'epoch'>> & {
    type: 'move';
    entityId: number;
    /** Server ms when the input arrived (before it waited for the tick); the tick's time when unknown. */
    receivedAt?: number;
  };

/** A player's own inputs that act where it stands: they take effect in order on its timeline. */
export type TimedInput =
  | MoveInput
  | { type: 'cast'; entityId: number; spellId: number; targetId: number }
  | { type: 'cancelCast'; entityId: number }
  | { type: 'logout'; entityId: number }
  | { type: 'logoutCancel'; entityId: number };

export type WorldInput =
  | { type: 'join'; sessionId: number; character: SavedCharacter }
  | { type: 'leave'; entityId: number; reason: LeaveReason }
  /** Its connection dropped: the character stays, standing where it was, with nobody to send to. */
  | { type: 'detach'; entityId: number }
  /** A new connection took the character over: it gets its whole state and view anew. */
  | { type: 'attach'; entityId: number; sessionId: number }
  | MoveInput
  | { type: 'cast'; entityId: number; spellId: number; targetId: number }
  /** A player handed over from the zone beside this one walks in (handoff.ts). */
  | { type: 'arrive'; sessionId: number; state: HandoffState }
  /**
   * The neighbour zone `from`'s border strip as of its last tick: the ghosts to show here, the
   * hits its players landed on this zone's entities, and the kills of theirs made here.
   */
  | {
      type: 'strip';
      from: string;
      entities: readonly GhostState[];
      hits?: readonly BorderHit[];
      kills?: readonly BorderKill[];
    }
  | { type: 'cancelCast'; entityId: number }
  | {
      type: 'chat';
      entityId: number;
      channel: 'say' | 'zone';
      text: string;
      /**
       * Server ms when the line was read from its sayer (the tick's time when unknown): the chat
       * rate is judged by when lines were said, not by when they reach the zone (a burst held
       * up on the way, by a bus outage, was said a second apart all the same).
       */
      receivedAt?: number;
    }
  | { type: 'logout'; entityId: number }
  | { type: 'logoutCancel'; entityId: number };

// ---------------------------------------------------------------- events

/** Why a move was refused: the client snaps back to where the server has it. */
export type MoveRefusal = 'speed' | 'bounds' | 'obstacle' | 'dead';
/** Why the server moved a player itself. */
export type Relocation = 'dead' | 'respawn' | 'bounds';
/** Why a cast did not happen or stopped. */
export type CastFailure = SpellFailReason;
/** Why a chat line was refused. */
export type ChatRefusal = 'tooLong' | 'rateLimited';

/** A player's own numbers that only it sees (health is entity state, seen by all). */
export interface OwnStats {
  mana: number;
  maxMana: number;
  level: number;
  kills: number;
  /** Experience into the current level, and the level's whole span (0 at the highest level). */
  experience: number;
  experienceNeeded: number;
}

/**
 * What happened in a step, in the order it happened: the world's own vocabulary, with no
 * packet names. Subscribers turn events into what they need: the replication writer into
 * records and packets (server/outbox), the zone host into session bindings and saves, metrics
 * into counters. Events about an entity that others see carry `witnesses`: the players that
 * saw it when it happened (a frozen snapshot, never mutated).
 */
export type WorldEvent =
  // ---- views
  /** `observerId` starts seeing `entity` (its state as of the end of the step). */
  | { type: 'seen'; observerId: number; entity: Entity }
  /** `observerId` stops seeing the entity (out of its view). */
  | { type: 'unseen'; observerId: number; entityId: number }
  // ---- entity state: whoever views the entity's cell when the step ends learns it
  /** A player's motion state changed (start, stop, turn, heartbeat; `jump`: a teleport): see Player.sent. */
  | { type: 'motion'; entity: Player; jump: boolean }
  /** A mob started a walk (Mob.route) or stopped (route null). */
  | { type: 'path'; entity: Mob }
  | { type: 'health'; entity: Entity }
  | { type: 'died'; entity: Entity; killerId: number }
  /** A dead player stands up at (x, y) with its health. */
  | { type: 'respawned'; entity: Player }
  /**
   * The entity left cell `cell` for good: it left the world, or its corpse decayed.
   * `observers` saw it then (a frozen snapshot): those whose view no longer holds the cell
   * by the end of the step are told too.
   */
  | { type: 'removed'; entity: Entity; cell: number; reason: 'left' | 'corpse'; observers: readonly number[] }
  // ---- a player's own affairs
  /**
   * A join input became this player entity, or an attach gave it a new session: bind the
   * session to it before later events.
   */
  | { type: 'joined'; sessionId: number; playerId: number }
  /**
   * The player crossed into zone `to` and is handed to it: it is a ghost here from now on
   * (observers keep it), and `state` is all the next zone needs to carry it on.
   */
  | { type: 'handedOff'; sessionId: number; playerId: number; to: string; state: HandoffState }
  /** A handed-over player is in the zone: it learns the zone, and its view is sent anew. */
  | { type: 'arrived'; player: Player }
  /** The player is in the zone: it learns the zone, its spells and itself (as of the step's end). */
  | { type: 'entered'; player: Player }
  /** The player's newest move this step was accepted (one per player per step). */
  | { type: 'moveAccepted'; player: Player; seq: number }
  /** Move `seq` was refused: the player stands at (x, y) facing `facing`, and move epoch `epoch` starts. */
  | {
      type: 'moveRefused';
      player: Player;
      seq: number;
      x: number;
      y: number;
      facing: number;
      /** A later discontinuity of the same step tells its client where it is: not sent. */
      superseded?: boolean;
      reason: MoveRefusal;
      epoch: number;
    }
  /**
   * The server put the player at (x, y) itself (it fell, stood up at the graveyard, was given
   * back from a hand-off): move epoch `epoch` starts; `seq` is the newest move it took.
   */
  | {
      type: 'relocated';
      player: Player;
      seq: number;
      x: number;
      y: number;
      facing: number;
      /** A later discontinuity of the same step tells its client where it is: not sent. */
      superseded?: boolean;
      reason: Relocation;
      epoch: number;
    }
  | { type: 'statsChanged'; player: Player; stats: OwnStats }
  /** The player earned experience for killing `victimId` (it may have levelled up: see leveledUp). */
  | { type: 'experienceGained'; player: Player; amount: number; victimId: number }
  /** The player reached `level` (its new health, mana and spell power are the level's). */
  | { type: 'leveledUp'; player: Player; level: number; witnesses: readonly number[] }
  | { type: 'cooldownStarted'; player: Player; spellId: number; remaining: number }
  /** A cast refused before it began: only the caster learns it. */
  | { type: 'castRefused'; player: Player; spellId: number; reason: CastFailure }
  | { type: 'chatRefused'; player: Player; reason: ChatRefusal }
  | { type: 'logoutStarted'; player: Player; delay: number }
  | { type: 'logoutCancelled'; player: Player }
  // ---- seen by others
  | {
      type: 'castStarted';
      caster: Player;
      spellId: number;
      targetId: number;
      castTime: number;
      witnesses: readonly number[];
    }
  /** A cast bar broke (moved, cancelled, died) or its spell could not go off at the end. */
  | { type: 'castFailed'; caster: Player; spellId: number; reason: CastFailure; witnesses: readonly number[] }
  | {
      type: 'spellLaunched';
      caster: Player;
      spellId: number;
      targetId: number;
      travelTime: number;
      witnesses: readonly number[];
    }
  /** A spell or a swing (spellId 0) landed: `witnesses` saw the target then. */
  | {
      type: 'spellHit';
      sourceId: number;
      target: Entity;
      spellId: number;
      effect: SpellKind;
      amount: number;
      crit: boolean;
      witnesses: readonly number[];
    }
  /** Said aloud: `hearers` (the speaker among them) were within say range. */
  | { type: 'said'; speaker: Player; text: string; hearers: readonly number[] }
  /** Said to the whole zone. */
  | { type: 'shouted'; speaker: Player; text: string }
  // ---- the session's
  /** A plain copy of a player's persistent state, to store. */
  | { type: 'save'; sessionId: number; playerId: number; character: SavedCharacter }
  /** The player entity is gone; the session goes back to the character screen (or closes). */
  | { type: 'leftWorld'; sessionId: number; playerId: number; reason: 'logout' | LeaveReason };

export type WorldEventType = WorldEvent['type'];
