/**
 * Before login a WebSocket connection may send only what the login packets need in one
 * message (LOGIN_MESSAGE_SIZE): a longer message is refused as its fragments arrive, not
 * buffered up to WS_MAX_MESSAGE_SIZE until the login deadline. Once logged in, the ws engine
 * takes messages up to WS_MAX_MESSAGE_SIZE; uWebSockets.js, whose limit is per route, keeps
 * the login bound.
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
  closed: Promise<number>;
  pongs: () => number;
}

async function open(port: number): Promise<Socket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { perMessageDeflate: false });
  ws.on('error', () => {});
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
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

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const engines = ['ws', ...(loadNativeUws().uws ? ['uws'] : [])] as const;

describe.each(engines)('WebSocket message size over %s', (engine) => {
  const env = { WS_ENGINE: engine, RATE_DEFAULT: '1000', RATE_DEFAULT_BURST: '1000' };

  it('refuses a message longer than the login packets need before login, as its fragments arrive', async () => {
    const s = await open(await start(env));
    await s.client.hello({ clientKind: 'bot', clientName: 'big' });
    const half = new Uint8Array(Math.ceil(LOGIN_MESSAGE_SIZE * 0.8));
    // The first fragment fits: nothing happens yet.
    s.ws.send(half, { binary: true, fin: false });
    expect(await openFor(s, 300)).toBe(true);
    // The second takes the message over the bound: closed at once (ws says 1009, message too
    // big; uWS drops the socket), long before a 256 KB message could have been gathered.
    s.ws.send(half, { binary: true, fin: false });
    const code = await Promise.race([s.closed, new Promise((r) => setTimeout(() => r('open'), 3000))]);
    expect(code).toBe(engine === 'ws' ? 1009 : 1006);
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

  if (engine === 'ws') {
    it('takes messages up to WS_MAX_MESSAGE_SIZE once logged in', async () => {
      const s = await open(await start(env));
      await s.client.hello({ clientKind: 'bot', clientName: 'later' });
      await s.client.register('later', 'a password');
      await s.client.login('later', 'a password');
      // Several times the login bound, in one message.
      s.ws.send(pings(300), { binary: true });
      await until(() => s.pongs() === 300);
      expect(await openFor(s, 100)).toBe(true);
    });
  }
});
