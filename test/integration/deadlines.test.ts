/**
 * What a connection may cost before it proves itself: garbage and impossible headers are
 * refused on arrival (not at the handshake timeout), a connection that only says Hello is
 * closed at the login deadline, and a logged-in connection stays only while it shows life.
 * Every case runs over TCP and over WebSocket on both engines, with a bystander that must
 * notice nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Resume, Resumed } from '../../shared/protocol/account.js';
import { ChatSend } from '../../shared/protocol/chat.js';
import { Hello, Ping } from '../../shared/protocol/session.js';
import { mulberry32 } from '../../shared/game/rng.js';
import type { ServerHandle, StartOptions } from '../../server/main.js';
import { closedWithin, connectRaw, hello, type RawClient } from '../helpers/raw-client.js';
import { startTestServer, stopTestServers } from './harness.js';

/** Stands in for a login: Resume puts the connection in 'authenticated' at once. */
const fakeLogin: StartOptions = {
  handlers: [
    {
      Resume({ session }, { account }) {
        session.accountId = 1;
        session.account = account;
        session.state = 'authenticated';
        session.send(Resumed, { accountId: 1, account, resumeToken: new Uint8Array(32), characterId: 0 });
      },
    },
  ],
};

/** Deadlines far beyond any test's run unless a test shortens one. */
const LONG = { HANDSHAKE_TIMEOUT_MS: '60000', LOGIN_TIMEOUT_MS: '60000', IDLE_TIMEOUT_MS: '60000' };

const open: RawClient[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) c.close();
  await stopTestServers();
});

const variants = [
  { transport: 'tcp', engine: 'auto' },
  { transport: 'ws', engine: 'uws' },
  { transport: 'ws', engine: 'ws' },
] as const;

describe.each(variants)('over $transport ($engine engine)', ({ transport, engine }) => {
  const start = (env: Record<string, string> = {}) =>
    startTestServer({ ...LONG, WS_ENGINE: engine, ...env }, fakeLogin);

  async function connect(server: ServerHandle): Promise<RawClient> {
    const c = await connectRaw(transport, transport === 'tcp' ? server.tcpPort : server.httpPort);
    open.push(c);
    return c;
  }

  async function greeted(server: ServerHandle): Promise<RawClient> {
    const c = await connect(server);
    c.send(Hello, hello());
    await c.waitFor('Welcome');
    return c;
  }

  async function loggedIn(server: ServerHandle, account: string): Promise<RawClient> {
    const c = await greeted(server);
    c.send(Resume, { account, token: new Uint8Array(32) });
    await c.waitFor('Resumed');
    return c;
  }

  async function expectFatal(c: RawClient, codes: string[], timeoutMs = 3000): Promise<void> {
    const error = await c.waitFor('Error', timeoutMs);
    expect(codes).toContain(error.payload.code);
    expect(error.payload.fatal).toBe(true);
    await closedWithin(c, timeoutMs);
  }

  /** Pings with `seq` and waits for its own Pong (other pings may be answered meanwhile). */
  async function expectAlive(c: RawClient, seq: number): Promise<void> {
    c.send(Ping, { seq, clientTime: 0 });
    const answered = () => c.frames.some((f) => f.name === 'Pong' && f.payload.seq === seq);
    for (let waited = 0; !answered() && waited < 3000; waited += 20) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(answered()).toBe(true);
  }

  it('answers 64 random bytes as a first packet with an Error and closes at once', async () => {
    const server = await start();
    const bystander = await greeted(server);
    const rng = mulberry32(0x5eed);
    for (let i = 0; i < 5; i++) {
      const garbage = Uint8Array.from({ length: 64 }, () => Math.floor(rng() * 256));
      const victim = await connect(server);
      victim.sendRaw(garbage);
      // The handshake timeout is a minute: an answer within seconds came on arrival.
      await expectFatal(victim, ['ERR_FRAME_SIZE', 'ERR_UNKNOWN_OPCODE', 'ERR_WRONG_STATE']);
    }
    await expectAlive(bystander, 1);
  });

  it("refuses a header larger than its packet's largest frame without waiting for the payload", async () => {
    const server = await start();
    const bystander = await greeted(server);
    const victim = await greeted(server);
    // Ping is 18 bytes; this header announces 600 and nothing follows it.
    victim.sendRaw(Uint8Array.of(600 & 0xff, 600 >> 8, Ping.opcode, 0));
    await expectFatal(victim, ['ERR_FRAME_SIZE']);
    const error = victim.frames.find((f) => f.name === 'Error')!;
    expect(error.payload.opcode).toBe(Ping.opcode);
    await expectAlive(bystander, 1);
  });

  it('refuses the header of a packet the connection may not send yet', async () => {
    const server = await start();
    const victim = await greeted(server);
    // ChatSend is for characters in the world; the rest of the frame is never sent.
    victim.sendRaw(Uint8Array.of(200, 0, ChatSend.opcode & 0xff, ChatSend.opcode >> 8));
    await expectFatal(victim, ['ERR_WRONG_STATE']);
  });

  it('closes a connection that says Hello and nothing else at the login deadline', async () => {
    const server = await start({ LOGIN_TIMEOUT_MS: '400' });
    const silent = await greeted(server);
    const pinging = await greeted(server);
    const bystander = await loggedIn(server, 'bystander');
    // Pinging is not logging in: both hit the deadline; the logged-in bystander does not.
    let seq = 0;
    const timer = setInterval(() => pinging.send(Ping, { seq: ++seq, clientTime: 0 }), 100);
    try {
      await expectFatal(silent, ['ERR_LOGIN_TIMEOUT']);
      await expectFatal(pinging, ['ERR_LOGIN_TIMEOUT']);
    } finally {
      clearInterval(timer);
    }
    await expectAlive(bystander, 1_000);
  });

  it('closes a silent logged-in connection after the idle timeout while a pinging one stays', async () => {
    const server = await start({ IDLE_TIMEOUT_MS: '500' });
    const silent = await loggedIn(server, 'silent');
    const pinging = await loggedIn(server, 'pinging');
    const greetedOnly = await greeted(server);
    let seq = 0;
    const timer = setInterval(() => pinging.send(Ping, { seq: ++seq, clientTime: 0 }), 100);
    try {
      await expectFatal(silent, ['ERR_IDLE_TIMEOUT']);
      // Three more idle timeouts: the pinging connection is still served.
      await new Promise((r) => setTimeout(r, 1500));
      expect(pinging.isClosed).toBe(false);
      await expectAlive(pinging, 100_000);
    } finally {
      clearInterval(timer);
    }
    // The idle timeout is for logged-in connections; this one is under the login deadline.
    expect(greetedOnly.isClosed).toBe(false);
    await expectAlive(greetedOnly, 2);
  });
});
