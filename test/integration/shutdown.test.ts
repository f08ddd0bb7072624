/** Graceful stop: Bye to every client, shutdown hooks awaited, sockets closed, ports released. */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Hello } from '../../shared/protocol/session.js';
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

it('stop() twice is the same stop', async () => {
  const server = await startTestServer();
  const a = server.stop();
  expect(server.stop()).toBe(a);
  await a;
});
