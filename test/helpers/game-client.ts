/**
 * Game clients for integration tests: one call connects over TCP or WebSocket, registers,
 * logs in, creates a character and enters the world. Every packet received is kept in a
 * PacketLog from the first byte on, so a test can wait for a packet that may already have
 * arrived (spawns come in the same batch as EnterWorld) and can check what never arrived.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { loadConfig } from '../../server/config.js';
import { startWyvern, type WyvernHandle } from '../../server/main.js';
import {
  WyvernClient,
  type AnyServerDef,
  type EnterWorldResult,
  type ResumeResult,
} from '../../shared/client/client.js';
import { WebSocketTransport, type WebSocketLike } from '../../shared/client/websocket-transport.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import { WorldUpdate } from '../../shared/protocol/entity.js';
import type { EntityRecord } from '../../shared/protocol/records.js';
import { MoveAck, PositionCorrection } from '../../shared/protocol/movement.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';

export type GameTransport = 'tcp' | 'ws';

const TEST_DATA = fileURLToPath(new URL('../../data/test', import.meta.url));

export interface WorldServer {
  readonly server: WyvernHandle;
  /** Stops the server and removes its database directory. */
  stop(): Promise<void>;
}

/**
 * The whole game server on 127.0.0.1 with ephemeral ports, the short-timer test data, a fresh
 * SQLite database in a temporary directory and quiet logs; `env` overrides any setting.
 */
export async function startWorldServer(env: Record<string, string> = {}, seed = 1): Promise<WorldServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-world-'));
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'w.db')}`,
      DATA_DIR: TEST_DATA,
      LOG_LEVEL: 'silent',
      SRP_WORKERS: '1',
      SHUTDOWN_TIMEOUT_MS: '2000',
      ...env,
    },
    [],
  );
  let server: WyvernHandle;
  try {
    server = await startWyvern(config, { seed });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    server,
    async stop() {
      try {
        await server.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface LoggedPacket {
  /** A packet's name, or `@kind` for one entity record of a WorldUpdate. */
  readonly name: string;
  readonly payload: unknown;
}

type RecordKind = EntityRecord['kind'];
type RecordOf<K extends RecordKind> = Extract<EntityRecord, { kind: K }>;

interface Waiter {
  readonly name: string;
  readonly since: number;
  readonly predicate: (payload: any) => boolean;
  readonly resolve: (payload: unknown) => void;
}

export interface ExpectOptions<T> {
  predicate?: (payload: T) => boolean;
  /** Only packets at or after this log position (from `mark()`); default: the whole log. */
  since?: number;
  timeoutMs?: number;
}

/** Every packet a client received, in order, with waits that see the past as well as the future. */
export class PacketLog {
  readonly entries: LoggedPacket[] = [];
  private readonly waiters = new Set<Waiter>();
  private closedReason: string | undefined;

  constructor(private readonly label: string) {}

  record(name: string, payload: unknown): void {
    this.add(name, payload);
    // A WorldUpdate's records are logged one by one after it, so tests wait for records.
    if (name === WorldUpdate.name) {
      for (const r of (payload as PayloadOf<typeof WorldUpdate>).records) this.add(`@${r.kind}`, r);
    }
  }

  private add(name: string, payload: unknown): void {
    this.entries.push({ name, payload });
    for (const w of this.waiters) {
      if (w.name === name && w.predicate(payload)) {
        this.waiters.delete(w);
        w.resolve(payload);
      }
    }
  }

  /** The connection is gone: pending waits fail at once instead of timing out. */
  close(reason: string): void {
    this.closedReason = reason;
  }

  /** The position of the next packet: pass it as `since` to ignore what came before. */
  mark(): number {
    return this.entries.length;
  }

  /** Every received `def` packet (since `since`) that passes `predicate`. */
  all<P extends AnyServerDef>(
    def: P,
    predicate: (p: PayloadOf<P>) => boolean = () => true,
    since = 0,
  ): PayloadOf<P>[] {
    return this.named(def.name, predicate, since);
  }

  /** Every received entity record of `kind` (since `since`) that passes `predicate`. */
  records<K extends RecordKind>(
    kind: K,
    predicate: (r: RecordOf<K>) => boolean = () => true,
    since = 0,
  ): RecordOf<K>[] {
    return this.named(`@${kind}`, predicate, since);
  }

  private named<T>(name: string, predicate: (p: T) => boolean, since: number): T[] {
    const out: T[] = [];
    for (let i = since; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.name === name && predicate(e.payload as T)) out.push(e.payload as T);
    }
    return out;
  }

  /** Log position of the first entity record of `kind` (since `since`) that passes `predicate`; -1 when none. */
  indexOfRecord<K extends RecordKind>(kind: K, predicate: (r: RecordOf<K>) => boolean, since = 0): number {
    for (let i = since; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.name === `@${kind}` && predicate(e.payload as RecordOf<K>)) return i;
    }
    return -1;
  }

  /** The first `def` packet (since `since`) that passes `predicate`, received already or later. */
  expect<P extends AnyServerDef>(def: P, options: ExpectOptions<PayloadOf<P>> = {}): Promise<PayloadOf<P>> {
    return this.wait(def.name, options);
  }

  /** The first entity record of `kind` (since `since`) that passes `predicate`, received already or later. */
  expectRecord<K extends RecordKind>(
    kind: K,
    options: ExpectOptions<RecordOf<K>> = {},
  ): Promise<RecordOf<K>> {
    return this.wait(`@${kind}`, options);
  }

  private wait<T>(name: string, options: ExpectOptions<T>): Promise<T> {
    const predicate = options.predicate ?? (() => true);
    const since = options.since ?? 0;
    const found = this.named(name, predicate, since)[0];
    if (found !== undefined) return Promise.resolve(found);
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        name,
        since,
        predicate: predicate as (p: unknown) => boolean,
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p as T);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const tail = this.entries
          .slice(-12)
          .map((e) => e.name)
          .join(', ');
        const closed = this.closedReason ? ` (closed: ${this.closedReason})` : '';
        reject(
          new Error(`${this.label}: no matching ${name} within ${timeoutMs} ms${closed}; last: ${tail}`),
        );
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}

export interface ServerPorts {
  readonly tcpPort: number;
  readonly httpPort: number;
}

export interface GameClientOptions {
  readonly transport: GameTransport;
  /** Character name: 3-16 letters. The account is named after it. */
  readonly name: string;
  readonly password?: string;
  readonly appearance?: number;
  readonly requestTimeoutMs?: number;
  /** Log in to the account made by an earlier client of this name and play its character. */
  readonly existing?: boolean;
  /** Runs between choosing the character and entering the world (to move its stored row, say). */
  readonly beforeEnter?: (characterId: number) => Promise<void>;
}

export interface GameClient {
  readonly client: WyvernClient;
  readonly log: PacketLog;
  readonly transport: GameTransport;
  /** The character's name as the server stores it (capitalised). */
  readonly name: string;
  readonly characterId: number;
  /** The player entity of the newest enterWorld. */
  entityId: number;
  entered: EnterWorldResult;
  /** Enters the world again (after a logout) and updates `entityId`. */
  enter(): Promise<EnterWorldResult>;
  /** The socket dies without a goodbye (no FIN for WebSocket, a destroyed TCP socket). */
  kill(): void;
  close(): void;
}

async function connectTransport(
  server: ServerPorts,
  transport: GameTransport,
): Promise<{ bytes: TcpTransport | WebSocketTransport; kill: () => void }> {
  if (transport === 'tcp') {
    const tcp = await TcpTransport.connect({ host: '127.0.0.1', port: server.tcpPort });
    return { bytes: tcp, kill: () => tcp.socket.destroy() };
  }
  // Opened here rather than by WebSocketTransport.connect so a test can kill the socket itself.
  const socket = new WebSocket(`ws://127.0.0.1:${server.httpPort}/ws`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const ws = new WebSocketTransport(socket as unknown as WebSocketLike);
  return { bytes: ws, kill: () => socket.terminate() };
}

/** Connects, registers, logs in, creates a character and enters the world. */
export async function startGameClient(server: ServerPorts, options: GameClientOptions): Promise<GameClient> {
  const { bytes, kill } = await connectTransport(server, options.transport);
  const client = new WyvernClient(bytes, { requestTimeoutMs: options.requestTimeoutMs ?? 15_000 });
  const log = new PacketLog(options.name);
  client.onPacket = (name, payload) => log.record(name, payload);
  client.onClose = (reason) => log.close(reason);
  // Refusals nobody waits for (a whisper to nobody, say) are in the log; do not throw them.
  client.onError = () => {};
  try {
    const account = `${options.name.toLowerCase()}_acct`;
    const password = options.password ?? `pw-${options.name}`;
    await client.hello({ clientKind: 'bot', clientName: 'integration-test' });
    if (!options.existing) await client.register(account, password);
    await client.login(account, password);
    const character = options.existing
      ? (await client.listCharacters()).find((c) => c.name.toLowerCase() === options.name.toLowerCase())
      : await client.createCharacter(options.name, options.appearance ?? 1);
    if (!character) throw new Error(`no character ${options.name} on its account`);
    await options.beforeEnter?.(character.id);
    const entered = await client.enterWorld(character.id);
    const game: GameClient = {
      client,
      log,
      transport: options.transport,
      name: character.name,
      characterId: character.id,
      entityId: entered.enter.entityId,
      entered,
      async enter() {
        const again = await client.enterWorld(character.id);
        game.entityId = again.enter.entityId;
        game.entered = again;
        return again;
      },
      kill,
      close: () => client.close(),
    };
    return game;
  } catch (e) {
    client.close();
    throw e;
  }
}

export interface ResumedGame {
  readonly client: WyvernClient;
  readonly log: PacketLog;
  readonly result: ResumeResult;
  /** From `send` (the client's Resume) to Resumed and, when in the world, EnterWorld: ms. */
  readonly ms: number;
  kill(): void;
  close(): void;
}

/**
 * A new connection over `transport` that resumes `from`'s account with its newest resume token
 * (as a client does after its connection dropped); its PacketLog starts with the first byte.
 */
export async function resumeGameClient(
  server: ServerPorts,
  transport: GameTransport,
  from: { client: WyvernClient; log: PacketLog },
  options: { token?: Uint8Array; label?: string } = {},
): Promise<ResumedGame> {
  const account = from.client.account;
  const token = options.token ?? from.client.resumeToken;
  if (account === undefined || token === undefined) throw new Error('the old client never logged in');
  const { bytes, kill } = await connectTransport(server, transport);
  const client = new WyvernClient(bytes, { requestTimeoutMs: 15_000 });
  const log = new PacketLog(options.label ?? `${account} resumed over ${transport}`);
  client.onPacket = (name, payload) => log.record(name, payload);
  client.onClose = (reason) => log.close(reason);
  client.onError = () => {};
  try {
    await client.hello({ clientKind: 'bot', clientName: 'integration-test' });
    const started = performance.now();
    const result = await client.resume(account, token);
    const ms = performance.now() - started;
    return { client, log, result, ms, kill, close: () => client.close() };
  } catch (e) {
    client.close();
    throw e;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WalkOptions {
  /** Longest single MoveInput, in units (player speed is 120 units/s). */
  readonly step?: number;
  /** Time between MoveInputs (ms). */
  readonly intervalMs?: number;
}

/**
 * Walks the own character in a straight line to `to`: one movement state per interval
 * (walking, at the speed the steps make), each within walking speed, each waiting for its
 * MoveAck so inputs never bunch up on a busy machine, and a stop at `to`. Throws if the
 * server corrects a step.
 */
export async function walkTo(
  game: GameClient,
  to: { x: number; y: number },
  options: WalkOptions = {},
): Promise<void> {
  const step = options.step ?? 12;
  const intervalMs = options.intervalMs ?? 100;
  const { client, log } = game;
  const since = log.mark();
  for (;;) {
    const self = client.world.self;
    if (!self) throw new Error(`${game.name} is not in the world`);
    const dx = to.x - self.x;
    const dy = to.y - self.y;
    const left = Math.hypot(dx, dy);
    if (left < 1e-6) return;
    const f = Math.min(1, step / left);
    const facing = Math.atan2(dy, dx);
    const heading = facing < 0 ? facing + 2 * Math.PI : facing;
    // The last step arrives: the character stands there.
    const seq = client.sendMove(self.x + dx * f, self.y + dy * f, heading, f < 1, (step * 1000) / intervalMs);
    await Promise.all([sleep(intervalMs), log.expect(MoveAck, { predicate: (a) => a.seq >= seq, since })]);
    const corrected = log.all(PositionCorrection, () => true, since)[0];
    if (corrected)
      throw new Error(`${game.name} was corrected (${corrected.reason}) walking to ${to.x},${to.y}`);
    if (f === 1) return;
  }
}
