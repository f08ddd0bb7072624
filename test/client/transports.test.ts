import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { WyvernClient } from '../../shared/client/client.js';
import { connect, parseAddress } from '../../tools/net/connect.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import { ChatMessage, ChatSend } from '../../shared/protocol/index.js';
import { WebSocketTransport } from '../../shared/client/websocket-transport.js';
import { FakeServer } from './fake-server.js';
import type { ByteTransport } from '../../shared/client/transport.js';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A TCP server on an ephemeral port whose connections are scripted by FakeServer. */
async function tcpServer(): Promise<{ port: number; connections: FakeServer[] }> {
  const connections: FakeServer[] = [];
  const server = net.createServer((socket) =>
    connections.push(new FakeServer(new TcpTransport(socket)).speakSession()),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.close();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as net.AddressInfo).port, connections };
}

/** The same over WebSocket: each binary message is handed to the fake server as bytes. */
async function wsServer(): Promise<{ port: number; connections: FakeServer[] }> {
  const connections: FakeServer[] = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws' });
  wss.on('connection', (socket) => {
    const transport: ByteTransport = {
      send: (bytes) => socket.send(bytes),
      close: () => socket.close(),
      onBytes: () => {},
      onClose: () => {},
    };
    socket.on('message', (data: Buffer) => transport.onBytes(new Uint8Array(data)));
    socket.on('close', () => transport.onClose('closed'));
    connections.push(new FakeServer(transport).speakSession());
  });
  await new Promise<void>((resolve) => wss.on('listening', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  );
  return { port: (wss.address() as net.AddressInfo).port, connections };
}

async function roundTrip(client: WyvernClient, server: () => FakeServer | undefined): Promise<void> {
  cleanups.push(() => client.close());
  const welcome = await client.hello({ clientKind: 'native', clientName: 'transport-test' });
  expect(welcome.serverName).toBe('fake');
  const s = server()!;
  // Coalesced frames from the server and a chat line from the client.
  s.sendRaw(
    new Uint8Array([
      ...ChatMessage.encode({ channel: 'say', fromId: 2, from: 'Bo', to: '', text: 'one' }),
      ...ChatMessage.encode({ channel: 'say', fromId: 2, from: 'Bo', to: '', text: 'two' }),
    ]),
  );
  const texts: string[] = [];
  await new Promise<void>((resolve) =>
    client.on(ChatMessage, (m) => {
      texts.push(m.text);
      if (texts.length === 2) resolve();
    }),
  );
  expect(texts).toEqual(['one', 'two']);
  const said = s.next('ChatSend');
  client.send(ChatSend, { channel: 'say', text: 'hello there' });
  expect((await said).payload).toEqual({ channel: 'say', text: 'hello there' });
  const sample = await client.ping();
  expect(sample.rtt).toBeGreaterThanOrEqual(0);
}

describe('transports', () => {
  it('speaks the protocol over TCP', async () => {
    const { port, connections } = await tcpServer();
    const client = new WyvernClient(await connect(`127.0.0.1:${port}`));
    await roundTrip(client, () => connections[0]);
  });

  it('speaks the protocol over WebSocket with the ws class', async () => {
    const { port, connections } = await wsServer();
    const client = new WyvernClient(await connect(`ws://127.0.0.1:${port}/ws`));
    await roundTrip(client, () => connections[0]);
  });

  it('reports a closed TCP connection to pending requests', async () => {
    const { port, connections } = await tcpServer();
    const client = new WyvernClient(await connect(`tcp://127.0.0.1:${port}`));
    cleanups.push(() => client.close());
    await client.hello({ clientKind: 'native', clientName: 't' });
    const list = client.listCharacters();
    connections[0]!.close();
    await expect(list).rejects.toMatchObject({ code: 'ERR_CLOSED' });
  });

  it('fails to connect with a clear error when nothing listens', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await expect(connect(`127.0.0.1:${port}`)).rejects.toThrow(/cannot connect to 127\.0\.0\.1:\d+/);
    await expect(WebSocketTransport.connect(`ws://127.0.0.1:${port}/ws`, undefined)).rejects.toThrow(
      /cannot connect|no WebSocket/,
    );
  });
});

describe('parseAddress', () => {
  it('reads host:port, tcp://, tls://, ws:// and wss://', () => {
    expect(parseAddress('127.0.0.1:7777')).toMatchObject({
      kind: 'tcp',
      host: '127.0.0.1',
      port: 7777,
      tls: false,
    });
    expect(parseAddress('tls://example.test:7778')).toMatchObject({ kind: 'tcp', tls: true, port: 7778 });
    expect(parseAddress('ws://127.0.0.1:8080/ws')).toMatchObject({
      kind: 'ws',
      url: 'ws://127.0.0.1:8080/ws',
    });
    expect(parseAddress('wss://example.test/ws')).toMatchObject({ kind: 'ws', port: 443, tls: true });
    expect(parseAddress('[::1]:7777')).toMatchObject({ kind: 'tcp', host: '::1', port: 7777 });
    expect(parseAddress('127.0.0.1:8080', 'ws').url).toBe('ws://127.0.0.1:8080/ws');
  });

  it('refuses addresses it cannot read', () => {
    expect(() => parseAddress('localhost')).toThrow(/host:port/);
    expect(() => parseAddress('http://x:1')).toThrow(/unknown address scheme/);
    expect(() => parseAddress('127.0.0.1:99999')).toThrow(/bad port/);
    expect(() => parseAddress('ws://x:1/ws', 'tcp')).toThrow(/not TCP/);
  });
});
