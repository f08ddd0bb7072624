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
 *     · health · maxHealth · speed f32 · x f32 · y f32 · facing f32
 *     player: sent x f32 · sent y f32 · sent t f64 (server ms) · angle f32 · speed f32
 *     mob with a route: start x f32 · start y f32 · startTime f64 · speed f32 · n u8
 *                       · n × (x f32 · y f32)
 */
import { Reader } from '../../shared/codec/reader.js';
import { Writer } from '../../shared/codec/writer.js';
import type { GhostState, MobRoute } from '../world/types.js';

const NAME_MAX = 255;
const ALIVE = 1;
const MOVING = 2;
const ROUTE = 4;
/** Waypoints in one route: mobs walk a few (rules.wanderWaypoints, chase paths round walls). */
const WAYPOINTS_MAX = 255;

export interface BorderStrip {
  from: string;
  entities: GhostState[];
}

export function encodeStrip(from: string, entities: readonly GhostState[]): Uint8Array {
  const w = new Writer(64 + entities.length * 64);
  w.string(from, NAME_MAX, 1);
  w.varint(entities.length);
  for (const e of entities) {
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
    w.f32(e.x);
    w.f32(e.y);
    w.f32(e.facing);
    if (e.kind === 'player') {
      const s = e.sent ?? { x: e.x, y: e.y, t: 0, moving: false, angle: e.facing, speed: 0 };
      w.f32(s.x);
      w.f32(s.y);
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
  return w.finish();
}

/** Throws on bytes that are not a strip (a RangeError from the reader, or an Error). */
export function decodeStrip(bytes: Uint8Array): BorderStrip {
  const r = new Reader(bytes);
  const from = r.string(NAME_MAX, 1);
  const count = r.varint();
  const entities: GhostState[] = [];
  for (let i = 0; i < count; i++) {
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
      x: r.f32(),
      y: r.f32(),
      facing: r.f32(),
      sent: null,
      route: null,
    };
    if (kind === 'player') {
      e.sent = {
        x: r.f32(),
        y: r.f32(),
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
    entities.push(e);
  }
  if (r.remaining !== 0) throw new Error(`border strip from ${from}: ${r.remaining} bytes past its end`);
  return { from, entities };
}
