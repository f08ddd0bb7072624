/**
 * The page's connection to the game: connecting and logging in, the cluster's gateways as
 * last seen, the tab's saved session (net/resume-store.ts), resuming it with backoff, what a
 * connection's close and errors mean for the page, and logging out.
 *
 * Resuming: after a reload the saved session is resumed with RELOAD_ATTEMPTS tries (the
 * server is there or not); a connection that drops in the world, without a goodbye (Bye) or a
 * fatal error from the server and without the player asking, is resumed with DROP_ATTEMPTS
 * tries, the page's own gateway first and then every other gateway of the cluster, with the
 * SDK's growing, jittered delays between rounds. A refused token ends it at once: the login
 * screen gives the server's reason. Anything else that ends it says so and asks for a login.
 */
import type { CharacterSummary, WyvernClient } from '../../../shared/client/client.js';
import type { DeviceTokenStore } from '../../../shared/client/device-tokens.js';
import { WyvernError } from '../../../shared/client/errors.js';
import { ErrorCode } from '../../../shared/protocol/errors.js';
import {
  connect,
  fetchClusterGateways,
  gameSocketUrl,
  gatewaySocketUrls,
  resumeConnection,
  type ClusterGateways,
  type Connection,
  type OpenSocket,
  type PageLocation,
  type ResumeOptions,
} from '../net/connection.js';
import { browserDeviceTokens } from '../net/device-store.js';
import type { FrameObserver } from '../net/link-lab-transport.js';
import {
  clearSession,
  hexToToken,
  loadSession,
  saveSession,
  tokenToHex,
  type SavedSession,
} from '../net/resume-store.js';
import { disconnectText, type ByeValue } from '../state/disconnect.js';
import type { LinkSettings } from '../state/link-lab.js';
import type { ClientWorld, Incoming } from '../state/world.js';
import { errorText } from '../ui/dom.js';
import type { Screens } from './screens.js';

/** Resume attempts after a reload (the server is there or not) and after a drop in the world. */
export const RELOAD_ATTEMPTS = 3;
export const DROP_ATTEMPTS = 6;

/** What the manager shows of its progress. */
export type ScreenPort = Pick<
  Screens<unknown>,
  'inWorld' | 'login' | 'characters' | 'world' | 'resumed' | 'reconnecting'
>;

/** The page's side of the connection. */
export interface PageSide {
  world: ClientWorld;
  screens: ScreenPort;
  /** The link lab's settings, for every new connection. */
  link: LinkSettings;
  observe: FrameObserver;
  /** Every packet of the connection, in order, after the SDK's own bookkeeping. */
  onPacket(p: Incoming): void;
  /** The target selected before a reload, to select again once the resumed view has it. */
  restoreTarget(id: number | undefined): void;
}

/** Where the page reaches the network and keeps what a tab remembers. */
export interface PageNet {
  /** Where the page came from: its gateway, and how the others are reached. */
  location: PageLocation;
  /** Opens a game socket (default: a browser WebSocket). */
  open?: OpenSocket;
  /** The cluster's gateways as the page's own gateway lists them (undefined: cannot tell). */
  gateways(): Promise<ClusterGateways | undefined>;
  /** The tab's session storage (default: sessionStorage). */
  sessions?: Storage;
  deviceTokens: DeviceTokenStore;
  /** The delays between resume attempts (default: the SDK's). */
  backoff?: ResumeOptions['backoff'];
}

export function browserNet(): PageNet {
  return { location, gateways: fetchClusterGateways, deviceTokens: browserDeviceTokens() };
}

type Resumed = Awaited<ReturnType<typeof resumeConnection>>;

export class ConnectionManager {
  private current: Connection | undefined;
  /** The cluster's gateways as last seen, for resuming on another when this page's goes. */
  private gateways: ClusterGateways | undefined;
  /** The player asked to close the connection: its close is no news to report. */
  private loggingOut = false;
  private savedTarget: number | undefined;

  constructor(
    private readonly page: PageSide,
    private readonly net: PageNet = browserNet(),
  ) {}

  /** The connection now (its client may have just closed). */
  get connection(): Connection | undefined {
    return this.current;
  }

  /** The open client, if there is one. */
  get client(): WyvernClient | undefined {
    const c = this.current?.client;
    return c && !c.isClosed ? c : undefined;
  }

  /** Back where the tab was: its saved session resumed, or the login screen. */
  start(): void {
    const saved = loadSession(this.net.sessions);
    if (saved) void this.resume(saved, RELOAD_ATTEMPTS);
    else this.page.screens.login();
  }

  async register(account: string, password: string): Promise<void> {
    const c = await this.ensureConnected();
    await c.register(account, password);
  }

  async login(account: string, password: string, onQueue: (pos: number, len: number) => void): Promise<void> {
    const c = await this.ensureConnected();
    const ok = await c.login(account, password, { onQueue, deviceTokens: this.net.deviceTokens });
    saveSession({ account: ok.account, token: tokenToHex(ok.resumeToken) }, this.net.sessions);
    this.page.screens.characters(account);
  }

  listCharacters(): Promise<CharacterSummary[]> {
    return this.requireClient().listCharacters();
  }

  createCharacter(name: string, appearance: number): Promise<CharacterSummary> {
    return this.requireClient().createCharacter(name, appearance);
  }

  deleteCharacter(id: number): Promise<void> {
    return this.requireClient().deleteCharacter(id);
  }

  async enter(id: number, appearance: number): Promise<void> {
    this.page.world.selfAppearance = appearance;
    await this.requireClient().enterWorld(id);
    saveSession({ appearance }, this.net.sessions);
    this.page.screens.world();
  }

  /** Log out from the character screen: the connection closes and the login screen says so. */
  close(): void {
    this.loggingOut = true;
    this.current?.client.close('logged out');
  }

  /** Log out from the world: the character leaves (after the server's wait), back to the characters. */
  async leaveWorld(): Promise<void> {
    const c = this.current?.client;
    if (!c) return;
    try {
      await c.logout();
      this.page.world.leave();
      this.page.screens.characters(c.account ?? '');
    } catch (err) {
      this.page.world.notice(errorText(err), performance.now());
    }
  }

  /** Keeps the selected target with the saved session, so that a reload selects it again. */
  rememberTarget(targetId: number | undefined): void {
    if (!this.current || targetId === this.savedTarget) return;
    this.savedTarget = targetId;
    saveSession({ targetId }, this.net.sessions);
  }

  /**
   * Resumes the saved session on a new connection: back in the world where the character
   * stands (it stayed there), or at the character screen when it had left. A refusal or no
   * server at all leads to the login screen with the reason.
   */
  async resume(saved: SavedSession, maxAttempts: number): Promise<void> {
    const say = this.page.screens.reconnecting();
    this.page.world.selfAppearance = saved.appearance;
    // Its first WorldUpdate may come in the same chunk as EnterWorld, before this resumes.
    this.page.restoreTarget(saved.targetId);
    let back: Resumed;
    try {
      back = await this.reconnect(saved, maxAttempts, say);
    } catch (err) {
      this.resumeFailed(err);
      return;
    }
    this.resumed(back);
  }

  private async reconnect(saved: SavedSession, maxAttempts: number, say: (text: string) => void) {
    const events = this.events();
    // Asked again at each drop (the gateways can change while the page is open); when the
    // page's own gateway is the one gone, the list from while it was up serves.
    this.gateways = (await this.net.gateways()) ?? this.gateways;
    const back = await resumeConnection({
      link: this.page.link,
      observe: this.page.observe,
      world: this.page.world.view,
      ...events,
      open: this.net.open,
      urls: gatewaySocketUrls(this.net.location, this.gateways),
      account: saved.account,
      token: hexToToken(saved.token),
      maxAttempts,
      backoff: this.net.backoff,
      onEvent: (e) => {
        if (e.type === 'waiting' && e.delayMs > 0)
          say(`Reconnecting (attempt ${e.attempt} of ${maxAttempts})…`);
      },
    });
    back.client.onError = events.onError;
    return back;
  }

  private resumed(back: Resumed): void {
    const { world, screens } = this.page;
    this.current = back;
    saveSession(
      { account: back.result.account, token: tokenToHex(back.result.resumeToken) },
      this.net.sessions,
    );
    const entered = back.result.entered !== undefined;
    if (!entered) {
      this.page.restoreTarget(undefined);
      world.leave();
    }
    screens.resumed(entered, back.result.account);
    // Back where it stood: the loss is over, and the page says so.
    if (entered) {
      world.settleNotices(
        (t) => t.startsWith('Connection lost') || t.startsWith('Reconnecting'),
        'Reconnected.',
        performance.now(),
      );
    }
  }

  private resumeFailed(err: unknown): void {
    clearSession(this.net.sessions);
    this.page.world.leave();
    this.current = undefined;
    const refused = err instanceof WyvernError && err.code === ErrorCode.BadResume;
    this.page.screens.login(
      refused ? err.message : `Could not resume the session (${errorText(err)}). Log in again.`,
    );
  }

  private requireClient(): WyvernClient {
    const c = this.client;
    if (!c) throw new Error('Not connected to the server.');
    return c;
  }

  private async ensureConnected(): Promise<WyvernClient> {
    if (this.client) return this.client;
    const events = this.events();
    let connection: Connection;
    try {
      connection = await connect({
        link: this.page.link,
        observe: this.page.observe,
        world: this.page.world.view,
        ...events,
        url: gameSocketUrl(this.net.location),
        open: this.net.open,
      });
    } catch (err) {
      throw new Error(`Cannot reach the game server (${errorText(err)}).`, { cause: err });
    }
    this.current = connection;
    connection.client.onError = events.onError;
    void this.net.gateways().then((g) => (this.gateways = g ?? this.gateways));
    return connection.client;
  }

  /** What one connection reports to the page: its packets, its close, its errors. */
  private events() {
    let bye: ByeValue | undefined;
    let fatal: string | undefined;
    return {
      onPacket: (name: string, value: unknown) => {
        if (name === 'Bye') bye = value as ByeValue;
        this.page.onPacket({ name, value } as Incoming);
      },
      onClose: (reason: string) => this.closed(reason, bye, fatal),
      onError: (err: { fatal: boolean; message: string }) => {
        if (err.fatal) fatal = err.message;
        else if (this.page.screens.inWorld) this.page.world.notice(err.message, performance.now());
      },
    };
  }

  /**
   * A connection closed. One the player did not ask to close, in the world, without a goodbye
   * or a fatal error from the server, is resumed on a new connection; any other close leads to
   * the login screen, saying why.
   */
  private closed(reason: string, bye: ByeValue | undefined, fatal: string | undefined): void {
    this.current = undefined;
    const saved = loadSession(this.net.sessions);
    if (this.loggingOut || bye?.reason === 'takenOver') clearSession(this.net.sessions);
    if (!this.loggingOut && !bye && !fatal && saved && this.page.screens.inWorld) {
      void this.resume(saved, DROP_ATTEMPTS);
      return;
    }
    this.page.world.leave();
    this.page.screens.login(this.loggingOut ? 'Logged out.' : disconnectText(reason, bye, fatal));
    this.loggingOut = false;
  }
}
