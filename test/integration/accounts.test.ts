/**
 * Accounts and the character screen through the client SDK over real sockets: raw TCP, and
 * WebSocket on uWebSockets.js and on `ws`. The server runs the account and character
 * handlers on a temporary SQLite file and a small SRP pool.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { makeVerifier } from '../../shared/client/srp.js';
import { WebSocketTransport } from '../../shared/client/websocket-transport.js';
import { LoginOk, LoginProof, Register, Registered } from '../../shared/protocol/account.js';
import { MAX_CHARACTERS } from '../../shared/protocol/character.js';
import { Bye } from '../../shared/protocol/session.js';
import type { ServerHandle } from '../../server/main.js';
import { loginResults } from '../../server/metrics/index.js';
import { accountHandlers } from '../../server/session/account.js';
import { AccountService } from '../../server/session/accounts.js';
import { characterHandlers } from '../../server/session/characters.js';
import { LoginLimiter } from '../../server/session/login-limiter.js';
import { SrpPool } from '../../server/session/srp.js';
import { openStore, type CharacterState, type Store } from '../../server/store/index.js';
import { loadNativeUws } from '../../server/transport/web.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import { startTestServer, stopTestServers } from './harness.js';

const hasUws = loadNativeUws().uws !== undefined;

function startingState(): CharacterState {
  return {
    zone: 'greenvale',
    x: 120,
    y: 80,
    facing: 0,
    level: 1,
    health: 100,
    mana: 50,
    spells: [1],
    kills: 0,
    experience: 0,
  };
}

interface Route {
  readonly name: string;
  readonly kind: 'tcp' | 'ws';
  readonly server: () => ServerHandle;
}

let serial = 0;
/** An account or character name no other call in this file returns (letters only). */
function uniqueName(prefix: string): string {
  serial += 1;
  let suffix = '';
  for (let n = serial; n > 0; n = Math.floor(n / 26)) suffix += String.fromCharCode(97 + (n % 26));
  return `${prefix}${suffix}`;
}

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.length).indexOf(needle);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(chunks));
}

async function loginCount(result: string): Promise<number> {
  const metric = await loginResults.get();
  return metric.values.find((v) => v.labels.result === result)?.value ?? 0;
}

describe('accounts and characters over real sockets', () => {
  let dir: string;
  let store: Store;
  let pool: SrpPool;
  let accounts: AccountService;
  let uwsServer: ServerHandle | undefined;
  let wsServer: ServerHandle;
  const clients: WyvernClient[] = [];

  async function startAccountServer(env: Record<string, string>, service: AccountService) {
    return startTestServer(env, {
      handlers: [
        accountHandlers({ accounts: service }),
        characterHandlers({ accounts: service, startingState }),
      ],
    });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-accounts-it-'));
    store = await openStore(`sqlite:${join(dir, 'wyvern.db')}`);
    pool = new SrpPool({ size: 2 });
    await pool.ready();
    accounts = new AccountService({ store, srp: pool, secret: new Uint8Array(32).fill(7) });
    if (hasUws) uwsServer = await startAccountServer({ WS_ENGINE: 'uws' }, accounts);
    wsServer = await startAccountServer({ WS_ENGINE: 'ws' }, accounts);
  });

  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });

  afterAll(async () => {
    await stopTestServers();
    await pool?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has the native uWebSockets.js build to test against', () => {
    expect(hasUws).toBe(true);
  });

  const routes: Route[] = [
    { name: 'tcp', kind: 'tcp', server: () => wsServer },
    { name: 'uws', kind: 'ws', server: () => uwsServer ?? wsServer },
    { name: 'ws', kind: 'ws', server: () => wsServer },
  ];

  describe.each(routes)('over $name', (route) => {
    /** A client past Hello; `sent` holds every byte it wrote to the server. */
    async function connect(): Promise<{ client: WyvernClient; sent: Uint8Array[] }> {
      const server = route.server();
      const transport =
        route.kind === 'tcp'
          ? await TcpTransport.connect({ host: '127.0.0.1', port: server.tcpPort })
          : await WebSocketTransport.connect(`ws://127.0.0.1:${server.httpPort}/ws`, WebSocket);
      const sent: Uint8Array[] = [];
      const send = transport.send.bind(transport);
      transport.send = (bytes) => {
        sent.push(bytes.slice());
        send(bytes);
      };
      const client = new WyvernClient(transport);
      clients.push(client);
      await client.hello({ clientKind: 'bot', clientName: `accounts-${route.name}` });
      return { client, sent };
    }

    /** A registered account and a client logged in to it. */
    async function loggedIn(password = 'pw'): Promise<{ client: WyvernClient; account: string }> {
      const account = uniqueName(`${route.name}_`);
      const { client } = await connect();
      await client.register(account, password);
      await client.login(account, password);
      return { client, account };
    }

    it('registers, logs in, creates, lists and deletes a character, never sending the password', async () => {
      const password = 'correct horse battery staple';
      const account = uniqueName(`Hero_${route.name}_`);
      const { client, sent } = await connect();

      expect(await client.register(account, password)).toEqual({ account });
      const login = await client.login(account.toLowerCase(), password);
      expect(login).toMatchObject({ account, accountId: expect.any(Number) });
      expect(login.resumeToken).toHaveLength(32);
      expect(client.state).toBe('authenticated');

      const name = uniqueName('Arwen');
      const created = await client.createCharacter(name.toUpperCase(), 5);
      expect(created).toEqual({
        id: expect.any(Number),
        name: name.charAt(0).toUpperCase() + name.slice(1).toLowerCase(),
        level: 1,
        zone: 'greenvale',
        appearance: 5,
      });
      expect(await client.listCharacters()).toEqual([created]);
      await client.deleteCharacter(created.id);
      expect(await client.listCharacters()).toEqual([]);

      const bytes = concat(sent);
      expect(indexOfBytes(bytes, new TextEncoder().encode(account))).toBeGreaterThanOrEqual(0);
      expect(indexOfBytes(bytes, new TextEncoder().encode(password))).toBe(-1);
    });

    it('refuses a wrong password and an unknown account alike, with ERR_BAD_LOGIN', async () => {
      const account = uniqueName(`Frodo_${route.name}_`);
      const { client } = await connect();
      await client.register(account, 'ring');
      const before = await loginCount('bad_login');

      const wrong = await client.login(account, 'precious').catch((e: unknown) => e);
      const unknown = await client.login(uniqueName('Nobody_'), 'ring').catch((e: unknown) => e);
      expect(wrong).toMatchObject({ code: 'ERR_BAD_LOGIN', fatal: false, opcode: LoginProof.opcode });
      expect(unknown).toMatchObject({ code: 'ERR_BAD_LOGIN', fatal: false, opcode: LoginProof.opcode });
      expect(await loginCount('bad_login')).toBe(before + 2);

      // A refusal is not fatal: the same connection logs in with the right password.
      expect(await client.login(account, 'ring')).toMatchObject({ account });
    });

    it('refuses a taken account name ignoring case, a bad one and an unusable verifier', async () => {
      const account = uniqueName(`Sam_${route.name}_`);
      const { client } = await connect();
      await client.register(account, 'one');
      await expect(client.register(account.toUpperCase(), 'two')).rejects.toMatchObject({
        code: 'ERR_ACCOUNT_TAKEN',
        opcode: Register.opcode,
      });
      await expect(client.register('no', 'two')).rejects.toMatchObject({ code: 'ERR_BAD_ACCOUNT_NAME' });
      const { salt } = await makeVerifier('whoever', 'pw');
      await expect(
        client.request(
          Register,
          { account: uniqueName('Bad_'), salt, verifier: Uint8Array.of(1) },
          Registered,
        ),
      ).rejects.toMatchObject({ code: 'ERR_BAD_VERIFIER', fatal: false });
      expect(client.isClosed).toBe(false);
    });

    it('refuses a LoginProof without a LoginStart, without closing', async () => {
      const { client } = await connect();
      await expect(
        client.request(LoginProof, { A: Uint8Array.of(2), M1: new Uint8Array(64) }, LoginOk),
      ).rejects.toMatchObject({ code: 'ERR_WRONG_STATE', fatal: false, opcode: LoginProof.opcode });
      expect(client.isClosed).toBe(false);
    });

    it('refuses a taken character name ignoring case, a bad name and a foreign character', async () => {
      const first = await loggedIn();
      const second = await loggedIn();
      const name = uniqueName('Legolas');
      const mine = await first.client.createCharacter(name, 1);

      await expect(second.client.createCharacter(name.toUpperCase(), 2)).rejects.toMatchObject({
        code: 'ERR_NAME_TAKEN',
        fatal: false,
      });
      await expect(second.client.createCharacter('x1', 2)).rejects.toMatchObject({ code: 'ERR_BAD_NAME' });
      await expect(second.client.deleteCharacter(mine.id)).rejects.toMatchObject({
        code: 'ERR_NO_SUCH_CHARACTER',
      });
      expect(await first.client.listCharacters()).toEqual([mine]);
      expect(await second.client.listCharacters()).toEqual([]);
    });

    it('refuses a character past the account limit', async () => {
      const { client } = await loggedIn();
      for (let i = 0; i < MAX_CHARACTERS; i++) await client.createCharacter(uniqueName('Slot'), 0);
      await expect(client.createCharacter(uniqueName('Slot'), 0)).rejects.toMatchObject({
        code: 'ERR_TOO_MANY_CHARACTERS',
      });
      expect(await client.listCharacters()).toHaveLength(MAX_CHARACTERS);
    });

    it('lets a second login take the account over: the first gets Bye takenOver and closes', async () => {
      const { client: first, account } = await loggedIn('pw');
      const bye = first.waitFor(Bye, { timeoutMs: 0 });
      const { client: second } = await connect();
      await second.login(account, 'pw');

      expect(await bye).toMatchObject({ reason: 'takenOver' });
      await first.closed;
      expect(await second.listCharacters()).toEqual([]);
      expect(second.isClosed).toBe(false);
    });

    it('resumes once with a token, and the fresh token works in turn', async () => {
      const { client: first, account } = await loggedIn('pw');
      const token = first.resumeToken!;
      first.close();
      await first.closed;

      const { client: second } = await connect();
      const resumed = await second.resume(account, token);
      expect(resumed).toMatchObject({ account, accountId: first.accountId });
      expect(resumed.resumeToken).not.toEqual(token);
      expect(await second.listCharacters()).toEqual([]);

      const { client: third } = await connect();
      await expect(third.resume(account, token)).rejects.toMatchObject({
        code: 'ERR_BAD_RESUME',
        fatal: false,
      });
      const bye = second.waitFor(Bye, { timeoutMs: 0 });
      await third.resume(account, resumed.resumeToken);
      expect(await bye).toMatchObject({ reason: 'takenOver' });
      expect(third.state).toBe('authenticated');
    });
  });

  it('refuses logins with ERR_LOGIN_THROTTLED after too many failures', async () => {
    const strict = new AccountService({
      store,
      srp: pool,
      secret: new Uint8Array(32).fill(7),
      limiter: new LoginLimiter({ perAccountAddress: 1, perAddress: 100 }),
    });
    const server = await startAccountServer({ WS_ENGINE: 'ws' }, strict);
    const transport = await TcpTransport.connect({ host: '127.0.0.1', port: server.tcpPort });
    const client = new WyvernClient(transport);
    clients.push(client);
    await client.hello({ clientKind: 'bot', clientName: 'throttle' });
    const account = uniqueName('Gollum_');
    await client.register(account, 'fish');

    await expect(client.login(account, 'ring')).rejects.toMatchObject({ code: 'ERR_BAD_LOGIN' });
    await expect(client.login(account, 'fish')).rejects.toMatchObject({
      code: 'ERR_LOGIN_THROTTLED',
      fatal: false,
    });
  });
});
