/**
 * The page's connection to the game server: a WebSocket at /ws on the page's own host
 * (wss:// when the page came over https), the link lab between it and the client SDK, and
 * every decoded packet handed to the world. Everything the UI asks of the server goes
 * through `client` (the SDK's WyvernClient); this file only wires the pieces.
 *
 * The demo world goes through the same WyvernClient (pageClient), so a demo and a real
 * server reach the page by one path: the SDK decodes, keeps the page's WorldView up to date,
 * then hands each packet to the page.
 */
import { WyvernClient, type ResumeResult } from '../../../shared/client/client.js';
import { reconnect, type ReconnectEvent, type ReconnectOptions } from '../../../shared/client/reconnect.js';
import type { ByteTransport } from '../../../shared/client/transport.js';
import { WebSocketTransport } from '../../../shared/client/websocket-transport.js';
import type { WorldView } from '../../../shared/client/world-view.js';
import { CLEAN_LINK, type LinkSettings } from '../state/link-lab.js';
import { LinkLabTransport, type FrameObserver } from './link-lab-transport.js';

export const CLIENT_NAME = 'wyvern-web';

/**
 * Pings keep the clock in sync; about 40 bytes each way per Ping. (How far the server's stream
 * has come is told by WorldUpdates, every tick while another player is in view.)
 */
export const PING_INTERVAL_MS = 2000;

/** Starts the page's pings once per connection. */
export class PingPace {
  private client: WyvernClient | undefined;

  update(client: WyvernClient): void {
    if (client === this.client || client.isClosed) return;
    this.client = client;
    client.startClockSync(PING_INTERVAL_MS);
  }
}

/** ws(s)://host/ws for the page at `location`. */
export function gameSocketUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

/** The gateways a gateway's /healthz lists (a single server lists none). */
export interface ClusterGateways {
  gateways?: readonly { id: string; host: string; httpPort?: number }[];
}

export type PageLocation = { protocol: string; host: string; hostname: string; port: string };

/**
 * Where to reconnect, in order: the page's own gateway first (a blip), then every other
 * gateway of the cluster. A gateway on the same machine as the page's (the same advertised
 * host) is reached by the page's hostname, which the browser already resolves; one elsewhere
 * by its advertised host.
 */
export function gatewaySocketUrls(loc: PageLocation, cluster: ClusterGateways | undefined): string[] {
  const own = gameSocketUrl(loc);
  const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  const pagePort = Number(loc.port || (loc.protocol === 'https:' ? 443 : 80));
  const gateways = cluster?.gateways ?? [];
  const self = gateways.find((g) => g.httpPort === pagePort);
  const urls = [own];
  for (const g of gateways) {
    if (g === self || g.httpPort === undefined) continue;
    const host = self && g.host === self.host ? loc.hostname : g.host;
    const url = `${scheme}//${host.includes(':') ? `[${host}]` : host}:${g.httpPort}/ws`;
    if (!urls.includes(url)) urls.push(url);
  }
  return urls;
}

/** The cluster's gateways as the page's own gateway lists them; undefined when it cannot tell. */
export async function fetchClusterGateways(): Promise<ClusterGateways | undefined> {
  try {
    const r = await fetch('/healthz', { signal: AbortSignal.timeout(3000) });
    if (!r.ok) return undefined;
    const health = (await r.json()) as { cluster?: ClusterGateways };
    return health.cluster;
  } catch {
    return undefined;
  }
}

export interface Connection {
  client: WyvernClient;
  lab: LinkLabTransport;
}

export interface PageClientOptions {
  /** The page's entity store: the client keeps it up to date. */
  world: WorldView;
  /** Every packet the SDK decoded, after its own bookkeeping (the world view is current). */
  onPacket: (name: string, payload: unknown) => void;
  onClose?: (reason: string) => void;
  /** A packet handler threw (default: logged, so a bug in one does not take the page down). */
  onHandlerError?: (err: unknown) => void;
}

/** A WyvernClient over `transport` that keeps the page's world view and reports every packet. */
export function pageClient(transport: ByteTransport, options: PageClientOptions): WyvernClient {
  const client = new WyvernClient(transport, {
    world: options.world,
    onHandlerError: options.onHandlerError ?? ((err) => console.error('packet handler failed', err)),
  });
  client.onPacket = (name, payload) => options.onPacket(name, payload);
  const onClose = options.onClose;
  if (onClose) client.onClose = (reason) => onClose(reason);
  return client;
}

/** Opens a byte transport to a game socket URL (default: a browser WebSocket). */
export type OpenSocket = (url: string) => Promise<ByteTransport>;

export interface ConnectOptions extends PageClientOptions {
  url?: string;
  open?: OpenSocket;
  link?: LinkSettings;
  observe: FrameObserver;
  onClose: (reason: string) => void;
}

/** Opens the socket, says Hello and starts clock sync; rejects with words for a person. */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const lab = await openLink(options);
  const client = pageClient(lab, options);
  await client.hello({ clientKind: 'browser', clientName: CLIENT_NAME });
  client.startClockSync(PING_INTERVAL_MS);
  return { client, lab };
}

async function openLink(options: ConnectOptions): Promise<LinkLabTransport> {
  const url = options.url ?? gameSocketUrl(location);
  const socket = await (options.open ? options.open(url) : WebSocketTransport.connect(url));
  return new LinkLabTransport(socket, options.link ?? CLEAN_LINK, options.observe);
}

export interface ResumeOptions extends ConnectOptions {
  /**
   * Where to try, attempt after attempt in turn (gatewaySocketUrls): a killed gateway's
   * players resume on another. Default: `url`, or the page's own.
   */
  urls?: readonly string[];
  account: string;
  token: Uint8Array;
  /** Tries before giving up (the first at once, then with growing delays). */
  maxAttempts: number;
  onEvent?: (event: ReconnectEvent) => void;
  /** The SDK's backoff between attempts (its defaults: 250 ms doubling up to 8 s, jittered). */
  backoff?: Pick<ReconnectOptions, 'baseDelayMs' | 'maxDelayMs' | 'random' | 'sleep'>;
}

/**
 * A new connection that resumes the account with `token` (after a reload or a drop), with
 * backoff; back in the world when `result.entered` is set. Rejects with the last failure.
 */
export async function resumeConnection(
  options: ResumeOptions,
): Promise<Connection & { result: ResumeResult }> {
  const labs = new Map<WyvernClient, LinkLabTransport>();
  const urls = options.urls?.length ? options.urls : [options.url ?? gameSocketUrl(location)];
  let attempt = 0;
  const back = await reconnect({
    connect: () => openLink({ ...options, url: urls[attempt++ % urls.length] }),
    account: options.account,
    token: options.token,
    clientKind: 'browser',
    clientName: CLIENT_NAME,
    maxAttempts: options.maxAttempts,
    onEvent: options.onEvent,
    ...options.backoff,
    clientOptions: {
      world: options.world,
      onHandlerError: options.onHandlerError ?? ((err) => console.error('packet handler failed', err)),
    },
    // Packets reach the page from the first (the character's state comes right after Resumed);
    // the close is the page's business only once this client is the one it plays through.
    prepare: (client) => {
      labs.set(client, client.transport as LinkLabTransport);
      client.onPacket = (name, payload) => options.onPacket(name, payload);
    },
  });
  const client = back.client;
  const onClose = options.onClose;
  client.onClose = (reason) => onClose(reason);
  if (client.isClosed) onClose(client.closeReason ?? 'closed');
  client.startClockSync(PING_INTERVAL_MS);
  return { client, lab: labs.get(client)!, result: back.result };
}
