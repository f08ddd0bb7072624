import { afterEach, describe, expect, it, vi } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { WyvernError } from '../../shared/client/errors.js';
import { createMemoryTransportPair } from '../../shared/client/transport.js';
import {
  Bye,
  CharacterDeleted,
  ChatMessage,
  ChatSend,
  DeleteCharacter,
  ErrorPacket,
  Hello,
  ListCharacters,
  MOB_ID_BASE,
  MoveInput,
  PositionCorrection,
  Pong,
  PROTOCOL_VERSION,
  SpellBook,
  Welcome,
  Whisper,
  WorldUpdate,
  EnterWorld,
  EnterWorldRequest,
} from '../../shared/protocol/index.js';
import { enterWorld, FakeServer, moveRecord, spawnRecord } from './fake-server.js';

const clients: WyvernClient[] = [];

function setup(options: { now?: () => number; requestTimeoutMs?: number } = {}) {
  const pair = createMemoryTransportPair();
  const server = new FakeServer(pair.server, () => 50_000);
  const client = new WyvernClient(pair.client, options);
  clients.push(client);
  return { client, server, pair };
}

/** Lets queued in-memory deliveries run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  vi.useRealTimers();
});

describe('WyvernClient requests', () => {
  it('says hello and gets the Welcome', async () => {
    const { client, server } = setup();
    server.speakSession('Test Realm');
    const welcome = await client.hello({ clientKind: 'bot', clientName: 'unit' });
    expect(welcome.serverName).toBe('Test Realm');
    expect(client.state).toBe('login');
    expect(server.received[0]).toEqual({
      name: 'Hello',
      payload: { protocolVersion: PROTOCOL_VERSION, clientKind: 'bot', clientName: 'unit' },
    });
  });

  it('rejects hello with the server error in words when the server refuses it', async () => {
    const { client, server } = setup();
    server.handle(Hello, () => server.refuse(Hello, 'ERR_VERSION', 'need 2', true));
    const err = await client.hello({ clientKind: 'bot', clientName: 'old' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WyvernError);
    expect(err).toMatchObject({ code: 'ERR_VERSION', reason: 'need 2', fatal: true, fromServer: true });
    expect((err as Error).message).toMatch(/another protocol version/);
    await client.closed;
    expect(client.state).toBe('closed');
  });

  it('rejects only the request whose opcode the refusal names', async () => {
    const { client, server } = setup();
    server.handle(DeleteCharacter, () => server.refuse(DeleteCharacter, 'ERR_NO_SUCH_CHARACTER', 'id 9'));
    const list = client.waitFor(SpellBook, { timeoutMs: 0 });
    const del = client.deleteCharacter(9);
    await expect(del).rejects.toMatchObject({
      code: 'ERR_NO_SUCH_CHARACTER',
      fatal: false,
      opcode: DeleteCharacter.opcode,
    });
    server.send(SpellBook, { spells: [] });
    await expect(list).resolves.toEqual({ spells: [] });
  });

  it('hands a refusal that no request waits for to onError', async () => {
    const { client, server } = setup();
    const errors: WyvernError[] = [];
    client.onError = (e) => errors.push(e);
    server.handle(Whisper, () => server.refuse(Whisper, 'ERR_NO_SUCH_PLAYER', 'Bob'));
    client.whisper('Bob', 'hi');
    await flush();
    await flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe('No player by that name is online.');
  });

  it('resolves deleteCharacter only on the matching id', async () => {
    const { client, server } = setup();
    server.handle(DeleteCharacter, (d) => {
      server.send(CharacterDeleted, { characterId: d.characterId + 1 });
      server.send(CharacterDeleted, { characterId: d.characterId });
    });
    await expect(client.deleteCharacter(3)).resolves.toBeUndefined();
  });

  it('rejects every pending request when the connection closes', async () => {
    const { client, server } = setup();
    const list = client.listCharacters();
    const waiting = client.waitFor(ChatMessage, { timeoutMs: 0 });
    await flush();
    expect(server.names()).toEqual(['ListCharacters']);
    server.close();
    await expect(list).rejects.toMatchObject({ code: 'ERR_CLOSED', fatal: true });
    await expect(waiting).rejects.toMatchObject({ code: 'ERR_CLOSED' });
    await expect(client.listCharacters()).rejects.toMatchObject({ code: 'ERR_CLOSED' });
  });

  it('rejects pending requests with the fatal error that preceded the close', async () => {
    const { client, server } = setup();
    const list = client.listCharacters();
    await flush();
    server.refuse({ opcode: 0 }, 'ERR_SHUTDOWN', 'maintenance', true);
    await expect(list).rejects.toMatchObject({
      code: 'ERR_SHUTDOWN',
      message: 'The server is shutting down.',
    });
  });

  it('says why when the server said goodbye before closing', async () => {
    const { client, server } = setup();
    const list = client.listCharacters();
    server.send(Bye, { reason: 'takenOver', message: 'logged in elsewhere' });
    server.close();
    await expect(list).rejects.toMatchObject({
      code: 'ERR_CLOSED',
      reason: expect.stringMatching(/takenOver/),
    });
  });

  it('times out a request the server never answers', async () => {
    vi.useFakeTimers();
    const { client } = setup({ requestTimeoutMs: 1_000 });
    const list = client.listCharacters();
    const check = expect(list).rejects.toMatchObject({ code: 'ERR_TIMEOUT', fatal: false });
    await vi.advanceTimersByTimeAsync(1_001);
    await check;
  });

  it('rejects a pending request when the client closes', async () => {
    const { client } = setup();
    const list = client.listCharacters();
    client.close();
    await expect(list).rejects.toMatchObject({ code: 'ERR_CLOSED' });
    expect(client.send(ListCharacters, {})).toBe(false);
  });

  it('collects ZoneInfo, SpellBook and EnterWorld for enterWorld', async () => {
    const { client, server } = setup();
    server.speakCharacters([{ id: 4, name: 'Ayla', level: 1, zone: 'meadow', appearance: 0 }]);
    const { zone, spells, enter } = await client.enterWorld(4);
    expect(zone.zone).toBe('meadow');
    expect(spells.spells.map((s) => s.name)).toEqual(['Fireball', 'Heal']);
    expect(enter.name).toBe('Ayla');
    expect(client.state).toBe('inWorld');
    expect(client.world.self?.id).toBe(4);
  });

  it('stays in the world through ERR_ZONE_DOWN, shows it, and carries on at the EnterWorld that puts it back', async () => {
    const { client, server } = setup();
    server.speakCharacters([{ id: 4, name: 'Ayla', level: 1, zone: 'meadow', appearance: 0 }]);
    await client.enterWorld(4);
    const errors: WyvernError[] = [];
    client.onError = (e) => errors.push(e);
    server.send(ErrorPacket, { code: 'ERR_ZONE_DOWN', reason: 'host gone', opcode: 0, fatal: false });
    await flush();
    expect(client.zoneDown).toBe(true);
    expect(client.isClosed).toBe(false);
    expect(client.state).toBe('inWorld');
    expect(errors.map((e) => [e.code, e.fatal])).toEqual([['ERR_ZONE_DOWN', false]]);
    expect(errors[0]!.message).toMatch(/went down/);
    server.send(EnterWorld, enterWorld({ entityId: 9, x: 40, y: 50 }));
    await flush();
    expect(client.zoneDown).toBe(false);
    expect(client.world.self).toMatchObject({ id: 9, x: 40, y: 50 });
  });

  it('rejects enterWorld when EnterWorld comes without ZoneInfo', async () => {
    const { client, server } = setup();
    server.handle(EnterWorldRequest, () => server.send(EnterWorld, enterWorld()));
    await expect(client.enterWorld(1)).rejects.toMatchObject({ code: 'ERR_PROTOCOL' });
  });

  it('logs out back to the character screen', async () => {
    const { client, server } = setup();
    server.speakCharacters([{ id: 4, name: 'Ayla', level: 1, zone: 'meadow', appearance: 0 }]);
    await client.enterWorld(4);
    const delays: number[] = [];
    await client.logout({ onStarted: (d) => delays.push(d) });
    expect(delays).toEqual([20]);
    expect(client.state).toBe('authenticated');
    expect(client.world.self).toBeUndefined();
  });
});

describe('WyvernClient receiving', () => {
  it('decodes frames split across chunks and many frames in one chunk', async () => {
    const { client, server } = setup();
    const seen: string[] = [];
    client.onPacket = (name) => seen.push(name);
    const a = WorldUpdate.encode({ tick: 1, time: 10, records: [] });
    const b = ChatMessage.encode({ channel: 'say', fromId: 2, from: 'Bo', to: '', text: 'hello' });
    // Heads count on from the previous WorldUpdate: this one is tick 2 at 20.
    const c = WorldUpdate.encode({ tick: 1, time: 10, records: [] });
    const all = new Uint8Array([...a, ...b, ...c]);
    for (let i = 0; i < all.length; i += 3) server.sendRaw(all.subarray(i, i + 3));
    await flush();
    expect(seen).toEqual(['WorldUpdate', 'ChatMessage', 'WorldUpdate']);
    expect(client.lastTick).toEqual({ tick: 2, serverTime: 20 });
  });

  it('delivers typed payloads to handlers until unsubscribed', async () => {
    const { client, server } = setup();
    const texts: string[] = [];
    const off = client.on(ChatMessage, (m) => texts.push(m.text));
    server.send(ChatMessage, { channel: 'zone', fromId: 2, from: 'Bo', to: '', text: 'one' });
    await flush();
    off();
    server.send(ChatMessage, { channel: 'zone', fromId: 2, from: 'Bo', to: '', text: 'two' });
    await flush();
    expect(texts).toEqual(['one']);
  });

  it('counts frames and bytes per packet name in both directions', async () => {
    const { client, server } = setup();
    client.send(ChatSend, { channel: 'say', text: 'hi' });
    server.send(Welcome, {
      protocolVersion: PROTOCOL_VERSION,
      serverName: 's',
      tickRate: 20,
      serverTime: 0,
      connectionId: 1,
    });
    await flush();
    expect(client.stats.packets.get('ChatSend')).toEqual({
      framesOut: 1,
      bytesOut: ChatSend.encode({ channel: 'say', text: 'hi' }).length,
      framesIn: 0,
      bytesIn: 0,
    });
    expect(client.stats.packets.get('Welcome')?.framesIn).toBe(1);
    expect(client.stats.total.framesOut).toBe(1);
  });

  it('skips packets with an opcode it does not know and counts them', async () => {
    const { client, server } = setup();
    const seen: string[] = [];
    client.onPacket = (name) => seen.push(name);
    const unknown = ChatSend.encode({ channel: 'say', text: 'x' }); // a client packet, never sent by servers
    server.sendRaw(unknown);
    server.update([], 1);
    await flush();
    expect(seen).toEqual(['WorldUpdate']);
    expect(client.stats.packets.get('unknown')?.framesIn).toBe(1);
  });

  it('closes with a protocol error on a frame that fails its checksum', async () => {
    const { client, server } = setup();
    const pending = client.listCharacters();
    const bad = WorldUpdate.encode({ tick: 1, time: 1, records: [] });
    bad[bad.length - 1]! ^= 0xff;
    server.sendRaw(bad);
    await expect(pending).rejects.toMatchObject({
      code: 'ERR_PROTOCOL',
      reason: expect.stringMatching(/ERR_BAD_CRC/),
    });
    expect(client.state).toBe('closed');
  });

  it('keeps the world view current from WorldUpdate records stamped with the update time', async () => {
    const { client, server } = setup();
    server.speakCharacters([{ id: 4, name: 'Ayla', level: 1, zone: 'meadow', appearance: 0 }]);
    await client.enterWorld(4);
    const id = MOB_ID_BASE + 1;
    server.update(
      [spawnRecord({ id, speed: 80, health: 50, maxHealth: 50 }), moveRecord(id, 10, 10)],
      50_700,
    );
    await flush();
    expect(client.lastTick).toEqual({ tick: 2, serverTime: 50_700 });
    expect(client.world.get(id)).toMatchObject({
      name: 'Grey Wolf',
      speed: 80,
      health: 50,
      updatedAt: 50_700,
    });
    server.update(
      [
        moveRecord(id, 12, 14, { moving: true, angle: Math.PI / 2 }),
        { kind: 'health', id, health: 30, maxHealth: 50 },
      ],
      50_777,
    );
    await flush();
    const wolf = client.world.get(id)!;
    expect(wolf.updatedAt).toBe(50_777);
    expect(wolf.health).toBe(30);
    // Moves travel quantized to 1/16 unit, angles to 2π/256.
    expect(wolf.x).toBeCloseTo(12, 1);
    expect(wolf.y).toBeCloseTo(14, 1);
    // Walking north at the spawn's speed from the update's time.
    const later = client.world.positionAt(wolf, 50_777 + 500);
    expect(later.x).toBeCloseTo(12, 1);
    expect(later.y).toBeCloseTo(14 + 40, 1);
    server.update([{ kind: 'despawn', id, reason: 'outOfRange' }], 50_800);
    await flush();
    expect(client.world.get(id)).toBeUndefined();
  });

  it('stamps MoveInput with a rising seq and the client clock', async () => {
    const { client, server } = setup({ now: () => 1234 });
    server.speakCharacters([{ id: 4, name: 'Ayla', level: 1, zone: 'meadow', appearance: 0 }]);
    await client.enterWorld(4);
    expect(client.sendMove(101, 100, 0, true, 120)).toBe(1);
    expect(client.sendMove(102, 100, 0)).toBe(2);
    await flush();
    const moves = server.received.filter((r) => r.name === MoveInput.name).map((r) => r.payload);
    expect(moves).toEqual([
      { seq: 1, x: 101, y: 100, facing: 0, moving: true, speed: 120, clientTime: 1234, epoch: 0 },
      { seq: 2, x: 102, y: 100, facing: 0, moving: false, speed: 0, clientTime: 1234, epoch: 0 },
    ]);
    expect(client.world.self?.x).toBe(102);
  });

  it('stamps MoveInput with the newest move epoch the server told: EnterWorld, then each PositionCorrection', async () => {
    const { client, server } = setup({ now: () => 1234 });
    server.speakCharacters([{ id: 4, name: 'Ayla', level: 1, zone: 'meadow', appearance: 0 }], [], {
      moveEpoch: 7,
    });
    await client.enterWorld(4);
    client.sendMove(101, 100, 0, true, 120);
    server.send(PositionCorrection, { seq: 1, x: 90, y: 100, facing: 0, reason: 'dead', epoch: 8 });
    await flush();
    expect(client.moveEpoch).toBe(8);
    client.sendMove(90, 100, 0);
    await flush();
    const moves = server.received.filter((r) => r.name === MoveInput.name).map((r) => r.payload);
    expect(moves.map((m) => (m as { epoch: number }).epoch)).toEqual([7, 8]);
  });

  it('keeps the predicted own position through a WorldUpdate about itself, but takes its health', async () => {
    const { client, server } = setup();
    server.speakCharacters([{ id: 4, name: 'Ayla', level: 1, zone: 'meadow', appearance: 0 }]);
    await client.enterWorld(4);
    client.sendMove(130, 100, 0, true, 120);
    server.update([
      moveRecord(4, 100, 100, { moving: true }),
      { kind: 'health', id: 4, health: 60, maxHealth: 100 },
    ]);
    await flush();
    expect(client.world.self).toMatchObject({ x: 130, y: 100, health: 60 });
  });

  it('passes a handler exception to onHandlerError and keeps going', async () => {
    const pair = createMemoryTransportPair();
    const errors: unknown[] = [];
    const client = new WyvernClient(pair.client, { onHandlerError: (e) => errors.push(e) });
    clients.push(client);
    const server = new FakeServer(pair.server);
    const ticks: number[] = [];
    client.on(WorldUpdate, () => {
      throw new Error('boom');
    });
    client.on(WorldUpdate, (t) => ticks.push(t.tick));
    server.update([], 1);
    server.update([], 2);
    await flush();
    expect(ticks).toEqual([1, 2]);
    expect(errors).toHaveLength(2);
  });
});

describe('WyvernClient clock sync', () => {
  it('measures a round trip with Ping and Pong', async () => {
    let now = 1_000;
    const { client, server } = setup({ now: () => now });
    const sample = client.ping();
    await flush();
    const ping = server.received.at(-1)!;
    expect(ping).toMatchObject({ name: 'Ping', payload: { seq: 1, clientTime: 1_000 } });
    now = 1_080;
    server.send(Pong, { seq: 1, clientTime: 1_000, serverTime: 9_040 });
    await expect(sample).resolves.toMatchObject({ rtt: 80, offset: 8_000 });
    expect(client.serverNow()).toBe(9_080);
  });

  it('takes a first clock estimate from the Welcome', async () => {
    const { client, server } = setup({ now: () => 500 });
    server.speakSession();
    await client.hello({ clientKind: 'bot', clientName: 'x' });
    expect(client.clock.synced).toBe(true);
    expect(client.clock.offset).toBe(50_000 - 500);
  });

  it('pings on an interval until stopped', async () => {
    vi.useFakeTimers();
    const { client, server } = setup();
    server.speakSession();
    client.startClockSync(1_000);
    await vi.advanceTimersByTimeAsync(2_500);
    client.stopClockSync();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(server.names().filter((n) => n === 'Ping')).toHaveLength(3);
    expect(client.clock.synced).toBe(true);
  });
});

describe('WyvernError', () => {
  it('gives words for server codes, client codes and unknown codes', () => {
    expect(new WyvernError('ERR_BAD_LOGIN', '', false).message).toBe('Wrong account name or password.');
    expect(new WyvernError('ERR_TIMEOUT', '', false).message).toBe('The server did not answer in time.');
    expect(new WyvernError('ERR_FROM_THE_FUTURE', '', false).message).toMatch(/ERR_FROM_THE_FUTURE/);
    expect(ErrorPacket.name).toBe('Error');
  });
});
