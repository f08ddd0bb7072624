/**
 * A zone's state and the helpers every system uses: entity lookup, grid upkeep, cell
 * activation, and the event emitters. Only `step`, `joinPlayer` and `leavePlayer` change it.
 */
import { blocked, clampToZone, insideZone, type Rect } from '../../shared/game/movement.js';
import { MOB_ID_BASE, MOB_IDS_PER_ZONE } from '../../shared/protocol/index.js';
import { CellSet } from './cell-set.js';
import { gridArea, grown, neighbours, rectInArea, stripDepth } from './border.js';
import { Grid } from './grid.js';
import { newTimeline } from './timeline.js';
import { levelStats, maxLevel } from './progression.js';
import { EntitySet, IdMap, IdSet } from './id-table.js';
import { randomInt, type Rng } from '../../shared/game/rng.js';
import type {
  BorderNews,
  Entity,
  LeaveReason,
  Mob,
  Player,
  SavedCharacter,
  SpellData,
  WorldData,
  WorldEvent,
  OwnStats,
  WorldRules,
  ZoneData,
} from './types.js';

export interface WorldStats {
  /** Mobs whose AI and movement ran in the last step (only those in active cells). */
  simulatedMobs: number;
  /** Players whose view was recomputed in the last step. */
  interestUpdates: number;
}

export interface World {
  readonly data: WorldData;
  readonly zone: ZoneData;
  readonly rules: WorldRules;
  tick: number;
  now: number;
  readonly players: Map<number, Player>;
  readonly mobs: Map<number, Mob>;
  readonly playerGrid: Grid<Player>;
  readonly mobGrid: Grid<Mob>;
  /**
   * The neighbours' entities in the border strips (ghosts.ts): shown, never simulated. All
   * three grids cover the zone and the strips beside it, cell for cell, so a player's view
   * cells take in the ghosts across the border like anything else.
   */
  readonly ghostGrid: Grid<Entity>;
  /**
   * The ghosts by id, with the zone each came from; `heldUntil`: a player just handed on,
   * kept in place (server ms) until its new zone's strip shows it.
   */
  readonly ghosts: Map<number, { entity: Entity; from: string; heldUntil?: number }>;
  /** The zone's walls and its neighbours' walls near the border: what a walker meets. */
  readonly walls: Rect[];
  /** Neighbours a player may walk into (handoff.ts); the host opens a border it can hand across. */
  openBorders: ZoneData[];
  /** Per neighbour: hits and kills to send it with this zone's next strip (ghosts.ts). */
  readonly borderNews: Map<string, BorderNews>;
  /** Per cell: how many players are within activation range; mobs in cells at 0 sleep. */
  readonly activation: Int32Array;
  /** Cells whose activation count is above zero. */
  readonly activeCells: Set<number>;
  /** Half-side, in cells, of the block a player activates around its own cell. */
  readonly activationSpan: number;
  /** Dead mobs, waiting to decay and respawn (timers run even in sleeping cells). */
  readonly deadMobs: Set<Mob>;
  /** Per grid cell: the players whose view holds it. */
  readonly cellObservers: EntitySet<Player>[];
  /** Players whose movement state changed this step: a motion check each, and a view refresh. */
  readonly moved: Set<Player>;
  /** Players that walk: the server stops one whose inputs fall silent. */
  readonly walking: Set<Player>;
  /** Players with MoveInputs waiting for their time (timeline.ts). */
  readonly queuedMoves: Set<Player>;
  /** Players with moves accepted this step: one MoveAck each, for the newest. */
  readonly acks: Set<Player>;
  /** Players whose view must be recomputed this step (joined, respawned, teleported). */
  readonly viewDirty: Set<Player>;
  readonly projectiles: Projectile[];
  /** Players with a cast bar running. */
  readonly casting: Set<Player>;
  /** Dead players waiting to respawn at the graveyard. */
  readonly deadPlayers: Set<Player>;
  /** Players with a logout timer running. */
  readonly loggingOut: Set<Player>;
  /** Entities that fell to combat this step, not yet settled (see step.ts). */
  readonly fallen: { entity: Entity; killer: Entity | null }[];
  /** Mobs hit by a player this step, not yet turned on their attacker. */
  readonly provoked: { mob: Mob; by: Player }[];
  /** The step's random source (set by step from its argument). */
  rng: Rng;
  events: WorldEvent[];
  readonly stats: WorldStats;
}

export interface Projectile {
  casterId: number;
  targetId: number;
  spell: SpellData;
  landsAt: number;
}

/** Positions on the wire are quantized (shared/protocol coord); paths use wire values so both sides agree. */
const COORD_SCALE = 65535 / 4096;
export function wireCoord(v: number): number {
  return Math.round(v * COORD_SCALE) / COORD_SCALE;
}

/** Builds a zone with its mobs spawned. `rules` overrides data/rules.json (server config). */
export function createWorld(
  data: WorldData,
  opts: {
    zone?: string;
    rules?: Partial<WorldRules>;
    now?: number;
    rng: Rng;
    /** Neighbours players may walk into (handed over to their hosts); none by default. */
    openBorders?: readonly string[];
  },
): World {
  const zone = opts.zone === undefined ? data.zones[0] : data.zones.find((z) => z.name === opts.zone);
  if (!zone) throw new Error(`no zone ${opts.zone ?? '(none loaded)'}`);
  const rules = { ...data.rules, ...opts.rules };
  const area = gridArea(data.zones, zone, stripDepth(rules));
  const playerGrid = new Grid<Player>(area, rules.cellSize, rules.cellHysteresis);
  const w: World = {
    data,
    zone,
    rules,
    tick: 0,
    now: opts.now ?? 0,
    players: new Map(),
    mobs: new Map(),
    playerGrid,
    mobGrid: new Grid<Mob>(area, rules.cellSize, rules.cellHysteresis),
    ghostGrid: new Grid<Entity>(area, rules.cellSize, rules.cellHysteresis),
    ghosts: new Map(),
    borderNews: new Map(),
    walls: [
      ...zone.obstacles,
      ...neighbours(data.zones, zone).flatMap((n) =>
        n.obstacles.filter((o) => rectInArea(o, grown(zone, stripDepth(rules)))),
      ),
    ],
    openBorders: neighbours(data.zones, zone).filter((n) => opts.openBorders?.includes(n.name)),
    activation: new Int32Array(playerGrid.cells.length),
    activeCells: new Set(),
    activationSpan: Math.ceil((rules.interestRadius * rules.interestMargin) / rules.cellSize),
    cellObservers: Array.from({ length: playerGrid.cells.length }, () => new EntitySet<Player>()),
    deadMobs: new Set(),
    moved: new Set(),
    walking: new Set(),
    queuedMoves: new Set(),
    acks: new Set(),
    viewDirty: new Set(),
    projectiles: [],
    casting: new Set(),
    deadPlayers: new Set(),
    loggingOut: new Set(),
    fallen: [],
    provoked: [],
    rng: opts.rng,
    events: [],
    stats: { simulatedMobs: 0, interestUpdates: 0 },
  };
  let nextMobId = MOB_ID_BASE + (zone.number - 1) * MOB_IDS_PER_ZONE;
  for (const sp of zone.spawns) {
    const template = data.templates.get(sp.template)!;
    for (let i = 0; i < sp.count; i++) {
      const mob: Mob = {
        kind: 'mob',
        id: nextMobId++,
        name: template.name,
        level: randomInt(opts.rng, template.minLevel, template.maxLevel),
        x: sp.x,
        y: sp.y,
        facing: 0,
        speed: template.speed,
        health: template.health,
        maxHealth: template.health,
        alive: true,
        appearance: template.appearance,
        observers: new IdSet(),
        observerList: null,
        cell: -1,
        slot: -1,
        template,
        home: { x: sp.x, y: sp.y },
        state: 'idle',
        route: null,
        targetId: 0,
        nextWanderAt: w.now + opts.rng() * rules.wanderPauseMax,
        nextSwingAt: 0,
        repathAt: 0,
        chaseCourse: null,
        chaseLead: 0,
        corpseUntil: 0,
        respawnAt: 0,
      };
      w.mobs.set(mob.id, mob);
      w.mobGrid.insert(mob); // nobody is in the zone yet: no one to show it to
    }
  }
  return w;
}

const FIRST_MOB_ID = MOB_ID_BASE;

/** What goes to neighbour `zone` with this zone's next strip. */
export function borderNews(w: World, zone: string): BorderNews {
  let news = w.borderNews.get(zone);
  if (!news) {
    news = { hits: [], kills: [] };
    w.borderNews.set(zone, news);
  }
  return news;
}

export function entityById(w: World, id: number): Entity | undefined {
  return id >= FIRST_MOB_ID ? w.mobs.get(id) : w.players.get(id);
}

/** For whisper and who, which run outside the zone: a player by name, ignoring case. */
export function findPlayerByName(w: World, name: string): Player | undefined {
  const want = name.toLowerCase();
  for (const p of w.players.values()) if (p.name.toLowerCase() === want) return p;
  return undefined;
}

// ------------------------------------------------------------ events

/** Epochs wrap at a byte: only equality matters, and 256 jumps are never in flight at once. */
const MOVE_EPOCHS = 0x100;

/**
 * Starts the player's next move epoch (move-epoch.ts); its client learns it from what is sent
 * about the jump (PositionCorrection, EnterWorld).
 */
export function nextMoveEpoch(w: World, p: Player): number {
  // Its client hears of the newest jump of the step only: a correction of this step sent
  // after an EnterWorld (which goes ahead of the step's update) would stamp its moves with an
  // older epoch, and every one would be dropped unanswered.
  for (const e of w.events) {
    if ((e.type === 'moveRefused' || e.type === 'relocated') && e.player.id === p.id) e.superseded = true;
  }
  p.moveEpoch = (p.moveEpoch + 1) % MOVE_EPOCHS;
  return p.moveEpoch;
}

export function emit(w: World, e: WorldEvent): void {
  w.events.push(e);
}

/** Who sees `e` now, as a frozen list (cached until its observers change). */
export function observerList(e: Entity): readonly number[] {
  if (e.observerList === null) e.observerList = Object.freeze(Array.from(e.observers));
  return e.observerList;
}

/** A player's own numbers as they are now. */
export function ownStats(w: World, p: Player): OwnStats {
  return {
    mana: p.mana,
    maxMana: p.maxMana,
    level: p.level,
    kills: p.kills,
    experience: p.experience,
    experienceNeeded: levelStats(w.data.progression, p.level).experience,
  };
}

export function statsChanged(w: World, p: Player): void {
  w.events.push({ type: 'statsChanged', player: p, stats: ownStats(w, p) });
}

// ------------------------------------------------------------ grid and activation

export function activate(w: World, cell: number, delta: 1 | -1): void {
  const g = w.playerGrid;
  const cx = cell % g.cols;
  const cy = (cell - cx) / g.cols;
  const s = w.activationSpan;
  for (let y = Math.max(0, cy - s); y <= Math.min(g.rows - 1, cy + s); y++) {
    for (let x = Math.max(0, cx - s); x <= Math.min(g.cols - 1, cx + s); x++) {
      const i = y * g.cols + x;
      const n = (w.activation[i]! += delta);
      if (n === 1 && delta === 1) w.activeCells.add(i);
      else if (n === 0) w.activeCells.delete(i);
    }
  }
}

// ------------------------------------------------------------ who sees what
//
// A player sees whole grid cells (interest.ts decides which); it sees every entity in them
// but itself. These keep `visible` and `observers` true as entities come, go and cross
// cells, and emit the `seen` / `unseen` / `removed` events replication turns into records.

export function see(w: World, o: Player, e: Entity): void {
  if (o === e || o.visible.has(e.id)) return;
  o.visible.set(e.id, e);
  e.observers.add(o.id);
  e.observerList = null;
  emit(w, { type: 'seen', observerId: o.id, entity: e });
}

export function unsee(w: World, o: Player, e: Entity): void {
  if (!o.visible.delete(e.id)) return;
  e.observers.delete(o.id);
  e.observerList = null;
  emit(w, { type: 'unseen', observerId: o.id, entityId: e.id });
}

/** An entity appeared in its cell (joined, respawned): everyone viewing the cell sees it. */
export function showInCell(w: World, e: Entity): void {
  for (const o of w.cellObservers[e.cell]!) see(w, o, e);
}

/**
 * After an entity changed cell: viewers of only the new cell see it, viewers of only the old
 * lose it. Viewers of both saw it already (a player sees everything in its view cells), and
 * asking their view cells (a bit) spares asking their visible tables (a hash probe).
 */
export function crossed(w: World, e: Entity, from: number): void {
  const to = e.cell;
  const seers = w.cellObservers[to]!.slots();
  for (let i = 0; i < seers.length; i++) {
    const o = seers[i];
    if (o !== undefined && !o.viewCells.has(from)) see(w, o, e);
  }
  const losers = w.cellObservers[from]!.slots();
  for (let i = 0; i < losers.length; i++) {
    const o = losers[i];
    if (o !== undefined && !o.viewCells.has(to)) unsee(w, o, e);
  }
}

/** Takes an entity out of the grid for good; those who saw it get a despawn with `reason`. */
export function removeFromCell(w: World, e: Entity, reason: 'left' | 'corpse'): void {
  if (e.cell < 0) return;
  emit(w, { type: 'removed', entity: e, cell: e.cell, reason, observers: observerList(e) });
  for (const oid of e.observers) w.players.get(oid)?.visible.delete(e.id);
  e.observers.clear();
  e.observerList = null;
}

export function placePlayer(w: World, p: Player): void {
  w.playerGrid.insert(p);
  activate(w, p.cell, 1);
  showInCell(w, p);
}

export function unplacePlayer(w: World, p: Player): void {
  if (p.cell < 0) return;
  removeFromCell(w, p, 'left');
  activate(w, p.cell, -1);
  w.playerGrid.remove(p);
}

export function placeMob(w: World, m: Mob): void {
  w.mobGrid.insert(m);
  showInCell(w, m);
}

export function unplaceMob(w: World, m: Mob, reason: 'left' | 'corpse'): void {
  removeFromCell(w, m, reason);
  w.mobGrid.remove(m);
}

/** After a mob's x/y changed: its grid cell, and who sees it. */
export function refileMob(w: World, m: Mob): void {
  const old = m.cell;
  if (w.mobGrid.update(m)) crossed(w, m, old);
}

/** After a player's x/y changed: re-file it and mark it for a motion check and a view refresh. */
export function playerMoved(w: World, p: Player): void {
  refilePlayer(w, p);
  w.moved.add(p);
}

/** After a player's x/y changed: its grid cell, the cells it keeps awake, and who sees it. */
export function refilePlayer(w: World, p: Player): void {
  const old = p.cell;
  if (w.playerGrid.update(p)) {
    activate(w, old, -1);
    activate(w, p.cell, 1);
    crossed(w, p, old);
  }
}

// ------------------------------------------------------------ join and leave

export interface JoinResult {
  playerId: number;
  events: WorldEvent[];
}

/**
 * Puts a character into the zone. Emits `joined`, then ZoneInfo, SpellBook and EnterWorld to
 * the player; the spawns of what is near follow at the end of the step that runs next (or of
 * this step, when called through a join input).
 */
export function joinPlayer(w: World, sessionId: number, c: SavedCharacter, now = w.now): JoinResult {
  const start = w.events.length;
  const p = addPlayer(w, sessionId, c, now);
  return { playerId: p.id, events: w.events.splice(start) };
}

/** Takes a player out of the zone between steps (see removePlayer); returns its events. */
export function leavePlayer(w: World, playerId: number, reason: LeaveReason | 'logout'): WorldEvent[] {
  const start = w.events.length;
  const p = w.players.get(playerId);
  if (p) removePlayer(w, p, reason);
  return w.events.splice(start);
}

/**
 * A player's entity id is its character id, the same in every zone and on every host, so a
 * hand-off keeps it. A world holds a character once (the zone host takes a lingering one
 * over before it joins again).
 */
export function playerEntityId(characterId: number): number {
  if (!(Number.isInteger(characterId) && characterId > 0 && characterId < MOB_ID_BASE)) {
    throw new RangeError(`character id ${characterId} is not an entity id (1 to ${MOB_ID_BASE - 1})`);
  }
  return characterId;
}

export function addPlayer(w: World, sessionId: number, c: SavedCharacter, now: number): Player {
  if (w.players.has(c.id)) throw new Error(`character ${c.id} is already in ${w.zone.name}`);
  const base = w.data.character;
  let pos = { x: c.x ?? w.zone.playerSpawn.x, y: c.y ?? w.zone.playerSpawn.y };
  // A saved spot the zone no longer allows (walls moved, zone resized) falls back to the spawn.
  if (
    !Number.isFinite(pos.x) ||
    !Number.isFinite(pos.y) ||
    !insideZone(pos, w.zone) ||
    blocked(pos, w.zone.obstacles)
  ) {
    pos = { ...w.zone.playerSpawn };
  }
  pos = clampToZone(pos, w.zone);
  const prog = w.data.progression;
  // A level the table no longer has (it was shortened) is its highest.
  const level = Math.min(Math.max(1, Math.floor(c.level) || 1), maxLevel(prog));
  const stats = levelStats(prog, level);
  const health =
    c.health === undefined ? stats.maxHealth : Math.min(Math.max(0, Math.round(c.health)), stats.maxHealth);
  const experience =
    stats.experience === 0 ? 0 : Math.min(Math.max(0, Math.floor(c.experience ?? 0)), stats.experience - 1);
  const p: Player = {
    kind: 'player',
    id: playerEntityId(c.id),
    name: c.name,
    level,
    x: pos.x,
    y: pos.y,
    facing: c.facing ?? 0,
    speed: base.speed,
    // A character saved dead comes back alive at its spot with a sliver of health.
    health: health > 0 ? health : 1,
    maxHealth: stats.maxHealth,
    alive: true,
    appearance: c.appearance,
    observers: new IdSet(),
    observerList: null,
    cell: -1,
    slot: -1,
    sessionId,
    characterId: c.id,
    mana: c.mana === undefined ? stats.maxMana : Math.min(Math.max(0, Math.round(c.mana)), stats.maxMana),
    maxMana: stats.maxMana,
    kills: c.kills,
    experience,
    spells: [...base.spells],
    visible: new IdMap(),
    viewCells: new CellSet(w.playerGrid.cells.length),
    viewX: pos.x,
    viewY: pos.y,
    lastSeq: 0,
    moveEpoch: 0,
    lastMoveAt: now,
    lastClientTime: undefined,
    timeBank: w.rules.moveBurstMs,
    moving: false,
    moveSpeed: 0,
    sent: { x: pos.x, y: pos.y, t: now, moving: false, angle: c.facing ?? 0, speed: 0 },
    clockOffset: Infinity,
    inputAt: now,
    sentInputAt: now,
    lastInput: { x: pos.x, y: pos.y },
    timeline: newTimeline(now),
    cast: null,
    cooldowns: new Map(),
    logoutAt: null,
    lastCombatAt: -Infinity,
    respawnAt: null,
    nextManaRegenAt: now + w.rules.manaRegenInterval,
    chatTokens: w.rules.chatBurst,
    chatRefilledAt: now,
  };
  w.players.set(p.id, p);
  placePlayer(w, p);
  w.viewDirty.add(p);
  emit(w, { type: 'joined', sessionId, playerId: p.id });
  emit(w, { type: 'entered', player: p });
  return p;
}

/**
 * Gives a player in the world to a new session (a resumed or taken-over connection) without
 * leaving: `joined` binds the session, then it learns what a join tells (`entered`), the cast
 * it is in, its cooldowns and logout timer, and every entity it sees as if it had just come
 * into view (its first WorldUpdate holds them all as spawns). Observers notice nothing. The
 * client's clock starts afresh, so the move checks forget the old one.
 */
export function attachPlayer(w: World, p: Player, sessionId: number): void {
  const now = w.now;
  p.sessionId = sessionId;
  p.lastSeq = 0;
  // What the old connection sent and is still on its way is void (EnterWorld carries the new epoch).
  nextMoveEpoch(w, p);
  p.lastMoveAt = now;
  p.lastClientTime = undefined;
  p.timeBank = w.rules.moveBurstMs;
  p.clockOffset = Infinity;
  // The old connection's inputs still waiting are its, not the new one's.
  p.timeline = newTimeline(now);
  // Its client starts where the player stands (EnterWorld says so).
  p.lastInput.x = p.x;
  p.lastInput.y = p.y;
  w.queuedMoves.delete(p);
  emit(w, { type: 'joined', sessionId, playerId: p.id });
  emit(w, { type: 'entered', player: p });
  if (p.cast) {
    const { spell, targetId, endsAt } = p.cast;
    // Only the player: those who see it saw the cast begin.
    emit(w, {
      type: 'castStarted',
      caster: p,
      spellId: spell.id,
      targetId,
      castTime: Math.max(0, endsAt - now),
      witnesses: [],
    });
  }
  for (const [spellId, readyAt] of p.cooldowns) {
    if (readyAt > now) emit(w, { type: 'cooldownStarted', player: p, spellId, remaining: readyAt - now });
  }
  if (p.logoutAt !== null)
    emit(w, { type: 'logoutStarted', player: p, delay: Math.max(0, p.logoutAt - now) });
  for (const e of p.visible.values()) emit(w, { type: 'seen', observerId: p.id, entity: e });
}

/**
 * Where a player is handed to another keeper (the next zone, the store): where it is, or,
 * for a walker whose turn was placed at its corner (walkers.ts, turnCorner), a frame or so
 * behind its client's newest input on the course it walks, that input, dated when the
 * course reaches it. The corner is the record watchers draw from, inferred from the walker's
 * states (and from a client whose stated speed outruns its walk, past anywhere it went); the
 * input is where its client was, and what its moves were checked from (Player.lastInput). A
 * player the server stood somewhere itself (a hold, a death) is kept where it stood it.
 */
export function keptPlace(p: Player): { x: number; y: number; inputAt: number } {
  const to = p.lastInput;
  const at = { x: p.x, y: p.y, inputAt: p.inputAt };
  if (!p.moving || !(p.moveSpeed > 0) || (to.x === p.x && to.y === p.y)) return at;
  const along = (to.x - p.x) * Math.cos(p.facing) + (to.y - p.y) * Math.sin(p.facing);
  if (!(along > 0)) return at;
  return { x: to.x, y: to.y, inputAt: p.inputAt + (along / p.moveSpeed) * 1000 };
}

/** The persistent part of a player, as storage keeps it. */
export function savedCharacter(w: World, p: Player): SavedCharacter {
  const at = keptPlace(p);
  return {
    id: p.characterId,
    name: p.name,
    level: p.level,
    appearance: p.appearance,
    zone: w.zone.name,
    x: at.x,
    y: at.y,
    facing: p.facing,
    health: p.health,
    mana: p.mana,
    kills: p.kills,
    experience: p.experience,
  };
}

/**
 * Takes a player out of the zone: save event, a despawn ('left') for those who saw it, leftWorld.
 * Mobs chasing it notice the target is gone on their next AI step and walk home.
 */
export function removePlayer(w: World, p: Player, reason: LeaveReason | 'logout'): void {
  emit(w, { type: 'save', sessionId: p.sessionId, playerId: p.id, character: savedCharacter(w, p) });
  unplacePlayer(w, p);
  forgetPlayer(w, p);
  w.moved.delete(p);
  emit(w, { type: 'leftWorld', sessionId: p.sessionId, playerId: p.id, reason });
}

/**
 * Drops a player from the zone's own tables: its view (what it saw forgets it) and the
 * per-tick sets. Whether others still see it (its cell, the grids) is the caller's: a
 * removal takes it out of sight, a hand-off leaves it there as a ghost.
 */
export function forgetPlayer(w: World, p: Player): void {
  for (const e of p.visible.values()) {
    e.observers.delete(p.id);
    e.observerList = null;
  }
  p.visible.clear();
  for (const cell of p.viewCells) w.cellObservers[cell]!.delete(p);
  p.viewCells.clear();
  w.players.delete(p.id);
  w.walking.delete(p);
  w.acks.delete(p);
  w.viewDirty.delete(p);
  w.casting.delete(p);
  w.deadPlayers.delete(p);
  w.loggingOut.delete(p);
  w.queuedMoves.delete(p);
  p.timeline.queue.length = 0;
}
