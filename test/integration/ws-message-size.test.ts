/**
 * Before login a WebSocket connection may send only what the login packets need in one
 * message (LOGIN_MESSAGE_SIZE); once logged in, messages up to WS_MAX_MESSAGE_SIZE. Both
 * engines refuse a message over the bound before login the same way: the connection is
 * closed with 1009 (Message Too Big). The ws engine does it as the fragment that passes the
 * bound arrives; uWebSockets.js, whose limit is per route, once the message is whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WyvernClient } from '../../shared/client/client.js';
import { WebSocketTransport, type WebSocketLike } from '../../shared/client/websocket-transport.js';
import { Ping } from '../../shared/protocol/session.js';
import { LOGIN_MESSAGE_SIZE } from '../../server/dispatch/dispatcher.js';
import { loadNativeUws } from '../../server/transport/web.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';

const servers: WorldServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(env: Record<string, string>): Promise<number> {
  const world = await startWorldServer(env);
  servers.push(world);
  return world.server.httpPort;
}

interface Socket {
  ws: WebSocket;
  client: WyvernClient;
  closed: Promise<{ code: number; reason: string }>;
  pongs: () => number;
}

async function open(port: number): Promise<Socket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { perMessageDeflate: false });
  ws.on('error', () => {});
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const client = new WyvernClient(new WebSocketTransport(ws as unknown as WebSocketLike));
  client.onError = () => {};
  let pongs = 0;
  client.onPacket = (name) => {
    if (name === 'Pong') pongs++;
  };
  return { ws, client, closed, pongs: () => pongs };
}

function pings(count: number): Uint8Array {
  const one = Ping.encode({ seq: 1, clientTime: 0 });
  const out = new Uint8Array(one.length * count);
  for (let i = 0; i < count; i++) out.set(one, i * one.length);
  return out;
}

function openFor(socket: Socket, ms: number): Promise<boolean> {
  return Promise.race([
    socket.closed.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), ms)),
  ]);
}

/** The close code and reason a socket got, or 'open' if it is still open after `ms`. */
function closeOf(socket: Socket, ms = 3000): Promise<{ code: number; reason: string } | 'open'> {
  return Promise.race([socket.closed, new Promise<'open'>((r) => setTimeout(() => r('open'), ms))]);
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const engines = ['ws', ...(loadNativeUws().uws ? ['uws'] : [])] as const;

describe.each(engines)('WebSocket message size over %s', (engine) => {
  const env = {
    WS_ENGINE: engine,
    RATE_DEFAULT: '100000',
    RATE_DEFAULT_BURST: '100000',
  };

  it('refuses a message over the login bound before login: closed with 1009, Message Too Big', async () => {
    const s = await open(await start(env));
    await s.client.hello({ clientKind: 'bot', clientName: 'big' });
    const one = Ping.encode({ seq: 1, clientTime: 0 }).length;
    // Whole frames, one more than fit within the bound.
    s.ws.send(pings(Math.floor(LOGIN_MESSAGE_SIZE / one) + 1), { binary: true });
    expect(await closeOf(s)).toEqual({ code: 1009, reason: '' });
    expect(s.pongs()).toBe(0);
  });

  it('refuses a fragmented message over the login bound before login, with the same close', async () => {
    const s = await open(await start(env));
    await s.client.hello({ clientKind: 'bot', clientName: 'frag' });
    const half = new Uint8Array(Math.ceil(LOGIN_MESSAGE_SIZE * 0.8));
    // The first fragment fits: nothing happens yet.
    s.ws.send(half, { binary: true, fin: false });
    expect(await openFor(s, 300)).toBe(true);
    s.ws.send(half, { binary: true, fin: false });
    if (engine === 'ws') {
      // ws refuses at the fragment that passes the bound, before the message is whole.
      expect(await closeOf(s)).toEqual({ code: 1009, reason: '' });
      return;
    }
    s.ws.send(new Uint8Array(6), { binary: true, fin: true });
    expect(await closeOf(s)).toEqual({ code: 1009, reason: '' });
  });

  it('takes a message up to the bound before and after login', async () => {
    const s = await open(await start(env));
    await s.client.hello({ clientKind: 'bot', clientName: 'fits' });
    await s.client.register('fits', 'a password');
    await s.client.login('fits', 'a password');
    const count = Math.floor(LOGIN_MESSAGE_SIZE / Ping.encode({ seq: 1, clientTime: 0 }).length);
    s.ws.send(pings(count), { binary: true });
    await until(() => s.pongs() === count);
    expect(await openFor(s, 100)).toBe(true);
  });

  it('takes the largest message WS_MAX_MESSAGE_SIZE allows once logged in', async () => {
    const maxMessage = 64 * 1024;
    const s = await open(await start({ ...env, WS_MAX_MESSAGE_SIZE: String(maxMessage) }));
    await s.client.hello({ clientKind: 'bot', clientName: 'later' });
    await s.client.register('later', 'a password');
    await s.client.login('later', 'a password');
    // As many whole frames as one message may hold: over fifty times the login bound.
    const count = Math.floor(maxMessage / Ping.encode({ seq: 1, clientTime: 0 }).length);
    const batch = pings(count);
    expect(batch.length).toBeGreaterThan(50 * LOGIN_MESSAGE_SIZE);
    s.ws.send(batch, { binary: true });
    await until(() => s.pongs() === count, 10_000);
    expect(await openFor(s, 100)).toBe(true);
  });
});
