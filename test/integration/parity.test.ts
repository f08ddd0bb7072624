/**
 * One scripted session over raw TCP, over WebSocket on uWebSockets.js and over WebSocket on
 * `ws` gives the same decoded server stream (times and ids normalized).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListCharacters } from '../../shared/protocol/character.js';
import { PROTOCOL_VERSION } from '../../shared/protocol/common.js';
import { Hello, Ping } from '../../shared/protocol/session.js';
import type { ServerHandle } from '../../server/main.js';
import { loadNativeUws } from '../../server/transport/web.js';
import {
  closedWithin,
  connectRaw,
  hello,
  type RawClient,
  type ReceivedFrame,
} from '../helpers/raw-client.js';
import { startTestServer, stopTestServers } from './harness.js';

const hasUws = loadNativeUws().uws !== undefined;

function normalize(frames: readonly ReceivedFrame[]): unknown[] {
  return frames.map(({ name, payload }) => {
    const p: Record<string, unknown> = { ...payload };
    if ('serverTime' in p) p.serverTime = 'TIME';
    if ('connectionId' in p) p.connectionId = 'ID';
    return { name, payload: p };
  });
}

function badCrc(frame: Uint8Array): Uint8Array {
  const out = frame.slice();
  out[4] = out[4]! ^ 0xff;
  return out;
}

/** Hello, Ping, Ping, a packet not allowed in this state, then a bad-CRC frame. */
async function scriptA(c: RawClient): Promise<unknown[]> {
  c.send(Hello, hello('parity'));
  await c.waitFor('Welcome');
  c.send(Ping, { seq: 1, clientTime: 1.5 });
  await c.waitFor('Pong');
  c.send(Ping, { seq: 2, clientTime: 2.5 });
  await c.waitFor('Pong');
  c.send(ListCharacters, {});
  await c.waitFor('Error');
  // The server has closed by now; the write may race the close and is ignored either way.
  if (!c.isClosed) c.sendRaw(badCrc(Ping.encode({ seq: 3, clientTime: 0 })));
  await closedWithin(c);
  return normalize(c.frames);
}

/** Hello, Ping, then a bad-CRC frame. */
async function scriptB(c: RawClient): Promise<unknown[]> {
  c.send(Hello, hello('parity'));
  c.send(Ping, { seq: 1, clientTime: 1.5 });
  await c.waitFor('Pong');
  c.sendRaw(badCrc(Ping.encode({ seq: 2, clientTime: 2.5 })));
  await closedWithin(c);
  return normalize(c.frames);
}

describe('transport parity', () => {
  let uwsServer: ServerHandle | undefined;
  let wsServer: ServerHandle;

  beforeAll(async () => {
    if (hasUws) uwsServer = await startTestServer({ WS_ENGINE: 'uws' });
    wsServer = await startTestServer({ WS_ENGINE: 'ws' });
  });
  afterAll(stopTestServers);

  const routes = () => {
    const list: [string, 'tcp' | 'ws', number][] = [['tcp', 'tcp', wsServer.tcpPort]];
    if (uwsServer) list.push(['uws', 'ws', uwsServer.httpPort]);
    list.push(['ws', 'ws', wsServer.httpPort]);
    return list;
  };

  it('runs on the native uWebSockets.js build here', () => {
    expect(hasUws).toBe(true);
    expect(uwsServer?.wsEngine).toBe('uws');
    expect(wsServer.wsEngine).toBe('ws');
  });

  it('gives the same stream for hello, pings and a wrong-state packet', async () => {
    const streams: Record<string, unknown[]> = {};
    for (const [name, transport, port] of routes())
      streams[name] = await scriptA(await connectRaw(transport, port));
    expect(streams.tcp).toEqual([
      {
        name: 'Welcome',
        payload: {
          protocolVersion: PROTOCOL_VERSION,
          serverName: 'Wyvern',
          tickRate: 20,
          serverTime: 'TIME',
          connectionId: 'ID',
        },
      },
      { name: 'Pong', payload: { seq: 1, clientTime: 1.5, serverTime: 'TIME' } },
      { name: 'Pong', payload: { seq: 2, clientTime: 2.5, serverTime: 'TIME' } },
      {
        name: 'Error',
        payload: {
          code: 'ERR_WRONG_STATE',
          reason: "ListCharacters is not accepted in state 'login' (only authenticated)",
          opcode: ListCharacters.opcode,
          fatal: true,
        },
      },
    ]);
    for (const name of Object.keys(streams)) expect(streams[name], name).toEqual(streams.tcp);
  });

  it('gives the same stream for a bad CRC', async () => {
    const streams: Record<string, unknown[]> = {};
    for (const [name, transport, port] of routes())
      streams[name] = await scriptB(await connectRaw(transport, port));
    expect(streams.tcp!.map((f: any) => f.name)).toEqual(['Welcome', 'Pong', 'Error']);
    expect((streams.tcp![2] as any).payload).toMatchObject({ code: 'ERR_BAD_CRC', fatal: true });
    for (const name of Object.keys(streams)) expect(streams[name], name).toEqual(streams.tcp);
  });
});
