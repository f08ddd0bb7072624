import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay, failover, reconnect, type ReconnectEvent } from '../../shared/client/reconnect.js';
import { createMemoryTransportPair, type ByteTransport } from '../../shared/client/transport.js';
import type { WyvernClient } from '../../shared/client/client.js';
import { EnterWorld, Resume, Resumed, SpellBook, ZoneInfo } from '../../shared/protocol/index.js';
import { enterWorld, FakeServer } from './fake-server.js';

const clients: WyvernClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

const TOKEN = new Uint8Array(32).fill(1);
const FRESH = new Uint8Array(32).fill(2);

/** A fake server on a new in-memory pair per connection; `script` sets it up. */
function servers(script: (server: FakeServer, n: number) => void): {
  connect: () => Promise<ByteTransport>;
  made: FakeServer[];
} {
  const made: FakeServer[] = [];
  return {
    made,
    connect: () => {
      const pair = createMemoryTransportPair();
      const server = new FakeServer(pair.server, () => 50_000);
      made.push(server);
      script(server.speakSession(), made.length);
      return Promise.resolve(pair.client);
    },
  };
}

/** Answers Resume: in the world (ZoneInfo, SpellBook and EnterWorld at the next tick) or not. */
function answerResume(server: FakeServer, inWorld: boolean): void {
  server.handle(Resume, (r) => {
    server.send(Resumed, {
      accountId: 7,
      account: r.account,
      resumeToken: FRESH,
      characterId: inWorld ? 3 : 0,
    });
    if (!inWorld) return;
    setTimeout(() => {
      server.send(ZoneInfo, {
        zone: 'Vale',
        x: 0,
        y: 0,
        width: 800,
        height: 800,
        obstacles: [],
        neighbours: [],
        cellSize: 64,
        respawnDelay: 5000,
      });
      server.send(SpellBook, { spells: [] });
      server.send(EnterWorld, enterWorld({ entityId: 12, x: 140, y: 90 }));
    }, 5);
  });
}

const noSleep = (): Promise<void> => Promise.resolve();

describe('backoffDelay', () => {
  it('goes at once first, then doubles up to the ceiling, half fixed and half jitter', () => {
    expect(backoffDelay(1, 250, 8000, () => 0.5)).toBe(0);
    expect(backoffDelay(2, 250, 8000, () => 0)).toBe(125);
    expect(backoffDelay(2, 250, 8000, () => 0.999)).toBe(250);
    expect(backoffDelay(3, 250, 8000, () => 0)).toBe(250);
    expect(backoffDelay(5, 250, 8000, () => 0)).toBe(1000);
    expect(backoffDelay(20, 250, 8000, () => 0)).toBe(4000);
    expect(backoffDelay(20, 250, 8000, () => 0.999)).toBe(7996);
  });
});

describe('reconnect', () => {
  it('resumes into the world: the character, its place and the fresh token', async () => {
    const { connect, made } = servers((s) => answerResume(s, true));
    const events: ReconnectEvent['type'][] = [];
    const { client, result } = await reconnect({
      connect,
      account: 'alice',
      token: TOKEN,
      clientKind: 'bot',
      clientName: 'unit',
      onEvent: (e) => events.push(e.type),
    });
    clients.push(client);
    expect(result.characterId).toBe(3);
    expect(result.entered?.enter).toMatchObject({ entityId: 12, x: 140, y: 90 });
    expect(result.resumeToken).toEqual(FRESH);
    expect(client.state).toBe('inWorld');
    expect(client.resumeToken).toEqual(FRESH);
    expect(client.world.self).toMatchObject({ id: 12, x: 140, y: 90 });
    expect(made[0]!.received.find((r) => r.name === 'Resume')?.payload).toEqual({
      account: 'alice',
      token: TOKEN,
    });
    expect(events).toEqual(['waiting', 'connecting', 'resumed']);
  });

  it('is in the world when Resumed and the character state come in one chunk', async () => {
    const { connect } = servers((s) =>
      s.handle(Resume, (r) => {
        const frames = [
          Resumed.encode({ accountId: 7, account: r.account, resumeToken: FRESH, characterId: 3 }),
          ZoneInfo.encode({
            zone: 'Vale',
            x: 0,
            y: 0,
            width: 800,
            height: 800,
            obstacles: [],
            neighbours: [],
            cellSize: 64,
            respawnDelay: 5000,
          }),
          SpellBook.encode({ spells: [] }),
          EnterWorld.encode(enterWorld({ entityId: 12 })),
        ];
        const chunk = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
        let at = 0;
        for (const f of frames) {
          chunk.set(f, at);
          at += f.length;
        }
        s.sendRaw(chunk);
      }),
    );
    const { client, result } = await reconnect({
      connect,
      account: 'alice',
      token: TOKEN,
      clientKind: 'bot',
      clientName: 'unit',
    });
    clients.push(client);
    expect(result.entered?.enter.entityId).toBe(12);
    expect(client.state).toBe('inWorld');
  });

  it('resumes at account level when the character is no longer in the world', async () => {
    const { connect } = servers((s) => answerResume(s, false));
    const { client, result } = await reconnect({
      connect,
      account: 'alice',
      token: TOKEN,
      clientKind: 'bot',
      clientName: 'unit',
    });
    clients.push(client);
    expect(result).toMatchObject({ characterId: 0 });
    expect(result.entered).toBeUndefined();
    expect(client.state).toBe('authenticated');
  });

  it('retries failed connections with growing delays, then resumes', async () => {
    let refused = 0;
    const { connect: open } = servers((s) => answerResume(s, true));
    const connect = () => (++refused <= 2 ? Promise.reject(new Error('ECONNREFUSED')) : open());
    const events: ReconnectEvent[] = [];
    const slept: number[] = [];
    const { client } = await reconnect({
      connect,
      account: 'alice',
      token: TOKEN,
      clientKind: 'bot',
      clientName: 'unit',
      random: () => 0,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
      onEvent: (e) => events.push(e),
    });
    clients.push(client);
    expect(slept).toEqual([125, 250]);
    expect(events.filter((e) => e.type === 'failed').map((e) => (e as { final: boolean }).final)).toEqual([
      false,
      false,
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'resumed', attempt: 3 });
  });

  it('gives up after maxAttempts with the last error', async () => {
    const events: ReconnectEvent[] = [];
    const attempt = reconnect({
      connect: () => Promise.reject(new Error('ECONNREFUSED')),
      account: 'alice',
      token: TOKEN,
      clientKind: 'bot',
      clientName: 'unit',
      maxAttempts: 3,
      sleep: noSleep,
      onEvent: (e) => events.push(e),
    });
    await expect(attempt).rejects.toThrow('ECONNREFUSED');
    expect(events.filter((e) => e.type === 'connecting')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'failed', attempt: 3, final: true });
  });

  it('stops at once on ERR_BAD_RESUME: only a login helps then', async () => {
    const { connect, made } = servers((s) => s.handle(Resume, () => s.refuse(Resume, 'ERR_BAD_RESUME')));
    const attempt = reconnect({
      connect,
      account: 'alice',
      token: TOKEN,
      clientKind: 'bot',
      clientName: 'unit',
      sleep: noSleep,
    });
    await expect(attempt).rejects.toMatchObject({ code: 'ERR_BAD_RESUME' });
    expect(made).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(made[0]!.closed).toBe(true);
  });

  it('stops waiting when aborted', async () => {
    const abort = new AbortController();
    const attempt = reconnect({
      connect: () => Promise.reject(new Error('ECONNREFUSED')),
      account: 'alice',
      token: TOKEN,
      clientKind: 'bot',
      clientName: 'unit',
      baseDelayMs: 60_000,
      signal: abort.signal,
      onEvent: (e) => {
        if (e.type === 'waiting' && e.attempt === 2) abort.abort(new Error('the page went away'));
      },
    });
    await expect(attempt).rejects.toThrow('the page went away');
  });
});

describe('failover over several gateways', () => {
  const opened = (name: string) => () => Promise.resolve({ name } as unknown as ByteTransport);
  const refused = (name: string, tried: string[]) => () => {
    tried.push(name);
    return Promise.reject(new Error(`${name} refused`));
  };

  it('opens the first that answers, and starts from it next time', async () => {
    const tried: string[] = [];
    let aDown = false;
    const connect = failover([
      () => (aDown ? refused('a', tried)() : opened('a')()),
      refused('b', tried),
      opened('c'),
    ]);
    expect(await connect()).toEqual({ name: 'a' });
    aDown = true;
    expect(await connect()).toEqual({ name: 'c' });
    expect(tried).toEqual(['a', 'b']);
    tried.length = 0;
    expect(await connect()).toEqual({ name: 'c' });
    expect(tried).toEqual([]);
  });

  it('fails with the last error when none answers', async () => {
    const tried: string[] = [];
    const connect = failover([refused('a', tried), refused('b', tried)]);
    await expect(connect()).rejects.toThrow('b refused');
    expect(tried).toEqual(['a', 'b']);
  });
});
