/**
 * The page: screens (log in -> characters -> world), the frame loop (input -> prediction ->
 * movement states through the SDK, then draw), and the wiring between the connection, the
 * world state, the renderer and the HUD. `?demo` swaps the server for the canned DemoServer
 * behind the same link lab and the same WyvernClient; `?net` opens the netcode panel at start.
 *
 * The tab keeps its resume token in sessionStorage (net/resume-store.ts): a reload resumes
 * the session, back in the world in place when the character is still there, and a dropped
 * connection in the world is resumed with backoff; when that fails, the login screen says so.
 *
 * window.__wyvern is a read-only view of what the page shows, for end-to-end tests and for
 * anyone curious in the console.
 */
import type { WyvernClient } from '../../shared/client/client.js';
import { WyvernError } from '../../shared/client/errors.js';
import { CastSpell, ChatSend, ErrorCode, Whisper } from '../../shared/protocol/index.js';
import { byOpcode } from '../../shared/protocol/registry.js';
import {
  connect,
  fetchClusterGateways,
  gatewaySocketUrls,
  pageClient,
  PingPace,
  resumeConnection,
  type ClusterGateways,
  type Connection,
} from './net/connection.js';
import {
  clearSession,
  hexToToken,
  loadSession,
  saveSession,
  tokenToHex,
  type SavedSession,
} from './net/resume-store.js';
import { DemoServer } from './net/demo.js';
import { browserDeviceTokens } from './net/device-store.js';
import { LinkLabTransport, type FrameObserver } from './net/link-lab-transport.js';
import { parseChat } from '../../shared/client/chat-command.js';
import { disconnectText, type ByeValue } from './state/disconnect.js';
import { isMovementKey, isTextEntry, movementFromKeys } from './state/input.js';
import { CLEAN_LINK, type LinkSettings } from './state/link-lab.js';
import { NetStats } from './state/net-stats.js';
import { browserStore, Prefs } from './state/prefs.js';
import { noticeText } from './state/notices.js';
import { ClientWorld, type Incoming } from './state/world.js';
import type { WorldRenderer } from './render/renderer.js';
import { h, fill, errorText } from './ui/dom.js';
import { Guide } from './ui/guide.js';
import { ACTION_SLOTS, Hud } from './ui/hud.js';
import { coveringBoxes } from './ui/layout.js';
import { NetPanel } from './ui/net-panel.js';
import { characterScreen, loginScreen } from './ui/screens.js';
import { Sound, soundCues } from './ui/sound.js';

export type Screen = 'loading' | 'login' | 'characters' | 'world';

const HUD_INTERVAL_MS = 100;
const PANEL_INTERVAL_MS = 250;
/** Resume attempts after a reload (the server is there or not) and after a drop in the world. */
const RELOAD_ATTEMPTS = 3;
const DROP_ATTEMPTS = 6;

export async function startApp(
  canvasHost: HTMLElement,
  uiHost: HTMLElement,
  Renderer: typeof WorldRenderer,
): Promise<void> {
  const params = new URLSearchParams(location.search);
  const demo = params.has('demo');
  const world = new ClientWorld();
  const stats = new NetStats();
  const renderer = new Renderer();
  await renderer.init(canvasHost);

  let screen: Screen = 'loading';
  let connection: Connection | undefined;
  /** The demo world's client (no server, no login). */
  let demoClient: WyvernClient | undefined;
  let lab: LinkLabTransport | undefined;
  /** The player asked to close the connection: its close is no news to report. */
  let loggingOut = false;
  /** The target selected before a reload: selected again once it is in view. */
  let pendingTarget: number | undefined;
  let savedTarget: number | undefined;
  const link: LinkSettings = { ...CLEAN_LINK };
  const held = new Set<string>();

  const prefs = new Prefs(browserStore());
  const sound = new Sound(prefs);
  const guide = new Guide(prefs, sound);
  const cue = soundCues(sound, world);

  const observe: FrameObserver = (dir, opcode, size) =>
    stats.record(dir, byOpcode(opcode)?.name ?? 'unknown', size, performance.now());
  const applyPacket = (p: Incoming) => {
    if (p.name === 'WorldUpdate') stats.recordTick(p.value.tick, p.value.time);
    world.apply(p, performance.now());
    cue(p);
    if (p.name === 'WorldUpdate' && pendingTarget !== undefined) {
      // The first WorldUpdate after a resume spawns everything in view.
      if (world.entities.has(pendingTarget)) world.targetId = pendingTarget;
      pendingTarget = undefined;
    }
  };

  /** The client the page talks through now: the server's, or the demo's. */
  const live = (): WyvernClient | undefined => {
    if (connection && !connection.client.isClosed) return connection.client;
    return demoClient;
  };

  const hud = new Hud({
    cast: (slot) => castSlot(slot),
    chat: (line) => chat(line),
    replyTo: () => world.chatLog.replyTo,
    preview: (slot) => (world.previewSlot = slot),
  });
  // Ghosts of raw server positions explain the netcode; in plain play they are clutter.
  renderer.overlays.ghosts = params.has('net');
  const panel = new NetPanel(
    { overlays: renderer.overlays, toggles: world.toggles, link },
    {
      setLink: (s) => {
        if (lab) lab.settings = s;
      },
      changed: () => undefined,
    },
  );
  if (params.has('net')) panel.toggle();

  const show = (next: Screen, ...content: HTMLElement[]) => {
    screen = next;
    document.body.dataset['screen'] = next;
    fill(uiHost, ...content);
  };

  const showWorld = () => {
    const leave = h(
      'button.leave',
      { type: 'button', name: 'leave', onclick: () => void logout() },
      'Log out',
    );
    const menu = h('nav.menu', {}, guide.helpButton, guide.muteButton, panel.button, leave);
    show('world', hud.root, panel.root, menu, guide.hint, guide.overlay);
  };

  // ---- real server ----------------------------------------------------------------------

  const requireClient = (): WyvernClient => {
    if (!connection || connection.client.isClosed) throw new Error('Not connected to the server.');
    return connection.client;
  };

  /**
   * What one connection reports to the page. A close the player did not ask for, in the world,
   * without a goodbye or a fatal error from the server, is resumed on a new connection.
   */
  const connectionEvents = () => {
    let bye: ByeValue | undefined;
    let fatal: string | undefined;
    return {
      onPacket: (name: string, value: unknown) => {
        if (name === 'Bye') bye = value as ByeValue;
        applyPacket({ name, value } as Incoming);
      },
      onClose: (reason: string) => {
        connection = undefined;
        lab = undefined;
        const saved = loadSession();
        if (loggingOut || bye?.reason === 'takenOver') clearSession();
        if (!loggingOut && !bye && !fatal && saved && screen === 'world') {
          void resume(saved, DROP_ATTEMPTS);
          return;
        }
        world.leave();
        showLogin(loggingOut ? 'Logged out.' : disconnectText(reason, bye, fatal));
        loggingOut = false;
      },
      onError: (err: { fatal: boolean; message: string }) => {
        if (err.fatal) fatal = err.message;
        else if (screen === 'world') world.notice(err.message, performance.now());
      },
    };
  };

  /** The cluster's gateways as last seen, for resuming on another when this page's goes. */
  let gateways: ClusterGateways | undefined;

  const ensureConnected = async (): Promise<WyvernClient> => {
    if (connection && !connection.client.isClosed) return connection.client;
    const events = connectionEvents();
    try {
      connection = await connect({ link, observe, world: world.view, ...events });
    } catch (err) {
      throw new Error(`Cannot reach the game server (${errorText(err)}).`, { cause: err });
    }
    lab = connection.lab;
    connection.client.onError = events.onError;
    void fetchClusterGateways().then((g) => (gateways = g ?? gateways));
    return connection.client;
  };

  /**
   * Resumes the saved session on a new connection: back in the world where the character
   * stands (it stayed there), or at the character screen when it had left. A refusal or no
   * server at all leads to the login screen with the reason.
   */
  const resume = async (saved: SavedSession, maxAttempts: number): Promise<void> => {
    const status = h('p.status', { role: 'status' }, 'Reconnecting…');
    if (screen === 'world') world.notice('Connection lost. Reconnecting…', performance.now());
    else show('loading', h('div.card.login', {}, h('h1', {}, 'Wyvern'), status));
    const events = connectionEvents();
    world.selfAppearance = saved.appearance;
    // Its first WorldUpdate may come in the same chunk as EnterWorld, before this resumes.
    pendingTarget = saved.targetId;
    try {
      // Asked again at each drop (the gateways can change while the page is open); when the
      // page's own gateway is the one gone, the list from while it was up serves.
      gateways = (await fetchClusterGateways()) ?? gateways;
      const urls = gatewaySocketUrls(location, gateways);
      const back = await resumeConnection({
        link,
        observe,
        world: world.view,
        ...events,
        urls,
        account: saved.account,
        token: hexToToken(saved.token),
        maxAttempts,
        onEvent: (e) => {
          if (e.type !== 'waiting' || e.delayMs === 0) return;
          const text = `Reconnecting (attempt ${e.attempt} of ${maxAttempts})…`;
          status.textContent = text;
          if (screen === 'world') world.notice(text, performance.now());
        },
      });
      connection = back;
      lab = back.lab;
      back.client.onError = events.onError;
      saveSession({ account: back.result.account, token: tokenToHex(back.result.resumeToken) });
      if (back.result.entered) {
        showWorld();
        // Back where it stood: the loss is over, and the page says so.
        world.settleNotices(
          (t) => t.startsWith('Connection lost') || t.startsWith('Reconnecting'),
          'Reconnected.',
          performance.now(),
        );
      } else {
        pendingTarget = undefined;
        world.leave();
        showCharacters(back.result.account);
      }
    } catch (err) {
      clearSession();
      world.leave();
      connection = undefined;
      lab = undefined;
      const refused = err instanceof WyvernError && err.code === ErrorCode.BadResume;
      showLogin(refused ? err.message : `Could not resume the session (${errorText(err)}). Log in again.`);
    }
  };

  const showLogin = (notice?: string) => {
    show(
      'login',
      loginScreen(
        {
          register: async (account, password) => {
            const c = await ensureConnected();
            await c.register(account, password);
          },
          login: async (account, password, onQueue) => {
            const c = await ensureConnected();
            const ok = await c.login(account, password, { onQueue, deviceTokens: browserDeviceTokens() });
            saveSession({ account: ok.account, token: tokenToHex(ok.resumeToken) });
            showCharacters(account);
          },
        },
        notice,
      ),
    );
  };

  const showCharacters = (account: string) => {
    show(
      'characters',
      characterScreen(
        {
          list: () => requireClient().listCharacters(),
          create: (name, appearance) => requireClient().createCharacter(name, appearance),
          preview: (appearance) => renderer.previewBody(appearance),
          remove: (id) => requireClient().deleteCharacter(id),
          play: async (id, appearance) => {
            world.selfAppearance = appearance;
            await requireClient().enterWorld(id);
            saveSession({ appearance });
            showWorld();
          },
          logout: () => {
            loggingOut = true;
            connection?.client.close('logged out');
          },
        },
        account,
      ),
    );
  };

  const logout = async () => {
    if (demo) return;
    const c = connection?.client;
    if (!c) return;
    try {
      await c.logout();
      world.leave();
      showCharacters(c.account ?? '');
    } catch (err) {
      world.notice(errorText(err), performance.now());
    }
  };

  // ---- actions --------------------------------------------------------------------------

  const castSlot = (slot: number) => {
    const spell = world.spells[slot];
    const self = world.self;
    if (!spell || !self) return;
    world.selectedSlot = slot;
    let targetId = world.targetId;
    if (spell.kind === 'heal') {
      const t = targetId !== undefined ? world.entities.get(targetId) : undefined;
      if (!t || t.kind !== 'player') targetId = self.id;
    }
    if (targetId === undefined) {
      world.notice('Select a target first (click it or press Tab).', performance.now());
      return;
    }
    live()?.send(CastSpell, { spellId: spell.id, targetId });
  };

  const chat = (line: string) => {
    const cmd = parseChat(line, { replyTo: world.chatLog.replyTo });
    const now = performance.now();
    switch (cmd.kind) {
      case 'say':
      case 'zone':
        live()?.send(ChatSend, { channel: cmd.kind, text: cmd.text });
        break;
      case 'whisper':
        live()?.send(Whisper, { to: cmd.to, text: cmd.text });
        break;
      case 'who':
        if (connection) {
          connection.client
            .who()
            .then((w) =>
              world.apply(
                {
                  name: 'ChatMessage',
                  value: {
                    channel: 'system',
                    fromId: 0,
                    from: '',
                    to: '',
                    text: `${w.total} online: ${w.players.map((p) => `${p.name} (${p.level}, ${p.zone})`).join(', ')}`,
                  },
                },
                performance.now(),
              ),
            )
            .catch((err: unknown) => world.notice(errorText(err), performance.now()));
        } else {
          world.notice('Nobody else is online in the demo.', now);
        }
        break;
      case 'error':
        world.notice(cmd.message, now);
        break;
      case 'none':
        break;
    }
  };

  // ---- input ----------------------------------------------------------------------------

  // A focused panel checkbox or slider is no reason to stop walking: only text fields type.
  const typing = (e: Event) => isTextEntry(e.target as HTMLInputElement | null);
  window.addEventListener('keydown', (e) => {
    if (e.code === 'F3') {
      e.preventDefault();
      if (screen === 'world') panel.toggle();
      return;
    }
    if (screen !== 'world' || typing(e) || guide.key(e)) return;
    if (isMovementKey(e.code)) {
      held.add(e.code);
      // Also keeps the arrows from moving a focused slider.
      e.preventDefault();
    } else if (e.key === 'Tab') {
      e.preventDefault();
      world.cycleTarget(performance.now());
    } else if (/^Digit[1-9]$/.test(e.code) && Number(e.code.slice(5)) <= ACTION_SLOTS) {
      castSlot(Number(e.code.slice(5)) - 1);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      hud.chatInput.focus();
    } else if (e.key === 'Escape') {
      world.targetId = undefined;
    }
  });
  window.addEventListener('keyup', (e) => held.delete(e.code));
  window.addEventListener('blur', () => held.clear());
  renderer.canvas.addEventListener('pointerdown', (e) => {
    if (screen !== 'world') return;
    const p = renderer.toWorld(e.offsetX, e.offsetY);
    world.targetId = world.entityAt(p.x, p.y, 20, performance.now());
  });

  // ---- frame loop -----------------------------------------------------------------------

  const pings = new PingPace();
  let last = performance.now();
  let hudAt = 0;
  let panelAt = 0;
  renderer.app.ticker.add(() => {
    const now = performance.now();
    const dt = Math.min(100, now - last);
    last = now;
    const self = world.self;
    const client = live();
    if (screen === 'world' && client) {
      const dir = document.activeElement !== hud.chatInput ? movementFromKeys(held) : undefined;
      // The shared send policy decides; the SDK numbers and sends (one MoveInput sequence).
      world.frame(dir, dt, client.clock.now(), (s) => client.sendMove(s.x, s.y, s.facing, s.moving, s.speed));
    }
    world.prune(now);
    if (screen === 'world' && connection && world.targetId !== savedTarget) {
      savedTarget = world.targetId;
      saveSession({ targetId: savedTarget });
    }
    if (connection) pings.update(connection.client);
    stats.entitiesInView = Math.max(0, world.entities.size - (self ? 1 : 0));
    stats.interpolationDelayMs = world.toggles.interpolation ? world.clock.delayMs : 0;
    stats.jitterMs = world.clock.jitterMs;
    stats.correctedMoves = self?.predictor.corrections ?? 0;
    stats.pendingMoves = self?.predictor.pending.length ?? 0;
    stats.rttMs = connection?.client.clock.lastRtt ?? (demo ? 2 * link.latencyMs : undefined);
    renderer.draw(world, now);
    if (screen === 'world' && now - hudAt >= HUD_INTERVAL_MS) {
      hudAt = now;
      hud.update(world, now);
      renderer.hudBoxes = coveringBoxes(uiHost);
    }
    if (screen === 'world' && now - panelAt >= PANEL_INTERVAL_MS) {
      panelAt = now;
      panel.update(stats.snapshot(now), {
        renderer: renderer.rendererName,
        link: lab ? `${lab.up.size + lab.down.size} held · ${lab.up.lost + lab.down.lost} resent` : '–',
      });
    }
  });

  exposeForTests(() => ({ world, stats, renderer, screen, sound }));

  if (demo) {
    const server = new DemoServer();
    lab = new LinkLabTransport(server.transport, link, observe);
    demoClient = pageClient(lab, {
      world: world.view,
      onPacket: (name, value) => applyPacket({ name, value } as Incoming),
    });
    showWorld();
    server.start();
  } else {
    const saved = loadSession();
    if (saved) void resume(saved, RELOAD_ATTEMPTS);
    else showLogin();
  }
}

interface Live {
  world: ClientWorld;
  stats: NetStats;
  renderer: WorldRenderer;
  screen: Screen;
  sound: Sound;
}

function exposeForTests(live: () => Live): void {
  const round = (n: number) => Math.round(n * 100) / 100;
  const view = {
    get screen() {
      return live().screen;
    },
    get selfId() {
      return live().world.self?.id;
    },
    get self() {
      const { world } = live();
      const me = world.selfEntity();
      if (!me) return undefined;
      const p = world.drawnPosition(me, performance.now());
      return {
        id: me.id,
        name: me.name,
        x: round(p.x),
        y: round(p.y),
        health: me.health,
        maxHealth: me.maxHealth,
        alive: me.alive,
        level: me.level,
        experience: world.stats?.experience ?? 0,
        experienceNeeded: world.stats?.experienceNeeded ?? 0,
      };
    },
    /** Level-up bursts drawn now (the own character's and others'). */
    get levelUps() {
      return live().world.levelUps.map((e) => ({ entityId: e.entityId, level: e.level }));
    },
    get entities() {
      const { world } = live();
      const now = performance.now();
      return [...world.entities.values()].map((e) => {
        const p = world.drawnPosition(e, now);
        const raw = world.serverPosition(e, now);
        return {
          id: e.id,
          kind: e.kind,
          name: e.name,
          level: e.level,
          x: round(p.x),
          y: round(p.y),
          serverX: round(raw.x),
          serverY: round(raw.y),
          health: e.health,
          maxHealth: e.maxHealth,
          alive: e.alive,
        };
      });
    },
    get targetId() {
      return live().world.targetId;
    },
    get castBars() {
      const { world } = live();
      const now = performance.now();
      return [...world.casts.values()].map((c) => ({
        casterId: c.casterId,
        spellId: c.spellId,
        targetId: c.targetId,
        progress: c.castTime > 0 ? Math.min(1, (now - c.startedAt) / c.castTime) : 1,
      }));
    },
    get combatTexts() {
      return live().world.combatTexts.map((c) => ({
        targetId: c.targetId,
        amount: c.amount,
        kind: c.kind,
        crit: c.crit,
      }));
    },
    get chat() {
      return live().world.chat.map((c) => ({ channel: c.channel, from: c.from, to: c.to, text: c.text }));
    },
    get notices() {
      return live().world.notices.map(noticeText);
    },
    /** Sound cues played, oldest first (the newest 50). */
    get sounds() {
      return [...live().sound.played];
    },
    get muted() {
      return live().sound.muted;
    },
    /** The part of the canvas the HUD leaves clear, and the camera's zoom. */
    get clearBox() {
      return live().renderer.clearBox;
    },
    get zoom() {
      return live().renderer.zoom;
    },
    /** The own character's newest corrections (PositionCorrection), oldest first. */
    get corrections() {
      return live().world.corrections.map((c) => ({ reason: c.reason, x: round(c.x), y: round(c.y) }));
    },
    get stats() {
      return live().stats.snapshot(performance.now());
    },
    get framesRendered() {
      return live().renderer.framesRendered;
    },
    get renderer() {
      return live().renderer.rendererName;
    },
    /** Where entity `id` is drawn, in canvas pixels (CSS pixels of the page). */
    screenPosition(id: number) {
      const { world, renderer } = live();
      const e = world.entities.get(id);
      if (!e) return undefined;
      const p = world.drawnPosition(e, performance.now());
      const s = renderer.toScreen(p.x, p.y);
      return { x: round(s.x), y: round(s.y) };
    },
    get labelBoxes() {
      return live().renderer.labelBoxes();
    },
    get minimapBox() {
      return live().renderer.minimapBox;
    },
    get respawnIn() {
      return live().world.respawnIn(performance.now());
    },
  };
  Object.defineProperty(window, '__wyvern', {
    value: Object.freeze(view),
    configurable: false,
    writable: false,
  });
}
