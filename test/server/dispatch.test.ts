import { afterEach, describe, expect, it, vi } from 'vitest';
import { crc16 } from '../../shared/codec/crc16.js';
import { FrameDecoder } from '../../shared/codec/frame.js';
import { PROTOCOL_VERSION } from '../../shared/protocol/common.js';
import { ListCharacters } from '../../shared/protocol/character.js';
import { LoginStart, Register, Registered } from '../../shared/protocol/account.js';
import { MoveInput } from '../../shared/protocol/movement.js';
import { Hello, Ping } from '../../shared/protocol/session.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import { byOpcode, type AnyClientPacket } from '../../shared/protocol/registry.js';
import { loadConfig } from '../../server/config.js';
import { Dispatcher } from '../../server/dispatch/dispatcher.js';
import { noWorldRouter, type GameRouter } from '../../server/dispatch/router.js';
import { silentLogger } from '../../server/log.js';
import { composeHandlers, type SessionHandlers } from '../../server/session/handlers.js';
import { handshakeHandlers } from '../../server/session/handshake.js';
import { FlushScheduler } from '../../server/transport/flush.js';
import { connectMemory, type MemoryPeer } from '../../server/transport/memory.js';

const register = { account: 'alice', salt: new Uint8Array(64), verifier: new Uint8Array(8) };
const openPeers: MemoryPeer[] = [];

function server(
  opts: {
    env?: Record<string, string>;
    handlers?: SessionHandlers;
    router?: GameRouter;
    hardLimit?: number;
  } = {},
) {
  const config = loadConfig({ HANDSHAKE_TIMEOUT_MS: '60000', ...opts.env }, []);
  const scheduler = new FlushScheduler(() => {});
  let now = 0;
  const dispatcher = new Dispatcher({
    config,
    handlers: composeHandlers(
      handshakeHandlers({ serverName: 'Test', tickRate: 20, now: () => 1234 }),
      opts.handlers ?? {},
    ),
    router: opts.router ?? noWorldRouter,
    log: silentLogger,
    clock: () => now,
  });
  const connect = (address = '127.0.0.1') => {
    const peer = connectMemory(
      dispatcher,
      { limits: { softLimit: 100, hardLimit: opts.hardLimit ?? 100_000 }, scheduler },
      'tcp',
      address,
    );
    openPeers.push(peer);
    return client(peer, scheduler);
  };
  return { dispatcher, scheduler, connect, advance: (ms: number) => (now += ms) };
}

function client(peer: MemoryPeer, scheduler: FlushScheduler) {
  return {
    peer,
    send<P extends AnyClientPacket>(def: P, value: PayloadOf<P>) {
      peer.send(def.encode(value as never));
    },
    hello() {
      this.send(Hello, { protocolVersion: PROTOCOL_VERSION, clientKind: 'bot', clientName: 't' });
    },
    /** Every frame the server wrote so far, decoded. */
    received(): { name: string; payload: any }[] {
      scheduler.flushAll();
      const d = new FrameDecoder();
      d.push(peer.received());
      const out = [];
      for (let f = d.next(); f; f = d.next()) {
        const def = byOpcode(f.opcode)!;
        out.push({ name: def.name, payload: def.decode(f.payload) });
      }
      return out;
    },
    names(): string[] {
      return this.received().map((f) => (f.name === 'Error' ? `Error:${f.payload.code}` : f.name));
    },
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A frame around any payload, its CRC right. */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const f = new Uint8Array(6 + payload.length);
  f.set(payload, 6);
  const crc = crc16(f, 6);
  f.set([f.length & 0xff, f.length >> 8, opcode & 0xff, opcode >> 8, crc & 0xff, crc >> 8]);
  return f;
}

afterEach(() => {
  for (const p of openPeers.splice(0)) p.conn.close('test over');
});

describe('dispatch core (in memory)', () => {
  it('answers Hello with Welcome and moves to the login state', () => {
    const { connect, dispatcher } = server();
    const c = connect();
    c.hello();
    const [welcome] = c.received();
    expect(welcome).toEqual({
      name: 'Welcome',
      payload: {
        protocolVersion: PROTOCOL_VERSION,
        serverName: 'Test',
        tickRate: 20,
        serverTime: 1234,
        connectionId: c.peer.conn.id,
      },
    });
    expect(dispatcher.sessions.get(c.peer.conn.id)!.state).toBe('login');
  });

  it('echoes Ping as Pong with the server clock', () => {
    const { connect } = server();
    const c = connect();
    c.hello();
    c.send(Ping, { seq: 7, clientTime: 99.5 });
    expect(c.received()[1]).toEqual({
      name: 'Pong',
      payload: { seq: 7, clientTime: 99.5, serverTime: 1234 },
    });
  });

  it('refuses another protocol version and closes', () => {
    const { connect } = server();
    const c = connect();
    c.send(Hello, { protocolVersion: PROTOCOL_VERSION + 1, clientKind: 'bot', clientName: 't' });
    expect(c.received()).toEqual([
      {
        name: 'Error',
        payload: expect.objectContaining({ code: 'ERR_VERSION', fatal: true, opcode: Hello.opcode }),
      },
    ]);
    expect(c.peer.conn.closed).toBe(true);
  });

  it('closes on a packet outside its states, naming the state', () => {
    const { connect } = server();
    const c = connect();
    c.send(Ping, { seq: 1, clientTime: 0 });
    const [error] = c.received();
    expect(error!.payload).toMatchObject({ code: 'ERR_WRONG_STATE', fatal: true, opcode: Ping.opcode });
    expect(error!.payload.reason).toContain("'handshake'");
    expect(c.peer.conn.closed).toBe(true);
  });

  it('rate-limits per class and refills with time', () => {
    const { connect, advance } = server({ env: { RATE_DEFAULT: '10', RATE_DEFAULT_BURST: '3' } });
    const c = connect();
    c.hello();
    for (let i = 0; i < 2; i++) c.send(Ping, { seq: i, clientTime: 0 });
    advance(100);
    c.send(Ping, { seq: 2, clientTime: 0 });
    expect(c.names()).toEqual(['Welcome', 'Pong', 'Pong', 'Pong']);
    c.send(Ping, { seq: 3, clientTime: 0 });
    expect(c.names().at(-1)).toBe('Error:ERR_RATE_LIMITED');
    expect(c.peer.conn.closed).toBe(true);
  });

  it('runs async handlers of one connection in order, state checks included', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const events: string[] = [];
    const { connect } = server({
      handlers: {
        async Register({ session }) {
          events.push('register start');
          await gate;
          session.state = 'authenticated';
          session.send(Registered, { account: 'alice' });
          events.push('register end');
        },
        ListCharacters() {
          events.push('list');
        },
      },
    });
    const c = connect();
    c.hello();
    c.send(Register, register);
    c.send(ListCharacters, {});
    await tick();
    expect(events).toEqual(['register start']);
    release();
    await tick();
    expect(events).toEqual(['register start', 'register end', 'list']);
    expect(c.names()).toEqual(['Welcome', 'Registered']);
  });

  it('turns a throwing handler into a fatal ERR_INTERNAL', () => {
    const { connect } = server({
      handlers: {
        Register() {
          throw new Error('boom');
        },
      },
    });
    const c = connect();
    c.hello();
    c.send(Register, register);
    expect(c.names()).toEqual(['Welcome', 'Error:ERR_INTERNAL']);
    expect(c.peer.conn.closed).toBe(true);
  });

  it('turns a rejecting handler into a fatal ERR_INTERNAL and drops what waited behind it', async () => {
    const { connect } = server({
      handlers: {
        async Register() {
          await tick();
          throw new Error('boom');
        },
        LoginStart({ session }) {
          session.send(Registered, { account: 'never' });
        },
      },
    });
    const c = connect();
    c.hello();
    c.send(Register, register);
    c.send(LoginStart, { account: 'alice', deviceToken: new Uint8Array(0) });
    await tick();
    await tick();
    expect(c.names()).toEqual(['Welcome', 'Error:ERR_INTERNAL']);
    expect(c.peer.conn.closed).toBe(true);
  });

  it('answers a session packet nobody handles with a non-fatal refusal', () => {
    const { connect } = server();
    const c = connect();
    c.hello();
    c.send(Register, register);
    c.send(Ping, { seq: 1, clientTime: 0 });
    expect(c.names()).toEqual(['Welcome', 'Error:ERR_WRONG_STATE', 'Pong']);
    expect(c.peer.conn.closed).toBe(false);
  });

  it('hands zone packets to the router by their header alone: the payload unread, bad bytes included', () => {
    const routed: [number, string, Uint8Array][] = [];
    const { connect } = server({
      handlers: {
        Register({ session }) {
          session.state = 'inWorld';
        },
      },
      router: {
        zone: (session, def, frame) =>
          routed.push([session.id, def.name, frame.bytes.slice(frame.start, frame.end)]),
        world: () => {},
      },
    });
    const c = connect();
    c.hello();
    c.send(Register, register);
    const move = { seq: 1, x: 10, y: 20, facing: 0, moving: true, speed: 120, clientTime: 5, epoch: 0 };
    const whole = MoveInput.encode(move);
    // Cut short, with a CRC that matches: only decoding it would find it wrong.
    const cut = frame(MoveInput.opcode, whole.subarray(6, whole.length - 3));
    const reads = vi.spyOn(MoveInput.payload, 'read');
    const readsInto = vi.spyOn(MoveInput.payload, 'readInto');
    try {
      c.peer.send(whole);
      c.peer.send(cut);
      expect(reads).not.toHaveBeenCalled();
      expect(readsInto).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
      readsInto.mockRestore();
    }
    expect(routed).toEqual([
      [c.peer.conn.id, 'MoveInput', whole.subarray(6)],
      [c.peer.conn.id, 'MoveInput', cut.subarray(6)],
    ]);
    expect(MoveInput.decode(routed[0]![2])).toEqual(move);
    expect(c.names()).toEqual(['Welcome']);
    expect(c.peer.conn.closed).toBe(false);
  });

  it('keeps the payload of a zone packet that waits behind a running handler, whatever becomes of the chunk it came in', async () => {
    const routed: Uint8Array[] = [];
    let release = (): void => {};
    const { connect } = server({
      handlers: {
        async Register({ session }) {
          await new Promise<void>((resolve) => (release = resolve));
          session.state = 'inWorld';
        },
      },
      router: {
        zone: (_session, _def, f) => routed.push(f.bytes.slice(f.start, f.end)),
        world: () => {},
      },
    });
    const c = connect();
    c.hello();
    const move = MoveInput.encode({
      seq: 2,
      x: 1,
      y: 2,
      facing: 0,
      moving: false,
      speed: 0,
      clientTime: 9,
      epoch: 0,
    });
    const register_ = Register.encode(register);
    const chunk = new Uint8Array(register_.length + move.length);
    chunk.set(register_);
    chunk.set(move, register_.length);
    c.peer.send(chunk);
    // A transport that reads into one buffer writes over it with the next chunk.
    chunk.fill(0xee);
    release();
    await tick();
    expect(routed).toEqual([move.subarray(6)]);
  });

  it('tells the router and listeners once when a session closes', () => {
    const closed: number[] = [];
    const { connect, dispatcher } = server({
      router: { ...noWorldRouter, sessionClosed: (s) => closed.push(s.id) },
    });
    dispatcher.onSessionClosed((s) => closed.push(-s.id));
    const c = connect();
    const session = dispatcher.sessions.get(c.peer.conn.id)!;
    expect(session.signal.aborted).toBe(false);
    c.peer.conn.peerClose();
    c.peer.conn.peerClose();
    expect(closed).toEqual([c.peer.conn.id, -c.peer.conn.id]);
    expect(session.signal.aborted).toBe(true);
    expect(dispatcher.sessions.size).toBe(0);
  });

  it('hands out a signal that is aborted when the connection goes, even one made after', () => {
    const { connect, dispatcher } = server();
    const c = connect();
    const session = dispatcher.sessions.get(c.peer.conn.id)!;
    const first = session.signal;
    expect(session.signal).toBe(first);
    // Released once login is over: the next one is fresh, and still follows the connection.
    session.releaseSignal();
    const second = session.signal;
    expect(second).not.toBe(first);
    c.peer.conn.peerClose();
    expect(second.aborted).toBe(true);
    session.releaseSignal();
    expect(session.signal.aborted).toBe(true);
  });

  it('refuses connections over the total and per-address limits', () => {
    const { connect, dispatcher } = server({ env: { MAX_CONNECTIONS: '3', MAX_CONNECTIONS_PER_IP: '2' } });
    connect('10.0.0.1');
    connect('10.0.0.1');
    const third = connect('10.0.0.1');
    expect(third.names()).toEqual(['Error:ERR_TOO_MANY_FROM_ADDRESS']);
    expect(third.peer.conn.closed).toBe(true);
    connect('10.0.0.2');
    const fifth = connect('10.0.0.3');
    expect(fifth.names()).toEqual(['Error:ERR_SERVER_FULL']);
    expect(dispatcher.sessions.size).toBe(3);
  });

  it('cuts a slow consumer with reason "slow consumer"', () => {
    const closed: string[] = [];
    const { connect, dispatcher } = server({ hardLimit: 200 });
    dispatcher.onSessionClosed((s) => closed.push(s.closeReason!));
    const c = connect();
    c.hello();
    c.peer.conn.socketBytes = 190;
    c.send(Ping, { seq: 1, clientTime: 0 });
    expect(c.peer.conn.closed).toBe(true);
    expect(closed).toEqual(['slow consumer']);
  });

  it('refuses handler modules that overlap or name non-session packets', () => {
    const noop = () => {};
    expect(() => composeHandlers({ Ping: noop }, { Ping: noop })).toThrow(/Ping defined twice/);
    expect(() => composeHandlers({ MoveInput: noop } as SessionHandlers)).toThrow(/target is 'zone'/);
  });
});
