/**
 * A border strip, zone host -> the neighbour zone's host, one message per tick on
 * `wyvern.zone.<neighbour>.border` (server/world/ghosts.ts says what it is for). Encoded once
 * by the sender; the whole strip each time, so a lost message costs one tick of staleness and
 * nothing else. Integers are varints unless a width is given.
 *
 *   from str8 (the sending zone's name) · count
 *   then count entities, each
 *     id · kind u8 (0 player, 1 mob) · flags u8 (1 alive, 2 moving, 4 has a route)
 *     · template (0 for a player) · name str8 · level u8 · appearance u8
 *     · health · maxHealth · speed f32 · x f64 · y f64 · facing f32
 *     player: sent x f64 · sent y f64 · sent t f64 (server ms) · angle f32 · speed f32
 *     mob with a route: start x f32 · start y f32 · startTime f64 · speed f32 · n u8
 *                       · n × (x f32 · y f32)
 *   then news for the receiving zone (combat.ts: applyBorderNews):
 *     hits count, each  sourceId · targetId · spellId u16 · flags u8 (1 heal, 2 crit) · amount
 *     kills count, each killerId · victimId · victimLevel u8
 */
import { Reader } from '../../shared/codec/reader.js';
import { Writer } from '../../shared/codec/writer.js';
import { MoveInput } from '../../shared/protocol/movement.js';
import type {
  BorderHit,
  BorderKill,
  BorderNews,
  GhostState,
  HandoffState,
  MobRoute,
} from '../world/types.js';

const NAME_MAX = 255;
const ALIVE = 1;
const MOVING = 2;
const ROUTE = 4;
/** Waypoints in one route: mobs walk a few (rules.wanderWaypoints, chase paths round walls). */
const WAYPOINTS_MAX = 255;

const HEAL = 1;
const CRIT = 2;

export interface BorderStrip {
  from: string;
  entities: GhostState[];
  hits: BorderHit[];
  kills: BorderKill[];
}

export function encodeStrip(
  from: string,
  entities: readonly GhostState[],
  news: BorderNews = { hits: [], kills: [] },
): Uint8Array {
  const w = new Writer(64 + entities.length * 64 + news.hits.length * 16 + news.kills.length * 8);
  w.string(from, NAME_MAX, 1);
  w.varint(entities.length);
  for (const e of entities) writeGhost(w, e);
  w.varint(news.hits.length);
  for (const h of news.hits) {
    w.varint(h.sourceId);
    w.varint(h.targetId);
    w.u16(h.spellId);
    w.u8((h.effect === 'heal' ? HEAL : 0) | (h.crit ? CRIT : 0));
    w.varint(Math.max(0, Math.round(h.amount)));
  }
  w.varint(news.kills.length);
  for (const k of news.kills) {
    w.varint(k.killerId);
    w.varint(k.victimId);
    w.u8(k.victimLevel);
  }
  return w.finish();
}

/** Throws on bytes that are not a strip (a RangeError from the reader, or an Error). */
export function decodeStrip(bytes: Uint8Array): BorderStrip {
  const r = new Reader(bytes);
  const from = r.string(NAME_MAX, 1);
  const count = r.varint();
  const entities: GhostState[] = [];
  for (let i = 0; i < count; i++) entities.push(readGhost(r));
  const hits: BorderHit[] = [];
  for (let i = r.varint(); i > 0; i--) {
    const sourceId = r.varint();
    const targetId = r.varint();
    const spellId = r.u16();
    const flags = r.u8();
    hits.push({
      sourceId,
      targetId,
      spellId,
      effect: flags & HEAL ? 'heal' : 'damage',
      crit: (flags & CRIT) !== 0,
      amount: r.varint(),
    });
  }
  const kills: BorderKill[] = [];
  for (let i = r.varint(); i > 0; i--)
    kills.push({ killerId: r.varint(), victimId: r.varint(), victimLevel: r.u8() });
  if (r.remaining !== 0) throw new Error(`border strip from ${from}: ${r.remaining} bytes past its end`);
  return { from, entities, hits, kills };
}

/**
 * A player handed to the next zone's host (the HANDOFF zone input): the entity as in a strip,
 * then what only its zone kept:
 *   characterId · mana · maxMana · kills · experience · spells (count, each u16) · lastSeq · moveEpoch u8
 *   · lastMoveAt · lastClientTime · timeBank · moving u8 · moveSpeed f32
 *   · clockOffset · inputAt · sentInputAt
 *   · cast u8 (0 none, 1: spellId u16 · targetId · endsAt)
 *   · cooldowns (count, each spellId u16 · readyAt)
 *   · logoutAt · lastCombatAt · respawnAt · nextManaRegenAt · chatTokens · chatRefilledAt
 *   · queued moves (count, each the MoveInput payload as its client sent it · due num)
 *   · lateness window (count, each arrived num · offset num) · held num · late varint
 * where each time or amount is num: tag u8 (0: f64 follows, 1: +Infinity, 2: -Infinity,
 * 3: none).
 */
export function encodeHandoff(s: HandoffState): Uint8Array {
  const w = new Writer(256);
  writeGhost(w, s.entity);
  w.varint(s.characterId);
  w.varint(Math.max(0, Math.round(s.mana)));
  w.varint(Math.max(0, Math.round(s.maxMana)));
  w.varint(s.kills);
  w.varint(Math.max(0, Math.round(s.experience)));
  w.varint(s.spells.length);
  for (const id of s.spells) w.u16(id);
  w.varint(s.lastSeq);
  w.u8(s.moveEpoch);
  num(w, s.lastMoveAt);
  num(w, s.lastClientTime);
  num(w, s.timeBank);
  w.u8(s.moving ? 1 : 0);
  w.f32(s.moveSpeed);
  num(w, s.clockOffset);
  num(w, s.inputAt);
  num(w, s.sentInputAt);
  if (s.cast) {
    w.u8(1);
    w.u16(s.cast.spellId);
    w.varint(s.cast.targetId);
    num(w, s.cast.endsAt);
  } else w.u8(0);
  w.varint(s.cooldowns.length);
  for (const [id, at] of s.cooldowns) {
    w.u16(id);
    num(w, at);
  }
  num(w, s.logoutAt);
  num(w, s.lastCombatAt);
  num(w, s.respawnAt);
  num(w, s.nextManaRegenAt);
  num(w, s.chatTokens);
  num(w, s.chatRefilledAt);
  w.varint(s.queued.length);
  for (const { move, due } of s.queued) {
    MoveInput.payload.write(w, move);
    num(w, due);
  }
  w.varint(s.lateness.length);
  for (const [at, offset] of s.lateness) {
    num(w, at);
    num(w, offset);
  }
  num(w, s.held);
  w.varint(s.late);
  return w.finish();
}

export function decodeHandoff(bytes: Uint8Array): HandoffState {
  const r = new Reader(bytes);
  const entity = readGhost(r);
  const characterId = r.varint();
  const mana = r.varint();
  const maxMana = r.varint();
  const kills = r.varint();
  const experience = r.varint();
  const spells: number[] = [];
  for (let n = r.varint(), i = 0; i < n; i++) spells.push(r.u16());
  const lastSeq = r.varint();
  const moveEpoch = r.u8();
  const lastMoveAt = readNum(r) ?? 0;
  const lastClientTime = readNum(r) ?? undefined;
  const timeBank = readNum(r) ?? 0;
  const moving = r.u8() === 1;
  const moveSpeed = r.f32();
  const clockOffset = readNum(r) ?? 0;
  const inputAt = readNum(r) ?? 0;
  const sentInputAt = readNum(r) ?? 0;
  const cast = r.u8() === 1 ? { spellId: r.u16(), targetId: r.varint(), endsAt: readNum(r) ?? 0 } : null;
  const cooldowns: [number, number][] = [];
  for (let n = r.varint(), i = 0; i < n; i++) cooldowns.push([r.u16(), readNum(r) ?? 0]);
  const state: HandoffState = {
    entity,
    characterId,
    mana,
    maxMana,
    kills,
    experience,
    spells,
    lastSeq,
    moveEpoch,
    lastMoveAt,
    lastClientTime,
    timeBank,
    moving,
    moveSpeed,
    clockOffset,
    inputAt,
    sentInputAt,
    cast,
    cooldowns,
    logoutAt: readNum(r),
    lastCombatAt: readNum(r) ?? 0,
    respawnAt: readNum(r),
    nextManaRegenAt: readNum(r) ?? 0,
    chatTokens: readNum(r) ?? 0,
    chatRefilledAt: readNum(r) ?? 0,
    queued: [],
    lateness: [],
    held: 0,
    late: 0,
  };
  for (let n = r.varint(), i = 0; i < n; i++) {
    const move = MoveInput.payload.read(r);
    state.queued.push({ move, due: readNum(r) ?? 0 });
  }
  for (let n = r.varint(), i = 0; i < n; i++) state.lateness.push([readNum(r) ?? 0, readNum(r) ?? 0]);
  state.held = readNum(r) ?? 0;
  state.late = r.varint();
  if (r.remaining !== 0) throw new Error(`hand-off of ${entity.name}: ${r.remaining} bytes past its end`);
  return state;
}

/** A time or amount that may be absent or infinite: tag u8 (0 f64 follows, 1 +Inf, 2 -Inf, 3 none). */
function num(w: Writer, v: number | null | undefined): void {
  if (v === null || v === undefined || Number.isNaN(v)) w.u8(3);
  else if (v === Infinity) w.u8(1);
  else if (v === -Infinity) w.u8(2);
  else {
    w.u8(0);
    w.f64(v);
  }
}

function readNum(r: Reader): number | null {
  const tag = r.u8();
  if (tag === 0) return r.f64();
  if (tag === 1) return Infinity;
  if (tag === 2) return -Infinity;
  if (tag === 3) return null;
  throw new Error(`number tag ${tag} unknown`);
}

function writeGhost(w: Writer, e: GhostState): void {
  const route = e.kind === 'mob' && e.route && e.route.waypoints.length <= WAYPOINTS_MAX ? e.route : null;
  w.varint(e.id);
  w.u8(e.kind === 'player' ? 0 : 1);
  w.u8((e.alive ? ALIVE : 0) | (e.sent?.moving ? MOVING : 0) | (route ? ROUTE : 0));
  w.varint(e.template);
  w.string(e.name, NAME_MAX, 1);
  w.u8(e.level);
  w.u8(e.appearance);
  w.varint(Math.max(0, Math.round(e.health)));
  w.varint(Math.max(0, Math.round(e.maxHealth)));
  w.f32(e.speed);
  w.f64(e.x);
  w.f64(e.y);
  w.f32(e.facing);
  if (e.kind === 'player') {
    const s = e.sent ?? { x: e.x, y: e.y, t: 0, moving: false, angle: e.facing, speed: 0 };
    w.f64(s.x);
    w.f64(s.y);
    w.f64(s.t);
    w.f32(s.angle);
    w.f32(s.speed);
  } else if (route) {
    w.f32(route.start.x);
    w.f32(route.start.y);
    w.f64(route.startTime);
    w.f32(route.speed);
    w.u8(route.waypoints.length);
    for (const p of route.waypoints) {
      w.f32(p.x);
      w.f32(p.y);
    }
  }
}

function readGhost(r: Reader): GhostState {
  const id = r.varint();
  const kind = r.u8() === 0 ? 'player' : 'mob';
  const flags = r.u8();
  const e: GhostState = {
    id,
    kind,
    template: r.varint(),
    name: r.string(NAME_MAX, 1),
    level: r.u8(),
    appearance: r.u8(),
    health: r.varint(),
    maxHealth: r.varint(),
    alive: (flags & ALIVE) !== 0,
    speed: r.f32(),
    x: r.f64(),
    y: r.f64(),
    facing: r.f32(),
    sent: null,
    route: null,
  };
  if (kind === 'player') {
    e.sent = {
      x: r.f64(),
      y: r.f64(),
      t: r.f64(),
      moving: (flags & MOVING) !== 0,
      angle: r.f32(),
      speed: r.f32(),
    };
  } else if (flags & ROUTE) {
    const route: MobRoute = {
      start: { x: r.f32(), y: r.f32() },
      startTime: r.f64(),
      speed: r.f32(),
      waypoints: [],
    };
    const n = r.u8();
    for (let k = 0; k < n; k++) route.waypoints.push({ x: r.f32(), y: r.f32() });
    e.route = route;
  }
  return e;
}
