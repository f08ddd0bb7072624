/**
 * The lab feed: what the server holds true about the area around one character, for the
 * netcode lab page (`/?lab`), which draws it beside what two players' clients make of it.
 * Read-only, opt-in (LAB_FEED, on in the embedded default; turn it off in production: it
 * tells anyone where a named character is), bounded in area and in rate.
 *
 *   GET /lab/feed?name=Ayla[&radius=300][&after=TICK]
 *
 * is answered at the end of the first tick after `after` (the next tick when absent), so a
 * page that asks again as soon as it has its answer gets every tick once: a stream at the
 * tick rate over plain HTTP, whichever engine serves it. The answer (JSON):
 *
 *   { tick, time, zone, center: {x, y}, radius,
 *     entities: [{ id, kind, name, x, y, at, held, facing, moving, alive, speed }] }
 *
 * `x`, `y` are where the world has each entity at `time`: a player where its newest accepted
 * input put it (`at` is that input's time on the server's timeline, what its motion state is
 * dated), a mob where its route has it (`at` is `time`). `held`: how long the server holds the
 * player's inputs so they take effect with the spacing they were made at (timeline.ts). `moving` and `speed` are the player's last
 * reported state (a mob's route speed). An unknown or offline character is a 404 with a
 * reason; more than MAX_WAITING requests at once are refused (503).
 */
import { positionAlongPath } from '../../shared/game/movement.js';
import { LAB_FEED_MAX_RADIUS, type LabEntity, type LabSnapshot } from '../../shared/protocol/lab-feed.js';
import type { HttpReply } from '../transport/http.js';
import type { World } from '../world/world.js';

export type { LabEntity, LabSnapshot } from '../../shared/protocol/lab-feed.js';

/** Largest radius a request may ask for (units). */
export const MAX_RADIUS = LAB_FEED_MAX_RADIUS;
export const DEFAULT_RADIUS = 300;
/** Requests waiting for a tick at once, all pages together. */
export const MAX_WAITING = 16;
/** A request not answered within this long (the world stopped ticking) gets a 503. */
const WAIT_LIMIT_MS = 2000;

interface Waiting {
  name: string;
  radius: number;
  after: number;
  answer: (reply: HttpReply) => void;
  timer: ReturnType<typeof setTimeout>;
}

const round = (v: number) => Math.round(v * 100) / 100;

function json(status: number, body: unknown): HttpReply {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  };
}

/** The true state of everything within `radius` of the character `name`, or undefined. */
export function labSnapshot(worlds: Iterable<World>, name: string, radius: number): LabSnapshot | undefined {
  const wanted = name.toLowerCase();
  for (const w of worlds) {
    let self;
    for (const p of w.players.values()) if (p.name.toLowerCase() === wanted) self = p;
    if (!self) continue;
    const r2 = radius * radius;
    const near = (e: { x: number; y: number }) => (e.x - self.x) ** 2 + (e.y - self.y) ** 2 <= r2;
    const entities: LabEntity[] = [];
    for (const p of w.players.values()) {
      if (!near(p)) continue;
      entities.push({
        id: p.id,
        kind: 'player',
        name: p.name,
        x: round(p.x),
        y: round(p.y),
        at: p.inputAt,
        held: p.timeline.held,
        facing: round(p.facing),
        moving: p.moving,
        alive: p.alive,
        speed: p.moving ? p.moveSpeed : 0,
      });
    }
    for (const m of w.mobs.values()) {
      // A mob in a sleeping cell is not advanced each tick: its route says where it is.
      const r = m.route;
      const at = r ? positionAlongPath(r.start, r.waypoints, r.speed, w.now - r.startTime) : m;
      if (!near(at) || m.cell < 0) continue;
      entities.push({
        id: m.id,
        kind: 'mob',
        name: m.name,
        x: round(at.x),
        y: round(at.y),
        at: w.now,
        held: 0,
        facing: round(at.facing),
        moving: r !== null,
        alive: m.alive,
        speed: r ? r.speed : 0,
      });
    }
    return {
      tick: w.tick,
      time: w.now,
      zone: w.zone.name,
      center: { x: round(self.x), y: round(self.y) },
      radius,
      entities,
    };
  }
  return undefined;
}

export class LabFeed {
  private waiting: Waiting[] = [];

  /** `worlds` gives every zone's world as it stands after a tick. */
  constructor(private readonly worlds: () => Iterable<World>) {}

  /** GET /lab/feed with its query string. */
  request(query: URLSearchParams): Promise<HttpReply> {
    const name = (query.get('name') ?? '').trim();
    if (name === '' || name.length > 32)
      return Promise.resolve(json(400, { error: 'name: a character name' }));
    const rawRadius = query.get('radius');
    const radius = rawRadius === null ? DEFAULT_RADIUS : Number(rawRadius);
    if (!Number.isFinite(radius) || radius <= 0 || radius > MAX_RADIUS) {
      return Promise.resolve(json(400, { error: `radius: a number of units, 1-${MAX_RADIUS}` }));
    }
    const rawAfter = query.get('after');
    const after = rawAfter === null ? -1 : Number(rawAfter);
    if (!Number.isSafeInteger(after)) return Promise.resolve(json(400, { error: 'after: a tick number' }));
    if (this.waiting.length >= MAX_WAITING) {
      return Promise.resolve(json(503, { error: 'too many lab feed requests at once' }));
    }
    return new Promise((resolve) => {
      const entry: Waiting = {
        name,
        radius,
        after,
        answer: resolve,
        timer: setTimeout(() => {
          this.drop(entry);
          resolve(json(503, { error: 'no tick came' }));
        }, WAIT_LIMIT_MS),
      };
      entry.timer.unref?.();
      this.waiting.push(entry);
    });
  }

  /** After each tick: answers every request waiting for a tick past its `after`. */
  tick(): void {
    if (this.waiting.length === 0) return;
    const worlds = [...this.worlds()];
    const tick = worlds[0]?.tick ?? 0;
    const still: Waiting[] = [];
    for (const w of this.waiting) {
      if (tick <= w.after) {
        still.push(w);
        continue;
      }
      clearTimeout(w.timer);
      const snap = labSnapshot(worlds, w.name, w.radius);
      w.answer(snap ? json(200, snap) : json(404, { error: `no character named ${w.name} is in the world` }));
    }
    this.waiting = still;
  }

  /** Answers everything still waiting (the server stops). */
  close(): void {
    for (const w of this.waiting) {
      clearTimeout(w.timer);
      w.answer(json(503, { error: 'the server is stopping' }));
    }
    this.waiting = [];
  }

  private drop(entry: Waiting): void {
    this.waiting = this.waiting.filter((w) => w !== entry);
  }
}
