/**
 * The netcode lab (`/?lab`): two players against the real server, each through its own link
 * lab, and the server's own view between them, side by side. Player A walks (a scripted
 * square by default, or WASD); player B watches it (or walks with the arrows). The same walk
 * can be replayed under other link settings and with prediction, reconciliation or
 * interpolation switched off, to see what each one does.
 *
 * The lab logs in two throwaway accounts itself (registering them the first time): see
 * LAB_ACCOUNTS. `?lab&a=Name&b=Name` picks other character names.
 *
 * window.__wyvernLab is a read-only view of the lab for end-to-end tests.
 */
import { LabFeedClient, type FeedSnapshot } from './net/lab-feed.js';
import { LabPlayer } from './net/lab-player.js';
import { LabRenderer } from './render/lab-renderer.js';
import { follow, walkCentre, type PaneScene, type Role, type SceneEntity } from './state/lab.js';
import { movementFromKeys } from './state/input.js';
import { MARK_SHOWN_MS, TruthRecord } from './state/truth.js';
import type { LinkSettings } from './state/link-lab.js';
import { PLAYER_SPEED } from '../../shared/game/movement.js';
import { h, fill } from './ui/dom.js';
import { SIDE_PRESETS, playerPane, serverPane, type PlayerControls } from './ui/lab-ui.js';

export const LAB_PASSWORD = 'wyvern-lab-password';
export const LAB_ACCOUNTS = [
  { role: 'A', account: 'lab_player_a', character: 'Labayla', appearance: 1 },
  { role: 'B', account: 'lab_player_b', character: 'Labbram', appearance: 2 },
] as const;

const UI_INTERVAL_MS = 100;
/** How long corrections stay drawn (ms). */
const CORRECTION_SHOWN_MS = 6000;
/** How much of the watched player's drawn path is kept as dots (ms). */
const TRAIL_MS = 2500;

const A_KEYS = new Set(['KeyW', 'KeyA', 'KeyS', 'KeyD']);
const B_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']);

export async function startLab(host: HTMLElement): Promise<void> {
  document.body.dataset['screen'] = 'lab';
  const params = new URLSearchParams(location.search);
  const players = LAB_ACCOUNTS.map(
    (a) =>
      new LabPlayer({
        role: a.role,
        account: a.account,
        password: LAB_PASSWORD,
        character: params.get(a.role.toLowerCase()) ?? a.character,
        appearance: a.appearance,
      }),
  ) as [LabPlayer, LabPlayer];
  const [pa, pb] = players;
  const feed = new LabFeedClient(() => pa.world.self?.name);
  // The server's record of every entity near A, every tick: what each pane's drawing is judged by.
  const record = new TruthRecord();
  feed.onSnapshot = (snap) => record.add(snap);
  let center: { x: number; y: number } | undefined;
  let replays = 0;

  const replay = () => {
    const now = performance.now();
    for (const p of players) {
      p.meter.reset();
      p.truth.reset();
      if (p.driver === 'script') p.replay(now);
    }
    trails.forEach((t) => (t.length = 0));
    replays++;
    // Look at the square the walk is about to make.
    const home = pa.walkHome ?? pa.world.self?.predictor;
    if (home && pa.driver === 'script') {
      const c = walkCentre(pa.script.legs, PLAYER_SPEED);
      center = { x: home.x + c.x, y: home.y + c.y };
    }
  };
  const trails: { x: number; y: number; at: number }[][] = [[], []];

  const header = h(
    'header.lab-header',
    {},
    h('h1', {}, 'Wyvern netcode lab'),
    h(
      'div.lab-sides',
      {},
      h('span', {}, 'links (bad: 200±50 ms + 5% loss):'),
      ...SIDE_PRESETS.map((s) =>
        h(
          'button',
          {
            type: 'button',
            name: 'side-preset',
            'data-preset': s.name,
            title: `A: ${s.a.name}; B: ${s.b.name}; then the walk is replayed`,
            onclick: () => {
              pa.setLink(s.a.link);
              pb.setLink(s.b.link);
              replay();
            },
          },
          s.name,
        ),
      ),
    ),
    h('button', { type: 'button', name: 'replay', onclick: () => replay() }, 'Replay walk'),
    h('a', { href: '/' }, 'back to the game'),
  );
  const controls: PlayerControls[] = players.map((p) => playerPane(p, { replay }));
  const server = serverPane();
  const panes = h(
    'div.lab-panes',
    {},
    (controls[0] as PlayerControls).root,
    server.root,
    (controls[1] as PlayerControls).root,
  );
  fill(host, h('div.lab', {}, header, panes));

  const renderers = [new LabRenderer(), new LabRenderer(), new LabRenderer()] as const;
  const views = [(controls[0] as PlayerControls).view, server.view, (controls[1] as PlayerControls).view];
  await Promise.all(renderers.map((r, i) => r.init(views[i] as HTMLElement)));

  const held = new Set<string>();
  window.addEventListener('keydown', (e) => {
    const a = pa.driver === 'keys' && A_KEYS.has(e.code);
    const b = pb.driver === 'keys' && B_KEYS.has(e.code);
    if (!a && !b) return;
    held.add(e.code);
    // Keeps the arrows from moving a focused slider.
    e.preventDefault();
  });
  window.addEventListener('keyup', (e) => held.delete(e.code));
  window.addEventListener('blur', () => held.clear());

  for (const p of players) void p.start().catch(() => undefined);
  feed.start();

  const roleOf = (id: number): Role | undefined =>
    id === pa.world.self?.id ? 'A' : id === pb.world.self?.id ? 'B' : undefined;

  const playerScene = (p: LabPlayer, i: number, now: number): PaneScene => {
    const w = p.world;
    const entities: SceneEntity[] = [];
    for (const e of w.entities.values()) {
      const at = w.drawnPosition(e, now);
      entities.push({
        id: e.id,
        kind: e.kind,
        name: e.name,
        x: at.x,
        y: at.y,
        facing: at.facing,
        alive: e.alive,
        role: roleOf(e.id) ?? e.kind,
      });
    }
    const me = w.selfEntity();
    const pr = w.self?.predictor;
    const drawnMe = me ? w.drawnPosition(me, now) : undefined;
    const other = players[1 - i] as LabPlayer;
    return {
      zone: w.zone,
      center: center ?? drawnMe ?? { x: 0, y: 0 },
      entities,
      ghost:
        pr && drawnMe
          ? { x: pr.confirmed.x, y: pr.confirmed.y, selfX: drawnMe.x, selfY: drawnMe.y }
          : undefined,
      corrections: w.corrections
        .filter((c) => now - c.at < CORRECTION_SHOWN_MS)
        .map((c) => ({ ...c, age: (now - c.at) / CORRECTION_SHOWN_MS })),
      errors: p.truth.marksAt(now).map((m) => ({ ...m, age: (now - m.at) / MARK_SHOWN_MS })),
      trail: trails[i] as { x: number; y: number }[],
      trailRole: other.role,
      note: !p.ready
        ? p.status
        : w.clock.holding(now)
          ? `link stalled: held ${Math.round(w.clock.renderTime(now) - (w.clock.heard ?? 0))} ms past what was heard`
          : undefined,
    };
  };

  const serverScene = (snap: FeedSnapshot | undefined): PaneScene => {
    const aId = pa.world.self?.id;
    return {
      zone: pa.world.zone,
      center: center ?? snap?.center ?? { x: 0, y: 0 },
      entities: (snap?.entities ?? []).map((e) => ({ ...e, role: roleOf(e.id) ?? e.kind })),
      ghost: undefined,
      corrections: [],
      errors: [],
      trail: aId !== undefined ? (feed.trails.get(aId) ?? []) : [],
      trailRole: 'A',
      note: feed.error ?? (snap ? `tick ${snap.tick}` : 'waiting for the lab feed'),
    };
  };

  let last = performance.now();
  let uiAt = 0;
  let centred = false;
  const frame = () => {
    const now = performance.now();
    const dt = Math.min(100, now - last);
    last = now;
    const keys = movementFromKeys(held);
    pa.watchId = pb.world.self?.id;
    pb.watchId = pa.world.self?.id;
    pa.frame(now, dt, pa.driver === 'keys' ? filterKeys(held, A_KEYS) : keys);
    pb.frame(now, dt, pb.driver === 'keys' ? filterKeys(held, B_KEYS) : keys);
    for (const p of players) p.truth.settle(record);
    players.forEach((p, i) => {
      const e = p.watchId !== undefined ? p.world.entities.get(p.watchId) : undefined;
      const trail = trails[i] as { x: number; y: number; at: number }[];
      if (e) {
        const at = p.world.drawnPosition(e, now);
        trail.push({ x: at.x, y: at.y, at: now });
      }
      while (trail.length > 0 && (trail[0] as { at: number }).at < now - TRAIL_MS) trail.shift();
    });
    // The panes follow A: as the server has it when the feed flows, else as A predicts it.
    const home = pa.walkHome;
    if (!centred && home) {
      // The first walk: look at its square.
      const c = walkCentre(pa.script.legs, PLAYER_SPEED);
      center = { x: home.x + c.x, y: home.y + c.y };
      centred = true;
    }
    const truth = feed.snapshot?.entities.find((e) => e.id === pa.world.self?.id);
    const focus = truth ?? pa.world.self?.predictor;
    if (focus) center = follow(center, focus);
    renderers[0].draw(playerScene(pa, 0, now));
    renderers[1].draw(serverScene(feed.snapshot));
    renderers[2].draw(playerScene(pb, 1, now));
    if (now - uiAt >= UI_INTERVAL_MS) {
      uiAt = now;
      controls.forEach((c) => c.update(now));
      const s = feed.snapshot;
      fill(
        server.info,
        s
          ? `tick ${s.tick} · ${s.entities.length} entities within ${s.radius} units of ${pa.options.character}`
          : (feed.error ?? 'waiting for the lab feed'),
      );
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);

  exposeForTests({ players, feed, renderers, controls, replay, replays: () => replays });
}

function filterKeys(held: ReadonlySet<string>, keys: ReadonlySet<string>): { x: number; y: number } {
  return movementFromKeys(new Set([...held].filter((k) => keys.has(k))));
}

interface LabLive {
  players: readonly LabPlayer[];
  feed: LabFeedClient;
  renderers: readonly LabRenderer[];
  controls: readonly PlayerControls[];
  replay(): void;
  replays(): number;
}

function exposeForTests(live: LabLive): void {
  const round = (n: number) => Math.round(n * 100) / 100;
  const roundAll = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v])) as T;
  const view = {
    get ready() {
      return live.players.every((p) => p.ready && p.world.self !== undefined);
    },
    get players() {
      const now = performance.now();
      return live.players.map((p) => {
        const me = p.world.selfEntity();
        const at = me ? p.world.drawnPosition(me, now) : undefined;
        const watched = p.watchId !== undefined ? p.world.entities.get(p.watchId) : undefined;
        const seen = watched ? p.world.drawnPosition(watched, now) : undefined;
        return {
          role: p.role,
          status: p.status,
          id: p.world.self?.id,
          name: p.world.self?.name,
          self: at ? { x: round(at.x), y: round(at.y) } : undefined,
          watched: seen && watched ? { id: watched.id, x: round(seen.x), y: round(seen.y) } : undefined,
          corrections: p.world.self?.predictor.corrections ?? 0,
          correctionReasons: p.world.corrections.map((c) => c.reason),
          delayMs: p.world.clock.delayMs,
          jitterMs: p.world.clock.jitterMs,
          truth: {
            window: roundAll(p.truth.figures()),
            run: roundAll(p.truth.runFigures()),
            stops: p.truth.stops.map((s) => ({ id: s.id, overshoot: round(s.overshoot) })),
            waiting: p.truth.waiting,
          },
          steps: {
            frames: p.meter.frames,
            over: p.meter.over,
            max: round(p.meter.max),
            maxRaw: round(p.meter.maxRaw),
          },
          link: { ...p.link },
          jumps: p.jumps.slice(),
          driver: p.driver,
          resent: p.connection ? p.connection.lab.up.lost + p.connection.lab.down.lost : 0,
          bytesIn: p.stats.snapshot(now).totalBytesIn,
        };
      });
    },
    get server() {
      const s = live.feed.snapshot;
      return { count: live.feed.count, error: live.feed.error, tick: s?.tick, entities: s?.entities ?? [] };
    },
    get framesRendered() {
      return live.renderers.map((r) => r.framesRendered);
    },
    get renderer() {
      return live.renderers[0]?.rendererName;
    },
    get plotsDrawn() {
      return live.controls.flatMap((c) => c.plots.map((p) => p.drawn));
    },
    get replays() {
      return live.replays();
    },
    /** Sets a player's link (as its sliders do). */
    setLink(role: 'A' | 'B', link: LinkSettings) {
      live.players.find((p) => p.role === role)?.setLink(link);
    },
    resetMeters() {
      for (const p of live.players) {
        p.meter.reset();
        p.truth.reset();
      }
    },
  };
  Object.defineProperty(window, '__wyvernLab', {
    value: Object.freeze(view),
    configurable: false,
    writable: false,
  });
}
