/**
 * The page's connection manager against canned servers on in-memory transports: when a close
 * is resumed and when it is not, which gateways a resume tries in which order, how long it
 * waits between tries, how many it makes, and what the page shows meanwhile and after.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WyvernError } from '../../shared/client/errors.js';
import { backoffDelay } from '../../shared/client/reconnect.js';
import { createMemoryTransportPair, type ByteTransport } from '../../shared/client/transport.js';
import { Bye, EnterWorld, Resume, Resumed, SpellBook, ZoneInfo } from '../../shared/protocol/index.js';
import {
  ConnectionManager,
  DROP_ATTEMPTS,
  RELOAD_ATTEMPTS,
  type PageNet,
} from '../../web-client/src/app/connection-manager.js';
import { Screens, type Screen } from '../../web-client/src/app/screens.js';
import type { ClusterGateways } from '../../web-client/src/net/connection.js';
import { loadSession, saveSession, tokenToHex } from '../../web-client/src/net/resume-store.js';
import { CLEAN_LINK } from '../../web-client/src/state/link-lab.js';
import { ClientWorld, type Incoming } from '../../web-client/src/state/world.js';
import { enterWorld, FakeServer, type SrpAccounts } from '../client/fake-server.js';

const OWN = 'ws://play.example:8080/ws';
const OTHER = 'ws://10.0.0.2:8081/ws';
const CLUSTER: ClusterGateways = {
  gateways: [
    { id: 'g1', host: '10.0.0.1', httpPort: 8080 },
    { id: 'g2', host: '10.0.0.2', httpPort: 8081 },
  ],
};
const FRESH = new Uint8Array(32).fill(2);

/** sessionStorage for one test. */
class MemoryStorage implements Storage {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(i: number): string | null {
    return [...this.items.keys()][i] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

/** How a server at a URL answers a new connection: a script, or a refusal to connect. */
type Answer = ((server: FakeServer) => void) | 'refuse';

const opened: ByteTransport[] = [];
afterEach(() => {
  for (const t of opened.splice(0)) t.close();
});

/**
 * A page: its world, its screens (recording what they show and say) and a manager whose
 * sockets open to canned servers answering as `answers` says, one entry per connection.
 */
function page(answers: Answer[], gateways: () => ClusterGateways | undefined = () => undefined) {
  const world = new ClientWorld({ now: () => 0 });
  const shown: { screen: Screen; content: string[] }[] = [];
  const said: string[] = [];
  const screens = new Screens<string>((screen, content) => shown.push({ screen, content }));
  screens.use({
    reconnecting: () => ({ content: ['reconnecting card'], say: (text) => said.push(`card: ${text}`) }),
    login: (notice) => [`login: ${notice ?? ''}`],
    characters: (account) => [`characters of ${account}`],
    world: () => ['world'],
    notice: (text) => {
      said.push(`notice: ${text}`);
      world.notice(text, 0);
    },
  });
  const urls: string[] = [];
  const delays: number[] = [];
  const servers: FakeServer[] = [];
  const sessions = new MemoryStorage();
  const net: PageNet = {
    location: { protocol: 'http:', host: 'play.example:8080', hostname: 'play.example', port: '8080' },
    open: (url) => {
      urls.push(url);
      const answer = answers[urls.length - 1] ?? 'refuse';
      if (answer === 'refuse') return Promise.reject(new Error('ECONNREFUSED'));
      const pair = createMemoryTransportPair();
      const server = new FakeServer(pair.server, () => 50_000).speakSession();
      answer(server);
      servers.push(server);
      opened.push(pair.client);
      return Promise.resolve(pair.client);
    },
    gateways: () => Promise.resolve(gateways()),
    sessions,
    deviceTokens: { get: () => undefined, set: () => undefined },
    backoff: {
      random: () => 0.5,
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    },
  };
  const packets: string[] = [];
  const restored: (number | undefined)[] = [];
  const manager = new ConnectionManager(
    {
      world,
      screens,
      link: { ...CLEAN_LINK },
      observe: () => undefined,
      onPacket: (p: Incoming) => {
        packets.push(p.name);
        world.apply(p, 0);
      },
      restoreTarget: (id) => restored.push(id),
    },
    net,
  );
  const screenNow = () => shown.at(-1);
  return {
    world,
    screens,
    manager,
    shown,
    said,
    urls,
    delays,
    servers,
    sessions,
    packets,
    restored,
    screenNow,
  };
}

/** A server where `accounts` log in and character 1, Ann, enters the world. */
function loginServer(accounts: SrpAccounts): (server: FakeServer) => void {
  return (server) => {
    server.speakSrp({ accounts });
    server.speakCharacters([{ id: 1, name: 'Ann', level: 1, zone: 'meadow', appearance: 3 }]);
  };
}

/** Answers Resume: back in the world as entity 12 (at the next tick), or at account level. */
function resumeServer(inWorld: boolean): (server: FakeServer) => void {
  return (server) =>
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
          zone: 'meadow',
          x: 0,
          y: 0,
          width: 1024,
          height: 1024,
          obstacles: [],
          neighbours: [],
          cellSize: 64,
          respawnDelay: 500,
        });
        server.send(SpellBook, { spells: [] });
        server.send(EnterWorld, enterWorld({ entityId: 12, name: 'Ann', x: 140, y: 90 }));
      }, 5);
    });
}

/** Logs in as ann (registering first) and enters Ann: the page is in the world. */
async function playAnn(p: ReturnType<typeof page>): Promise<void> {
  await p.manager.register('ann', 'a long enough password');
  await p.manager.login('ann', 'a long enough password', () => undefined);
  expect(p.screens.current).toBe('characters');
  await p.manager.enter(1, 3);
  expect(p.screens.current).toBe('world');
  expect(p.world.self?.id).toBe(1);
}

const SAVED = { account: 'ann', token: tokenToHex(new Uint8Array(32).fill(5)), appearance: 3, targetId: 44 };

describe('a drop in the world', () => {
  it('resumes in place: the own gateway, then the cluster’s others in turn, with growing delays', async () => {
    const accounts: SrpAccounts = new Map();
    let asked = 0;
    // The page's own gateway lists the cluster while it is up; once it is gone nobody can say.
    const p = page([loginServer(accounts), 'refuse', 'refuse', resumeServer(true)], () =>
      asked++ === 0 ? CLUSTER : undefined,
    );
    await playAnn(p);
    const token = loadSession(p.sessions)?.token;

    p.servers[0]!.close();
    await vi.waitFor(() => expect(p.world.self?.id).toBe(12), { timeout: 5000 });

    expect(p.urls).toEqual([OWN, OWN, OTHER, OWN]);
    expect(p.delays).toEqual([backoffDelay(2, 250, 8000, () => 0.5), backoffDelay(3, 250, 8000, () => 0.5)]);
    expect(p.delays).toEqual([188, 375]);
    // The world stayed on screen and its notices told how it went, then that it is over.
    expect(p.shown.map((s) => s.screen)).toEqual(['characters', 'world', 'world']);
    expect(p.said).toEqual([
      'notice: Connection lost. Reconnecting…',
      `notice: Reconnecting (attempt 2 of ${DROP_ATTEMPTS})…`,
      `notice: Reconnecting (attempt 3 of ${DROP_ATTEMPTS})…`,
    ]);
    expect(p.world.notices.map((n) => n.text)).toEqual(['Reconnected.']);
    const saved = loadSession(p.sessions);
    expect(saved?.token).not.toBe(token);
    expect(saved).toMatchObject({ account: 'ann', token: tokenToHex(FRESH), appearance: 3 });
    expect(p.manager.client?.isClosed).toBe(false);
  });

  it('gives up after DROP_ATTEMPTS tries, forgets the session and asks for a login, saying why', async () => {
    const accounts: SrpAccounts = new Map();
    const p = page([loginServer(accounts)]);
    await playAnn(p);

    p.servers[0]!.close();
    await vi.waitFor(() => expect(p.screens.current).toBe('login'), { timeout: 5000 });

    expect(p.urls).toHaveLength(1 + DROP_ATTEMPTS);
    expect(p.delays).toHaveLength(DROP_ATTEMPTS - 1);
    expect(p.screenNow()?.content).toEqual([
      'login: Could not resume the session (ECONNREFUSED). Log in again.',
    ]);
    expect(loadSession(p.sessions)).toBeUndefined();
    expect(p.world.self).toBeUndefined();
  });

  it('is not resumed after the server’s goodbye: a login elsewhere is said, and the session forgotten', async () => {
    const accounts: SrpAccounts = new Map();
    const p = page([loginServer(accounts), resumeServer(true)]);
    await playAnn(p);

    p.servers[0]!.send(Bye, { reason: 'takenOver', message: '' });
    p.servers[0]!.close();
    await vi.waitFor(() => expect(p.screens.current).toBe('login'), { timeout: 5000 });

    expect(p.urls).toEqual([OWN]);
    expect(p.screenNow()?.content).toEqual(['login: This account has logged in somewhere else.']);
    expect(loadSession(p.sessions)).toBeUndefined();
  });
});

describe('a close outside the world', () => {
  it('is not resumed: the login screen says the connection was lost, and the session is kept', async () => {
    const accounts: SrpAccounts = new Map();
    const p = page([loginServer(accounts), resumeServer(true)]);
    await p.manager.register('ann', 'a long enough password');
    await p.manager.login('ann', 'a long enough password', () => undefined);

    p.servers[0]!.close();
    await vi.waitFor(() => expect(p.screens.current).toBe('login'), { timeout: 5000 });

    expect(p.urls).toEqual([OWN]);
    expect(p.screenNow()?.content[0]).toMatch(/^login: Lost the connection to the server \(.+\)\.$/);
    expect(loadSession(p.sessions)?.account).toBe('ann');
  });

  it('that the player asked for (Log out on the character screen) says so and forgets the session', async () => {
    const accounts: SrpAccounts = new Map();
    const p = page([loginServer(accounts)]);
    await p.manager.register('ann', 'a long enough password');
    await p.manager.login('ann', 'a long enough password', () => undefined);

    p.manager.close();
    await vi.waitFor(() => expect(p.screens.current).toBe('login'), { timeout: 5000 });

    expect(p.screenNow()?.content).toEqual(['login: Logged out.']);
    expect(loadSession(p.sessions)).toBeUndefined();
  });
});

describe('after a reload', () => {
  it('resumes the saved session into the world, and selects the saved target again', async () => {
    const p = page([resumeServer(true)]);
    saveSession(SAVED, p.sessions);

    p.manager.start();
    await vi.waitFor(() => expect(p.screens.current).toBe('world'), { timeout: 5000 });

    expect(p.shown.map((s) => s.screen)).toEqual(['loading', 'world']);
    expect(p.said).toEqual(['card: Reconnecting…']);
    expect(p.restored).toEqual([44]);
    expect(p.world.selfAppearance).toBe(3);
    expect(p.delays).toEqual([]);
  });

  it('shows the characters when the character had left the world', async () => {
    const p = page([resumeServer(false)]);
    saveSession(SAVED, p.sessions);

    p.manager.start();
    await vi.waitFor(() => expect(p.screens.current).toBe('characters'), { timeout: 5000 });

    expect(p.screenNow()?.content).toEqual(['characters of ann']);
    // Nothing to select again out of the world.
    expect(p.restored).toEqual([44, undefined]);
    expect(loadSession(p.sessions)?.token).toBe(tokenToHex(FRESH));
  });

  it(`tries ${RELOAD_ATTEMPTS} times on the card, then asks for a login`, async () => {
    const p = page([]);
    saveSession(SAVED, p.sessions);

    p.manager.start();
    await vi.waitFor(() => expect(p.screens.current).toBe('login'), { timeout: 5000 });

    expect(p.urls).toEqual([OWN, OWN, OWN]);
    expect(p.said).toEqual([
      'card: Reconnecting…',
      `card: Reconnecting (attempt 2 of ${RELOAD_ATTEMPTS})…`,
      `card: Reconnecting (attempt 3 of ${RELOAD_ATTEMPTS})…`,
    ]);
    expect(p.screenNow()?.content).toEqual([
      'login: Could not resume the session (ECONNREFUSED). Log in again.',
    ]);
    expect(loadSession(p.sessions)).toBeUndefined();
  });

  it('stops at the first refusal of the token and gives the server’s reason', async () => {
    const p = page([(s) => s.handle(Resume, () => s.refuse(Resume, 'ERR_BAD_RESUME', 'expired'))]);
    saveSession(SAVED, p.sessions);

    p.manager.start();
    await vi.waitFor(() => expect(p.screens.current).toBe('login'), { timeout: 5000 });

    expect(p.urls).toEqual([OWN]);
    const refusal = new WyvernError('ERR_BAD_RESUME', 'expired', true);
    expect(p.screenNow()?.content).toEqual([`login: ${refusal.message}`]);
    expect(loadSession(p.sessions)).toBeUndefined();
  });

  it('asks for a login at once when the tab has no session', () => {
    const p = page([]);
    p.manager.start();
    expect(p.shown).toEqual([{ screen: 'login', content: ['login: '] }]);
    expect(p.urls).toEqual([]);
  });
});
