/**
 * The netcode bench's harness: a real server in this process and the page's own client code
 * in Node, each client behind its own link lab.
 *
 * The server runs both roles on 127.0.0.1 with ephemeral ports, a fresh SQLite database and a
 * bench world: the test data's rules, spells and character (a 500 ms respawn) and two empty
 * zones side by side, West and East, the line between them at x = 1000. Everyone enters at
 * West's spawn, 100 units from the line; the graveyard is 140 units south of it.
 *
 * A client is what the page is without Pixi: a WyvernClient over the link lab's transport
 * (LinkLabTransport, seeded) over a WebSocket, the page's ClientWorld fed every packet, and
 * the page's frame loop (prediction, sending, prune, ping pace) run by a timer at 60 Hz.
 *
 * A group is one mover and its watchers, each on its own link. The mover walks a scripted
 * walk (the lab's legs), dies where the walk says (killed through the world, as combat kills)
 * and holds its key through the respawn; the watchers stand at the spawn and draw it. After
 * every tick the server's record of the mover is read from the world (web-client/src/state/truth.ts).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { loadConfig } from '../../server/config.js';
import { startWyvern, type WyvernHandle } from '../../server/main.js';
import { applyDamage } from '../../server/world/combat.js';
import type { Player } from '../../server/world/types.js';
import type { WyvernClient } from '../../shared/client/client.js';
import {
  WebSocketTransport,
  type WebSocketConstructorLike,
} from '../../shared/client/websocket-transport.js';
import { mulberry32 } from '../../shared/game/rng.js';
import { PING_INTERVAL_MS, PingPace, pageClient } from '../../web-client/src/net/connection.js';
import { LinkLabTransport } from '../../web-client/src/net/link-lab-transport.js';
import {
  FRAME_MS,
  scriptedDirection,
  walkPeriod,
  type Direction,
  type Leg,
} from '../../web-client/src/state/lab.js';
import type { LinkSettings } from '../../web-client/src/state/link-lab.js';
import { ClientWorld, type Incoming } from '../../web-client/src/state/world.js';
import {
  figures,
  moverFigures,
  ServerRecord,
  type MoverFigures,
  type MoverFrame,
  type PairFigures,
  type TruthEvent,
  type WatcherFrame,
} from '../../web-client/src/state/truth.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** A leg of the mover's walk; `kill`: the server kills it as this leg begins (the key stays held). */
export interface BenchLeg extends Leg {
  kill?: boolean;
}

const E = { x: 1, y: 0 };
const W = { x: -1, y: 0 };
const N = { x: 0, y: -1 };
const S = { x: 0, y: 1 };
const STAND = { x: 0, y: 0 };
const leg = (d: Direction, ms: number, kill = false): BenchLeg => ({
  x: d.x,
  y: d.y,
  ms,
  ...(kill && { kill }),
});

/**
 * The mover's walk from West's spawn (900, 500), at 120 units/s: across the line into East
 * and back, stops after long and short runs, a turn without a stop, a diagonal, a death while
 * walking west with the key held on through the respawn at the graveyard (880, 640), over
 * the line and back again, then a small square twice. It keeps within 230 units of the
 * spawn, where the watchers stand, so they see all of it.
 */
export const NETCODE_WALK: readonly BenchLeg[] = [
  leg(E, 1500),
  leg(STAND, 800),
  leg(N, 1000),
  leg(STAND, 800),
  leg(W, 1500),
  leg(STAND, 800),
  leg(S, 600),
  leg(E, 600),
  leg(STAND, 800),
  leg(W, 400),
  leg(STAND, 500),
  leg(W, 400),
  leg(STAND, 500),
  leg({ x: -1, y: 1 }, 1000),
  leg(STAND, 800),
  leg(W, 800),
  leg(W, 1700, true),
  leg(STAND, 1200),
  leg({ x: 1, y: -1 }, 1200),
  leg(E, 1500),
  leg(STAND, 800),
  leg(W, 1500),
  leg(STAND, 1000),
  // A small square twice, a stop at each corner: more stops, where a late one shows.
  ...[0, 1].flatMap(() => [N, E, S, W].flatMap((d) => [leg(d, 700), leg(STAND, 500)])),
];

const zone = (name: string, number: number, x: number, spawn: { x: number; y: number }) => ({
  name,
  number,
  x,
  y: 0,
  width: 1000,
  height: 1000,
  playerSpawn: spawn,
  graveyard: { x: spawn.x - 20, y: spawn.y + 140 },
  obstacles: [],
  spawns: [],
});

const BENCH_ZONES = [zone('West', 1, 0, { x: 900, y: 500 }), zone('East', 2, 1000, { x: 1100, y: 500 })];

export interface BenchServer {
  readonly handle: WyvernHandle;
  readonly url: string;
  /** The server's record of a player, read after every tick from now on. */
  track(entityId: number): ServerRecord;
  untrack(entityId: number): void;
  /** A player as the world holds it now. */
  player(entityId: number): Player | undefined;
  /** Kills a player through the world, as a killing blow in combat does. */
  kill(entityId: number): void;
  stop(): Promise<void>;
}

function findPlayer(handle: WyvernHandle, id: number): { player: Player; zone: string } | undefined {
  for (const host of handle.realm.zones.values()) {
    const player = host.world.players.get(id);
    if (player) return { player, zone: host.world.zone.name };
  }
  return undefined;
}

export async function startBenchServer(): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-netcode-'));
  const data = join(dir, 'data');
  mkdirSync(join(data, 'zones'), { recursive: true });
  for (const f of ['spells.json', 'mobs.json', 'character.json', 'progression.json', 'rules.json'])
    copyFileSync(join(ROOT, 'data/test', f), join(data, f));
  for (const z of BENCH_ZONES)
    writeFileSync(join(data, 'zones', `${z.name.toLowerCase()}.json`), JSON.stringify(z));
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'netcode.db')}`,
      DATA_DIR: data,
      LOG_LEVEL: 'silent',
      SRP_WORKERS: '1',
      LINGER_MS: '0',
      COMBAT_LINGER_MS: '0',
      LAB_FEED: 'off',
      SHUTDOWN_TIMEOUT_MS: '2000',
    },
    [],
  );
  let handle: WyvernHandle;
  try {
    handle = await startWyvern(config, { seed: 1 });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const records = new Map<number, ServerRecord>();
  const realm = handle.realm;
  const runTick = realm.runTick.bind(realm);
  // Read after each tick, as the lab feed is: what the world holds once its tick is done.
  realm.runTick = () => {
    runTick();
    for (const [id, record] of records) {
      const found = findPlayer(handle, id);
      if (found) record.observe(found.player, found.zone, realm.zones.get(found.zone)!.world.now);
    }
  };
  return {
    handle,
    url: `ws://127.0.0.1:${handle.httpPort}/ws`,
    track(id) {
      const record = new ServerRecord();
      records.set(id, record);
      return record;
    },
    untrack(id) {
      records.delete(id);
    },
    player(id) {
      return findPlayer(handle, id)?.player;
    },
    kill(id) {
      const found = findPlayer(handle, id);
      if (!found) throw new Error(`no player ${id} to kill`);
      const hosts = [...realm.zones.values()];
      const world = hosts.find((h) => h.world.zone.name === found.zone)!.world;
      applyDamage(world, null, found.player, 0, found.player.health, false);
    },
    async stop() {
      try {
        await handle.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** One client as the page runs it, without the drawing. */
export class BenchClient {
  private readonly pings = new PingPace();
  private last = performance.now();

  private constructor(
    readonly world: ClientWorld,
    readonly client: WyvernClient,
    readonly lab: LinkLabTransport,
  ) {}

  /**
   * Connects over `link` (the link lab's randomness seeded with `seed`), registers an account,
   * makes the character `name` and enters the world.
   */
  static async join(url: string, name: string, link: LinkSettings, seed: number): Promise<BenchClient> {
    const socket = await WebSocketTransport.connect(url, WebSocket as unknown as WebSocketConstructorLike);
    const lab = new LinkLabTransport(
      socket,
      { ...link },
      () => {},
      () => performance.now(),
      mulberry32(seed),
    );
    const world = new ClientWorld();
    const client = pageClient(lab, {
      world: world.view,
      onPacket: (n, value) => world.apply({ name: n, value } as Incoming, performance.now()),
      // A bug in a handler is the bench's failure, not something to log and walk past.
      onHandlerError: (err) =>
        queueMicrotask(() => {
          throw err;
        }),
    });
    await client.hello({ clientKind: 'bot', clientName: 'bench-netcode' });
    client.startClockSync(PING_INTERVAL_MS);
    const account = name.toLowerCase();
    const password = `pw-${account}`;
    await client.register(account, password);
    await client.login(account, password);
    const character = await client.createCharacter(name, 1);
    world.selfAppearance = character.appearance;
    await client.enterWorld(character.id);
    return new BenchClient(world, client, lab);
  }

  get entityId(): number {
    return this.world.self!.id;
  }

  /** The frame time the page would give this frame (ms since the last, at most 100). */
  frameMs(now: number): number {
    return Math.min(100, now - this.last);
  }

  /**
   * One frame of the page's loop: predict and send the own movement, then bring the world up
   * to `now`. `dir.dtMs` walks less than the frame (the lab's walk home lands on its spot).
   */
  frame(now: number, dir: Direction & { dtMs?: number }): void {
    const dt = dir.dtMs ?? this.frameMs(now);
    this.last = now;
    const self = this.world.self;
    const me = this.world.selfEntity();
    const client = this.client;
    if (self && me && !client.isClosed) {
      if (me.alive) self.predictor.step(dir.x, dir.y, dt);
      self.predictor.takeInput(client.clock.now(), (s) =>
        client.sendMove(s.x, s.y, s.facing, s.moving, s.speed),
      );
    }
    this.world.prune(now);
    if (!client.isClosed) this.pings.update(client);
  }

  close(): void {
    this.client.close('bench done');
  }
}

export interface GroupOptions {
  readonly mover: { name: string; link: LinkSettings };
  readonly watchers: readonly { name: string; link: LinkSettings }[];
  readonly walk: readonly BenchLeg[];
  /** Frames driven with everyone standing before the walk: the clocks settle. */
  readonly settleMs: number;
  /** Frames driven after the walk: the watchers' drawn time catches up with its end. */
  readonly tailMs: number;
  /** Character names are made from it (letters only), so groups on one server differ. */
  readonly tag: string;
  readonly seed: number;
  /** Keep the record and every frame in the result, for a closer look. */
  readonly trace?: boolean;
}

export interface GroupTrace {
  record: ServerRecord;
  mover: MoverFrame[];
  watchers: WatcherFrame[][];
}

export interface GroupResult {
  mover: string;
  moverFigures: MoverFigures;
  pairs: { watcher: string; figures: PairFigures }[];
  events: TruthEvent[];
  /** The most the server held the mover's inputs (ms): what its watchers pay for its link. */
  heldMs: number;
  /** The mover's inputs that came later than their time (a stall beyond the server's window). */
  lateInputs: number;
  /** How long the group took, logins included (ms). */
  ms: number;
  trace?: GroupTrace;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The walk's direction `elapsed` ms in (standing before it and after it; it does not loop). */
function walkDirection(walk: readonly BenchLeg[], elapsed: number): Direction {
  return elapsed < 0 || elapsed >= walkPeriod(walk) ? STAND : scriptedDirection(walk, elapsed);
}

/** Start times (ms into the walk) of the legs that kill the mover. */
function killTimes(walk: readonly BenchLeg[]): number[] {
  const out: number[] = [];
  let t = 0;
  for (const l of walk) {
    if (l.kill) out.push(t);
    t += l.ms;
  }
  return out;
}

/** One mover on its link, watched by one watcher per link, through the whole walk. */
export async function runGroup(server: BenchServer, o: GroupOptions): Promise<GroupResult> {
  const started = performance.now();
  const mover = await BenchClient.join(server.url, `Mover${o.tag}`, o.mover.link, o.seed);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const watchers: BenchClient[] = [];
  try {
    watchers.push(
      ...(await Promise.all(
        o.watchers.map((w, i) =>
          BenchClient.join(server.url, `Watch${o.tag}${letters[i]}`, w.link, o.seed + 1 + i),
        ),
      )),
    );
    const moverId = mover.entityId;
    const record = server.track(moverId);
    const watcherFrames: WatcherFrame[][] = watchers.map(() => []);
    const unseen = watchers.map(() => 0);
    const moverFrames: MoverFrame[] = [];
    const kills = killTimes(o.walk);
    let correctionsAtRespawn: number | undefined;
    let wasAlive = true;
    const walkStart = performance.now() + o.settleMs;
    const end = walkStart + walkPeriod(o.walk) + o.tailMs;
    let next = performance.now();
    for (;;) {
      next += FRAME_MS;
      await sleep(Math.max(0, next - performance.now()));
      const now = performance.now();
      if (now >= end) break;
      const elapsed = now - walkStart;
      while (kills.length > 0 && elapsed >= kills[0]!) {
        kills.shift();
        server.kill(moverId);
      }
      mover.frame(now, walkDirection(o.walk, elapsed));
      const me = mover.world.selfEntity();
      if (me && !wasAlive && me.alive) correctionsAtRespawn ??= mover.world.self!.predictor.corrections;
      wasAlive = me?.alive ?? wasAlive;
      watchers.forEach((w) => w.frame(now, STAND));
      if (elapsed < 0) continue;
      if (me) {
        const p = mover.world.drawnPosition(me, now);
        const found = server.player(moverId);
        moverFrames.push({
          at: now,
          x: p.x,
          y: p.y,
          server: found && {
            x: found.x,
            y: found.y,
            moving: found.moving,
            alive: found.alive,
          },
          alive: me.alive,
          respawned: correctionsAtRespawn !== undefined,
        });
      }
      watchers.forEach((w, i) => {
        const e = w.world.entities.get(moverId);
        if (!e) {
          unseen[i]!++;
          return;
        }
        const p = w.world.drawnPosition(e, now);
        // The time this frame draws remote entities at (drawnPosition read the same clock).
        const t = w.world.clock.renderTime(now);
        watcherFrames[i]!.push({ t, serverNow: w.world.clock.serverNow(now), x: p.x, y: p.y });
      });
    }
    server.untrack(moverId);
    const corrections = mover.world.self?.predictor.corrections ?? 0;
    return {
      mover: o.mover.name,
      moverFigures: moverFigures(
        moverFrames,
        corrections,
        correctionsAtRespawn === undefined ? 0 : corrections - correctionsAtRespawn,
      ),
      pairs: o.watchers.map((w, i) => ({
        watcher: w.name,
        figures: figures(record, watcherFrames[i]!, unseen[i]!),
      })),
      events: record.events,
      heldMs: record.heldMax,
      lateInputs: record.late,
      ms: performance.now() - started,
      ...(o.trace && { trace: { record, mover: moverFrames, watchers: watcherFrames } }),
    };
  } finally {
    mover.close();
    watchers.forEach((w) => w.close());
  }
}
