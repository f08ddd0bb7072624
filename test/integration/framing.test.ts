/** Frames over a real TCP stream: split at every byte, and many in one write. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hello, Ping } from '../../shared/protocol/session.js';
import type { ServerHandle } from '../../server/main.js';
import { connectRaw, hello } from '../helpers/raw-client.js';
import { startTestServer, stopTestServers } from './harness.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('framing over TCP', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startTestServer({ RATE_DEFAULT_BURST: '100' });
  });
  afterAll(stopTestServers);

  it('reassembles frames written one byte at a time', async () => {
    const c = await connectRaw('tcp', server.tcpPort);
    const bytes = concat([Hello.encode(hello()), Ping.encode({ seq: 42, clientTime: 3.25 })]);
    for (const byte of bytes) {
      c.sendRaw(Uint8Array.of(byte));
      await wait(1);
    }
    const pong = await c.waitFor('Pong');
    expect(pong.payload).toMatchObject({ seq: 42, clientTime: 3.25 });
    expect(c.frames.map((f) => f.name)).toEqual(['Welcome', 'Pong']);
    c.close();
  });

  it('splits many frames that arrive in one write', async () => {
    const c = await connectRaw('tcp', server.tcpPort);
    const pings = Array.from({ length: 50 }, (_, i) => Ping.encode({ seq: i, clientTime: i }));
    c.sendRaw(concat([Hello.encode(hello()), ...pings]));
    for (let i = 0; i < 50; i++) await c.waitFor('Pong');
    expect(c.frames.filter((f) => f.name === 'Pong').map((f) => f.payload.seq)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
    c.close();
  });

  it('accepts several whole frames in one WebSocket message', async () => {
    const c = await connectRaw('ws', server.httpPort);
    c.sendRaw(
      concat([
        Hello.encode(hello()),
        Ping.encode({ seq: 1, clientTime: 0 }),
        Ping.encode({ seq: 2, clientTime: 0 }),
      ]),
    );
    await c.waitFor('Pong');
    await c.waitFor('Pong');
    expect(c.frames.map((f) => f.name)).toEqual(['Welcome', 'Pong', 'Pong']);
    c.close();
  });
});
