/**
 * Every kind of bad input gets its error code and a close, while another client on the same
 * server keeps working.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crc16 } from '../../shared/codec/crc16.js';
import { Register } from '../../shared/protocol/account.js';
import { PROTOCOL_VERSION } from '../../shared/protocol/common.js';
import { Hello, Ping, Welcome } from '../../shared/protocol/session.js';
import type { ServerHandle } from '../../server/main.js';
import { closedWithin, connectRaw, hello, type RawClient } from '../helpers/raw-client.js';
import { portFor, startTestServer, stopTestServers } from './harness.js';

/** A frame with a correct CRC around any payload and opcode. */
function rawFrame(opcode: number, payload: Uint8Array, size = payload.length + 6): Uint8Array {
  const f = new Uint8Array(6 + payload.length);
  f.set(payload, 6);
  const crc = crc16(f, 6);
  f.set([size & 0xff, size >> 8, opcode & 0xff, opcode >> 8, crc & 0xff, crc >> 8]);
  return f;
}

const open: RawClient[] = [];
async function connect(server: ServerHandle, transport: 'tcp' | 'ws') {
  const c = await connectRaw(transport, portFor(server, transport));
  open.push(c);
  return c;
}

async function greeted(server: ServerHandle, transport: 'tcp' | 'ws') {
  const c = await connect(server, transport);
  c.send(Hello, hello());
  await c.waitFor('Welcome');
  return c;
}

async function expectFatal(c: RawClient, code: string) {
  const error = await c.waitFor('Error');
  expect(error.payload).toMatchObject({ code, fatal: true });
  await closedWithin(c);
}

async function expectAlive(c: RawClient, seq: number) {
  c.send(Ping, { seq, clientTime: 0 });
  const pong = await c.waitFor('Pong');
  expect(pong.payload.seq).toBe(seq);
}

const cases: { name: string; code: string; greet: boolean; bytes: () => Uint8Array }[] = [
  {
    name: 'an unknown opcode',
    code: 'ERR_UNKNOWN_OPCODE',
    greet: true,
    bytes: () => rawFrame(0x7abc, new Uint8Array(3)),
  },
  {
    name: 'a server-to-client opcode',
    code: 'ERR_UNKNOWN_OPCODE',
    greet: true,
    bytes: () =>
      Welcome.encode({ protocolVersion: 1, serverName: 'x', tickRate: 1, serverTime: 0, connectionId: 1 }),
  },
  {
    name: 'a bad CRC',
    code: 'ERR_BAD_CRC',
    greet: true,
    bytes: () => {
      const f = Ping.encode({ seq: 1, clientTime: 0 });
      f[6] = f[6]! ^ 1;
      return f;
    },
  },
  {
    name: 'a frame size above the limit',
    code: 'ERR_FRAME_SIZE',
    greet: true,
    bytes: () => rawFrame(0x0003, new Uint8Array(4), 2000),
  },
  {
    name: 'a frame size below the header',
    code: 'ERR_FRAME_SIZE',
    greet: false,
    bytes: () => Uint8Array.of(3, 0, 1, 0, 0, 0),
  },
  {
    name: 'a short payload',
    code: 'ERR_SHORT',
    greet: false,
    bytes: () => rawFrame(Hello.opcode, Hello.encode(hello()).subarray(6, 9)),
  },
  {
    name: 'bytes after the last field',
    code: 'ERR_OVERLONG',
    greet: false,
    // Within Hello's largest size: only decoding finds the extra byte.
    bytes: () => {
      const f = Hello.encode(hello());
      const payload = new Uint8Array(f.length - 6 + 1);
      payload.set(f.subarray(6));
      return rawFrame(Hello.opcode, payload);
    },
  },
  {
    name: "a frame larger than its packet's largest encoding",
    code: 'ERR_FRAME_SIZE',
    greet: true,
    bytes: () => rawFrame(Ping.opcode, new Uint8Array(13)),
  },
  {
    name: 'a packet in the wrong state',
    code: 'ERR_WRONG_STATE',
    greet: false,
    bytes: () => Ping.encode({ seq: 1, clientTime: 0 }),
  },
  {
    name: 'a flood over the rate limit',
    code: 'ERR_RATE_LIMITED',
    greet: true,
    bytes: () => {
      const one = Ping.encode({ seq: 1, clientTime: 0 });
      const out = new Uint8Array(one.length * 30);
      for (let i = 0; i < 30; i++) out.set(one, i * one.length);
      return out;
    },
  },
  {
    name: 'another protocol version',
    code: 'ERR_VERSION',
    greet: false,
    bytes: () =>
      Hello.encode({ protocolVersion: PROTOCOL_VERSION + 1, clientKind: 'native', clientName: 'old' }),
  },
];

describe.each(['tcp', 'ws'] as const)('bad input over %s', (transport) => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startTestServer({ MAX_FRAME_SIZE: '1024', RATE_DEFAULT: '1', RATE_DEFAULT_BURST: '10' });
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(stopTestServers);

  it.each(cases)('closes on $name with $code; others keep working', async ({ code, greet, bytes }) => {
    const bystander = await greeted(server, transport);
    const victim = greet ? await greeted(server, transport) : await connect(server, transport);
    victim.sendRaw(bytes());
    await expectFatal(victim, code);
    await expectAlive(bystander, 1);
  });

  it('closes on a WebSocket message that ends inside a frame', async () => {
    if (transport !== 'ws') return;
    const bystander = await greeted(server, transport);
    const victim = await connect(server, transport);
    victim.sendRaw(Hello.encode(hello()).subarray(0, 8));
    await expectFatal(victim, 'ERR_PARTIAL_FRAME');
    await expectAlive(bystander, 2);
  });
});

describe.each(['uws', 'ws'] as const)('WebSocket text messages on %s', (engine) => {
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(stopTestServers);

  it('closes on a text message with ERR_TEXT_MESSAGE; others keep working', async () => {
    const server = await startTestServer({ WS_ENGINE: engine });
    const bystander = await greeted(server, 'ws');
    const victim = await greeted(server, 'ws');
    victim.sendText('hello?');
    await expectFatal(victim, 'ERR_TEXT_MESSAGE');
    await expectAlive(bystander, 1);
  });
});

describe('connection limits and timeouts', () => {
  afterEach(async () => {
    for (const c of open.splice(0)) c.close();
    await stopTestServers();
  });

  it('closes a connection that never says Hello after the handshake timeout', async () => {
    const server = await startTestServer({ HANDSHAKE_TIMEOUT_MS: '200' });
    const silent = await connect(server, 'tcp');
    const bystander = await greeted(server, 'tcp');
    await expectFatal(silent, 'ERR_HANDSHAKE_TIMEOUT');
    await expectAlive(bystander, 1);
  });

  it('refuses connections beyond MAX_CONNECTIONS', async () => {
    const server = await startTestServer({ MAX_CONNECTIONS: '2' });
    const first = await greeted(server, 'tcp');
    await greeted(server, 'ws');
    await expectFatal(await connect(server, 'tcp'), 'ERR_SERVER_FULL');
    await expectAlive(first, 1);
  });

  it('refuses connections beyond MAX_CONNECTIONS_PER_IP', async () => {
    const server = await startTestServer({ MAX_CONNECTIONS_PER_IP: '1' });
    const first = await greeted(server, 'tcp');
    await expectFatal(await connect(server, 'ws'), 'ERR_TOO_MANY_FROM_ADDRESS');
    await expectAlive(first, 1);
  });

  it('answers a handler that throws with ERR_INTERNAL and closes', async () => {
    const server = await startTestServer(
      {},
      {
        handlers: [
          {
            async Register() {
              throw new Error('store unavailable');
            },
          },
        ],
      },
    );
    const bystander = await greeted(server, 'tcp');
    const victim = await greeted(server, 'tcp');
    victim.send(Register, { account: 'bob', salt: new Uint8Array(64), verifier: new Uint8Array(8) });
    await expectFatal(victim, 'ERR_INTERNAL');
    await expectAlive(bystander, 1);
  });
});
