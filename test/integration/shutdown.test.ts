/** Graceful stop: Bye to every client, shutdown hooks awaited, sockets closed, ports released. */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LoginStart } from '../../shared/protocol/account.js';
import { Hello, Ping } from '../../shared/protocol/session.js';
import { framesIn } from '../../server/metrics/index.js';
import { closedWithin, connectRaw, hello } from '../helpers/raw-client.js';
import { startTestServer, stopTestServers } from './harness.js';

afterEach(stopTestServers);

describe.each(['uws', 'ws'] as const)('shutdown with the %s engine', (engine) => {
  it('sends Bye to all, runs hooks before closing, and stops accepting', async () => {
    const server = await startTestServer({ WS_ENGINE: engine });
    const tcp = await connectRaw('tcp', server.tcpPort);
    const ws = await connectRaw('ws', server.httpPort);
    for (const c of [tcp, ws]) {
      c.send(Hello, hello());
      await c.waitFor('Welcome');
    }
    const events: string[] = [];
    server.onShutdown('save', async () => {
      await new Promise((r) => setTimeout(r, 20));
      events.push(`save ran with ${server.dispatcher.sessions.size} open`);
    });
    server.onShutdown('broken', () => {
      throw new Error('ignored');
    });
    await server.stop();
    await Promise.all([closedWithin(tcp), closedWithin(ws)]);
    expect(events).toEqual(['save ran with 2 open']);
    for (const c of [tcp, ws]) {
      const bye = c.frames.at(-1)!;
      expect(bye).toMatchObject({ name: 'Bye', payload: { reason: 'shutdown' } });
    }
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port: server.tcpPort });
      s.on('connect', () => resolve(false));
      s.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});

it('sends nothing after Bye: a request that crosses it is not answered', async () => {
  const server = await startTestServer();
  const tcp = await connectRaw('tcp', server.tcpPort);
  tcp.send(Hello, hello());
  await tcp.waitFor('Welcome');
  const before = { login: framesIn.get('LoginStart'), ping: framesIn.get('Ping') };
  // The client answers Bye with a login and a ping, as one that had them on their way would;
  // the server holds its shutdown (a final save) until both have arrived.
  void tcp.waitFor('Bye').then(() => {
    tcp.send(LoginStart, { account: 'late_comer', deviceToken: new Uint8Array(0) });
    tcp.send(Ping, { seq: 1, clientTime: 0 });
  });
  server.onShutdown('final save', async () => {
    const deadline = Date.now() + 5000;
    while (framesIn.get('LoginStart') === before.login || framesIn.get('Ping') === before.ping) {
      if (Date.now() > deadline) throw new Error('the requests after Bye never arrived');
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  await server.stop();
  await closedWithin(tcp);
  expect(framesIn.get('LoginStart')).toBe(before.login + 1);
  expect(tcp.frames.map((f) => f.name)).toEqual(['Welcome', 'Bye']);
});

it('stop() twice is the same stop', async () => {
  const server = await startTestServer();
  const a = server.stop();
  expect(server.stop()).toBe(a);
  await a;
});
