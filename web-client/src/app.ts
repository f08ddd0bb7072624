/**
 * The page: startApp makes its parts and wires them.
 *
 *   app/screens.ts             which screen shows (log in -> characters -> world) and which follows which
 *   app/connection-manager.ts  connect, log in, the cluster's gateways, resume with backoff, close, log out
 *   app/controls.ts            keys and pointer -> app/actions.ts: cast, chat commands, targets
 *   app/frame-loop.ts          each frame: input -> prediction -> movement states, figures, draw, HUD
 *   app/world-feed.ts          each packet -> figures, world, sound
 *   app/page-views.ts          the screens' DOM; app/test-view.ts window.__wyvern
 *
 * `?demo` swaps the server for the canned DemoServer behind the same link lab and the same
 * WyvernClient; `?net` opens the netcode panel at start.
 *
 * The tab keeps its resume token in sessionStorage (net/resume-store.ts): a reload resumes
 * the session, back in the world in place when the character is still there, and a dropped
 * connection in the world is resumed with backoff; when that fails, the login screen says so.
 */
import type { WyvernClient } from '../../shared/client/client.js';
import { byOpcode } from '../../shared/protocol/registry.js';
import { pageClient } from './net/connection.js';
import { DemoServer } from './net/demo.js';
import { LinkLabTransport, type FrameObserver } from './net/link-lab-transport.js';
import { CLEAN_LINK, type LinkSettings } from './state/link-lab.js';
import { NetStats } from './state/net-stats.js';
import { browserStore, Prefs } from './state/prefs.js';
import { ClientWorld, type Incoming } from './state/world.js';
import type { WorldRenderer } from './render/renderer.js';
import { Guide } from './ui/guide.js';
import { ACTION_SLOTS, Hud } from './ui/hud.js';
import { coveringBoxes } from './ui/layout.js';
import { NetPanel } from './ui/net-panel.js';
import { Sound, soundCues } from './ui/sound.js';
import { Actions } from './app/actions.js';
import { ConnectionManager } from './app/connection-manager.js';
import { Controls } from './app/controls.js';
import { FrameLoop } from './app/frame-loop.js';
import { mountOn, pageViews } from './app/page-views.js';
import { Screens } from './app/screens.js';
import { exposeForTests } from './app/test-view.js';
import { WorldFeed } from './app/world-feed.js';

/** The demo world's client and link (no server, no login). */
interface Demo {
  client: WyvernClient;
  lab: LinkLabTransport;
  server: DemoServer;
}

export async function startApp(
  canvasHost: HTMLElement,
  uiHost: HTMLElement,
  Renderer: typeof WorldRenderer,
): Promise<void> {
  const params = new URLSearchParams(location.search);
  const renderer = new Renderer();
  await renderer.init(canvasHost);
  const world = new ClientWorld();
  const stats = new NetStats();
  const link: LinkSettings = { ...CLEAN_LINK };
  const prefs = new Prefs(browserStore());
  const sound = new Sound(prefs);
  const guide = new Guide(prefs, sound);
  const feed = new WorldFeed(world, stats, soundCues(sound, world));
  const observe: FrameObserver = (dir, opcode, size) =>
    stats.record(dir, byOpcode(opcode)?.name ?? 'unknown', size, performance.now());
  let demo: Demo | undefined;

  const screens = new Screens(mountOn(uiHost));
  const manager = new ConnectionManager({
    world,
    screens,
    link,
    observe,
    onPacket: feed.apply,
    restoreTarget: (id) => feed.restoreTarget(id),
  });
  const live = () => manager.client ?? demo?.client;
  const lab = () => manager.connection?.lab ?? demo?.lab;
  const actions = new Actions({
    world,
    client: live,
    who: () => manager.connection?.client.who(),
    now: () => performance.now(),
  });
  const hud = hudFor(world, actions);
  const panel = netPanel(params, renderer, world, link, lab);
  screens.use(
    pageViews({ world, session: manager, previewBody: (a) => renderer.previewBody(a), hud, panel, guide }),
  );

  const parts: Parts = { world, stats, renderer, hud, panel, screens, manager, live, lab };
  const controls = bindControls(parts, actions, guide);
  startFrames(parts, controls, () => (demo ? 2 * link.latencyMs : undefined), uiHost);

  exposeForTests(() => ({ world, stats, renderer, screen: screens.current, sound }));

  if (params.has('demo')) {
    demo = demoWorld(world, link, observe, feed);
    screens.world();
    demo.server.start();
  } else {
    manager.start();
  }
}

/** The HUD: its action bar casts, its chat box says, whispers back and runs commands. */
function hudFor(world: ClientWorld, actions: Actions): Hud {
  return new Hud({
    cast: (slot) => actions.cast(slot),
    chat: (command) => actions.command(command),
    replyTo: () => world.chatLog.replyTo,
    preview: (slot) => (world.previewSlot = slot),
  });
}

/** The page's parts the controls and the frame loop reach. */
interface Parts {
  world: ClientWorld;
  stats: NetStats;
  renderer: WorldRenderer;
  hud: Hud;
  panel: NetPanel;
  screens: Screens;
  manager: ConnectionManager;
  /** The client the page plays through (the server's or the demo's). */
  live: () => WyvernClient | undefined;
  /** The link lab the page's bytes go through now. */
  lab: () => LinkLabTransport | undefined;
}

/** Keys on the window, clicks on the canvas. */
function bindControls({ screens, hud, panel, renderer }: Parts, actions: Actions, guide: Guide): Controls {
  const controls = new Controls({
    actions,
    slots: ACTION_SLOTS,
    inWorld: () => screens.inWorld,
    guideKey: (e) => guide.key(e),
    togglePanel: () => panel.toggle(),
    focusChat: () => hud.chatInput.focus(),
    chatFocused: () => document.activeElement === hud.chatInput,
    toWorld: (x, y) => renderer.toWorld(x, y),
  });
  controls.bind(window, renderer.canvas);
  return controls;
}

/** The frame loop, on Pixi's ticker. */
function startFrames(
  parts: Parts,
  controls: Controls,
  assumedRtt: () => number | undefined,
  uiHost: HTMLElement,
): void {
  const { manager, screens, renderer } = parts;
  const loop = new FrameLoop(
    {
      ...parts,
      inWorld: () => screens.inWorld,
      client: parts.live,
      connection: () => manager.connection,
      direction: () => controls.direction(),
      rememberTarget: (id) => manager.rememberTarget(id),
      assumedRtt,
      coveringBoxes: () => coveringBoxes(uiHost),
    },
    performance.now(),
  );
  renderer.app.ticker.add(() => loop.frame(performance.now()));
}

/** The netcode panel (open at start with `?net`, as are the ghosts of raw server positions). */
function netPanel(
  params: URLSearchParams,
  renderer: WorldRenderer,
  world: ClientWorld,
  link: LinkSettings,
  lab: () => LinkLabTransport | undefined,
): NetPanel {
  // Ghosts of raw server positions explain the netcode; in plain play they are clutter.
  renderer.overlays.ghosts = params.has('net');
  const panel = new NetPanel(
    { overlays: renderer.overlays, toggles: world.toggles, link },
    {
      setLink: (s) => {
        const l = lab();
        if (l) l.settings = s;
      },
      changed: () => undefined,
    },
  );
  if (params.has('net')) panel.toggle();
  return panel;
}

/** The demo world: the canned DemoServer behind the link lab, through the same client as a server's. */
function demoWorld(world: ClientWorld, link: LinkSettings, observe: FrameObserver, feed: WorldFeed): Demo {
  const server = new DemoServer();
  const lab = new LinkLabTransport(server.transport, link, observe);
  const client = pageClient(lab, {
    world: world.view,
    onPacket: (name, value) => feed.apply({ name, value } as Incoming),
  });
  return { client, lab, server };
}
