/**
 * The page's connection to the game server: a WebSocket at /ws on the page's own host
 * (wss:// when the page came over https), the link lab between it and the client SDK, and
 * every decoded packet handed to the world. Everything the UI asks of the server goes
 * through `client` (the SDK's WyvernClient); this file only wires the pieces.
 */
import { WyvernClient } from '../../../shared/client/client.js';
import { WebSocketTransport } from '../../../shared/client/websocket-transport.js';
import { CLEAN_LINK, type LinkSettings } from '../state/link-lab.js';
import { LinkLabTransport, type FrameObserver } from './link-lab-transport.js';

export const CLIENT_NAME = 'wyvern-web';

/** ws(s)://host/ws for the page at `location`. */
export function gameSocketUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

export interface Connection {
  client: WyvernClient;
  lab: LinkLabTransport;
}

export interface ConnectOptions {
  url?: string;
  link?: LinkSettings;
  observe: FrameObserver;
  /** Every packet the SDK decoded, after its own bookkeeping. */
  onPacket: (name: string, payload: unknown) => void;
  onClose: (reason: string) => void;
}

/** Opens the socket, says Hello and starts clock sync; rejects with words for a person. */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const url = options.url ?? gameSocketUrl(location);
  const socket = await WebSocketTransport.connect(url);
  const lab = new LinkLabTransport(socket, options.link ?? CLEAN_LINK, options.observe);
  const client = new WyvernClient(lab, {
    // A bug in a packet handler must not take the page down; it is logged instead.
    onHandlerError: (err) => console.error('packet handler failed', err),
  });
  client.onPacket = (name, payload) => options.onPacket(name, payload);
  client.onClose = (reason) => options.onClose(reason);
  await client.hello({ clientKind: 'browser', clientName: CLIENT_NAME });
  client.startClockSync(2000);
  return { client, lab };
}
