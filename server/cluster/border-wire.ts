/**
 * What zone hosts tell each other of the entities at a border: the strip (one message per
 * tick on `wyvern.zone.<neighbour>.border`; server/world/ghosts.ts says what it is for) and a
 * player's whole state when it walks across (inside a HANDOFF record, server/cluster/wire.ts).
 * The layouts are declared here (server/cluster/inner/define.ts; docs/CLUSTER.md's tables and
 * test/cluster/golden/ come from them); the functions below map the world's types onto them.
 *
 * A strip is encoded once by its sender, whole each time, so a lost message costs one tick of
 * staleness and nothing else.
 */
import { bool, f32, f64, string, u16, u8, varint } from '../../shared/codec/fields.js';
import { MoveInput } from '../../shared/protocol/movement.js';
import type {
  BorderHit,
  BorderKill,
  BorderNews,
  GhostState,
  HandoffState as PlayerHandoff,
  MobRoute,
} from '../world/types.js';
import { defineBody, type BodyIn, type BodyOut } from './inner/define.js';
import { array, bits, code, group, maybe, num, when, type OutOf } from './inner/fields.js';

/** Waypoints in one route: mobs walk a few (rules.wanderWaypoints, chase paths round walls). */
const WAYPOINTS_MAX = 255;
/** More than a bus message (1 MiB) could hold of any of them. */
const ITEMS_MAX = 65_535;

const point = group({ x: f32, y: f32 });

/** One entity of a strip, and a handed-off player as it stood. */
export const Ghost = group({
  id: varint,
  kind: code({ player: 0, mob: 1 }),
  flags: bits(['alive', 'moving', 'route']),
  /** A mob's template, 0 for a player. */
  template: varint,
  name: string(255),
  level: u8,
  appearance: u8,
  health: varint,
  maxHealth: varint,
  speed: f32,
  x: f64,
  y: f64,
  facing: f32,
  /** A player's motion state as its observers were last sent it (`moving` is in the flags). */
  sent: when(
    'a player',
    (g: { kind: string }) => g.kind === 'player',
    group({ x: f64, y: f64, t: f64, angle: f32, speed: f32 }),
  ),
  /** A mob's walk, while it has one (and the flags say so). */
  route: when(
    'a mob with a route',
    (g: { kind: string; flags: { route: boolean } }) => g.kind === 'mob' && g.flags.route,
    group({
      startX: f32,
      startY: f32,
      startTime: f64,
      speed: f32,
      waypoints: array(point, WAYPOINTS_MAX, 'u8'),
    }),
  ),
});
type GhostIn = Parameters<typeof Ghost.write>[1];
type GhostOut = OutOf<typeof Ghost>;

export const BorderStrip = defineBody({
  name: 'BorderStrip',
  dir: 'z2z',
  route: 'zoneBorder',
  subject: 'on `wyvern.zone.<neighbour>.border`',
  doc: "A zone's border strip for its neighbour, each tick: every player and mob within the strip depth of the neighbour's ground, then news for the receiving zone (combat.ts: applyBorderNews): hits landed on its entities' ghosts, and kills its players made across the line.",
  fields: {
    /** The sending zone's name. */
    from: string(255),
    entities: array(Ghost, ITEMS_MAX),
    hits: array(
      group({
        sourceId: varint,
        targetId: varint,
        spellId: u16,
        flags: bits(['heal', 'crit']),
        amount: varint,
      }),
      ITEMS_MAX,
    ),
    kills: array(group({ killerId: varint, victimId: varint, victimLevel: u8 }), ITEMS_MAX),
  },
  example: {
    from: 'Greenvale',
    entities: [
      {
        id: 7,
        kind: 'player',
        flags: { alive: true, moving: true, route: false },
        template: 0,
        name: 'Ayla',
        level: 3,
        appearance: 2,
        health: 120,
        maxHealth: 140,
        speed: 160,
        x: 1990.5,
        y: 812.25,
        facing: 0.5,
        sent: { x: 1980.5, y: 810.25, t: 1_763_000_000_123.5, angle: 0.5, speed: 160 },
        route: undefined,
      },
      {
        id: 1_048_600,
        kind: 'mob',
        flags: { alive: true, moving: false, route: true },
        template: 4,
        name: 'Grey Wolf',
        level: 2,
        appearance: 0,
        health: 60,
        maxHealth: 60,
        speed: 90,
        x: 1995,
        y: 900,
        facing: 3,
        sent: undefined,
        route: {
          startX: 1995,
          startY: 900,
          startTime: 1_763_000_000_050,
          speed: 90,
          waypoints: [
            { x: 2010, y: 905 },
            { x: 2030, y: 920 },
          ],
        },
      },
    ],
    hits: [{ sourceId: 7, targetId: 2_000_000, spellId: 2, flags: { heal: false, crit: true }, amount: 31 }],
    kills: [{ killerId: 7, victimId: 2_000_001, victimLevel: 2 }],
  },
});

export const HandoffState = defineBody({
  name: 'HandoffState',
  dir: 'z2z',
  subject: 'inside a Handoff record (`state`)',
  doc: "A player handed to the next zone's host: the entity as in a strip, then what only its zone kept (the move checks' clock, its cast, cooldowns, timers, chat tokens, inputs still waiting for their time). Times and amounts that may be absent or infinite are `num`.",
  fields: {
    entity: Ghost,
    characterId: varint,
    mana: varint,
    maxMana: varint,
    kills: varint,
    experience: varint,
    spells: array(u16, ITEMS_MAX),
    lastSeq: varint,
    moveEpoch: u8,
    lastMoveAt: num,
    lastClientTime: num,
    timeBank: num,
    moving: bool,
    moveSpeed: f32,
    clockOffset: num,
    inputAt: num,
    sentInputAt: num,
    cast: maybe(group({ spellId: u16, targetId: varint, endsAt: num })),
    cooldowns: array(group({ spellId: u16, readyAt: num }), ITEMS_MAX),
    logoutAt: num,
    lastCombatAt: num,
    respawnAt: num,
    nextManaRegenAt: num,
    chatTokens: num,
    chatRefilledAt: num,
    /** Its MoveInputs still waiting for their time (timeline.ts), each as its client sent it. */
    queued: array(group({ move: MoveInput.payload, due: num }), ITEMS_MAX),
    /** Its input timeline's lateness window. */
    lateness: array(group({ arrived: num, offset: num }), ITEMS_MAX),
    held: num,
    late: varint,
  },
});

/** A strip as the world takes it. */
export interface StripState {
  from: string;
  entities: GhostState[];
  hits: BorderHit[];
  kills: BorderKill[];
}

/** A whole amount as the wire carries it: never negative. */
const whole = (v: number): number => Math.max(0, Math.round(v));

export function encodeStrip(
  from: string,
  entities: readonly GhostState[],
  news: BorderNews = { hits: [], kills: [] },
): Uint8Array {
  const strip: BodyIn<typeof BorderStrip> = {
    from,
    entities: entities.map(toGhost),
    hits: news.hits.map((h) => ({
      sourceId: h.sourceId,
      targetId: h.targetId,
      spellId: h.spellId,
      flags: { heal: h.effect === 'heal', crit: h.crit },
      amount: whole(h.amount),
    })),
    kills: news.kills,
  };
  return BorderStrip.encode(strip);
}

/** Throws on bytes that are not a strip (a DecodeError). */
export function decodeStrip(bytes: Uint8Array): StripState {
  const s = BorderStrip.decode(bytes);
  return {
    from: s.from,
    entities: s.entities.map(fromGhost),
    hits: s.hits.map(({ sourceId, targetId, spellId, flags, amount }) => ({
      sourceId,
      targetId,
      spellId,
      effect: flags.heal ? 'heal' : 'damage',
      crit: flags.crit,
      amount,
    })),
    kills: s.kills,
  };
}

export function encodeHandoff(s: PlayerHandoff): Uint8Array {
  const state: BodyIn<typeof HandoffState> = {
    ...s,
    entity: toGhost(s.entity),
    mana: whole(s.mana),
    maxMana: whole(s.maxMana),
    experience: whole(s.experience),
    cast: s.cast ?? undefined,
    cooldowns: s.cooldowns.map(([spellId, readyAt]) => ({ spellId, readyAt })),
    queued: s.queued,
    lateness: s.lateness.map(([arrived, offset]) => ({ arrived, offset })),
  };
  return HandoffState.encode(state);
}

/** Throws on bytes that are not a hand-off (a DecodeError). */
export function decodeHandoff(bytes: Uint8Array): PlayerHandoff {
  const s: BodyOut<typeof HandoffState> = HandoffState.decode(bytes);
  return {
    entity: fromGhost(s.entity),
    characterId: s.characterId,
    mana: s.mana,
    maxMana: s.maxMana,
    kills: s.kills,
    experience: s.experience,
    spells: s.spells,
    lastSeq: s.lastSeq,
    moveEpoch: s.moveEpoch,
    lastMoveAt: s.lastMoveAt ?? 0,
    lastClientTime: s.lastClientTime ?? undefined,
    timeBank: s.timeBank ?? 0,
    moving: s.moving,
    moveSpeed: s.moveSpeed,
    clockOffset: s.clockOffset ?? 0,
    inputAt: s.inputAt ?? 0,
    sentInputAt: s.sentInputAt ?? 0,
    cast: s.cast ? { ...s.cast, endsAt: s.cast.endsAt ?? 0 } : null,
    cooldowns: s.cooldowns.map(({ spellId, readyAt }) => [spellId, readyAt ?? 0]),
    logoutAt: s.logoutAt,
    lastCombatAt: s.lastCombatAt ?? 0,
    respawnAt: s.respawnAt,
    nextManaRegenAt: s.nextManaRegenAt ?? 0,
    chatTokens: s.chatTokens ?? 0,
    chatRefilledAt: s.chatRefilledAt ?? 0,
    queued: s.queued.map(({ move, due }) => ({ move, due: due ?? 0 })),
    lateness: s.lateness.map(({ arrived, offset }) => [arrived ?? 0, offset ?? 0]),
    held: s.held ?? 0,
    late: s.late,
  };
}

function toGhost(e: GhostState): GhostIn {
  const route = e.kind === 'mob' && e.route && e.route.waypoints.length <= WAYPOINTS_MAX ? e.route : null;
  const sent = e.sent ?? { x: e.x, y: e.y, t: 0, moving: false, angle: e.facing, speed: 0 };
  return {
    id: e.id,
    kind: e.kind,
    flags: { alive: e.alive, moving: e.sent?.moving ?? false, route: route !== null },
    template: e.template,
    name: e.name,
    level: e.level,
    appearance: e.appearance,
    health: whole(e.health),
    maxHealth: whole(e.maxHealth),
    speed: e.speed,
    x: e.x,
    y: e.y,
    facing: e.facing,
    sent:
      e.kind === 'player'
        ? { x: sent.x, y: sent.y, t: sent.t, angle: sent.angle, speed: sent.speed }
        : undefined,
    route: route
      ? {
          startX: route.start.x,
          startY: route.start.y,
          startTime: route.startTime,
          speed: route.speed,
          waypoints: route.waypoints,
        }
      : undefined,
  };
}

function fromGhost(g: GhostOut): GhostState {
  const route: MobRoute | null = g.route
    ? {
        start: { x: g.route.startX, y: g.route.startY },
        startTime: g.route.startTime,
        speed: g.route.speed,
        waypoints: g.route.waypoints,
      }
    : null;
  return {
    id: g.id,
    kind: g.kind,
    template: g.template,
    name: g.name,
    level: g.level,
    appearance: g.appearance,
    health: g.health,
    maxHealth: g.maxHealth,
    alive: g.flags.alive,
    speed: g.speed,
    x: g.x,
    y: g.y,
    facing: g.facing,
    sent: g.sent
      ? {
          x: g.sent.x,
          y: g.sent.y,
          t: g.sent.t,
          moving: g.flags.moving,
          angle: g.sent.angle,
          speed: g.sent.speed,
        }
      : null,
    route,
  };
}
