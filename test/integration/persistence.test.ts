/**
 * Characters survive the server: the real server runs as its own process on a temporary
 * SQLite file. A graceful stop (SIGTERM) saves where the character stands; with a short
 * autosave interval, a SIGKILL loses nothing written by the last autosave and leaves the
 * database intact.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { MoveAck, PositionCorrection } from '../../shared/protocol/movement.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';

const START_TIMEOUT_MS = 15_000;
/** Units per MoveInput, sent every MOVE_INTERVAL_MS: 100 units/s, under the walking speed. */
const STEP_UNITS = 5;
const MOVE_INTERVAL_MS = 50;

interface Point {
  x: number;
  y: number;
}

interface ServerProcess {
  readonly tcpPort: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly output: string[];
  kill(signal: NodeJS.Signals): void;
}

const running = new Set<ChildProcess>();

/** Starts `node --import tsx server/main.ts` and resolves once it logs its ports. */
function startServerProcess(dbFile: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${dbFile}`,
      DATA_DIR: 'data/test',
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      LOG_LEVEL: 'info',
      SRP_WORKERS: '1',
      SHUTDOWN_TIMEOUT_MS: '3000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start in ${START_TIMEOUT_MS} ms:\n${output.join('\n')}`));
    }, START_TIMEOUT_MS);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before it was up:\n${output.join('\n')}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      let entry: { msg?: unknown; tcp?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      if (typeof entry.tcp !== 'number' || !String(entry.msg).startsWith('Wyvern is up')) return;
      clearTimeout(timer);
      resolve({ tcpPort: entry.tcp, exited, output, kill: (s) => child.kill(s) });
    });
  });
}

async function connect(server: ServerProcess): Promise<WyvernClient> {
  const client = new WyvernClient(await TcpTransport.connect({ host: '127.0.0.1', port: server.tcpPort }));
  await client.hello({ clientKind: 'bot', clientName: 'persistence' });
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Walks in a straight line at under the walking speed and resolves once the server has
 * accepted the last step. Any PositionCorrection fails it: the place would not be `to`.
 */
async function walk(client: WyvernClient, from: Point, to: Point): Promise<void> {
  let acked = 0;
  let corrected: unknown;
  const offAck = client.on(MoveAck, (a) => (acked = Math.max(acked, a.seq)));
  const offCorrection = client.on(PositionCorrection, (c) => (corrected = c));
  try {
    const steps = Math.ceil(Math.hypot(to.x - from.x, to.y - from.y) / STEP_UNITS);
    let seq = 0;
    for (let i = 1; i <= steps; i++) {
      seq = client.sendMove(
        from.x + ((to.x - from.x) * i) / steps,
        from.y + ((to.y - from.y) * i) / steps,
        0,
      );
      await sleep(MOVE_INTERVAL_MS);
    }
    for (let waited = 0; acked < seq && corrected === undefined; waited += MOVE_INTERVAL_MS) {
      if (waited > 5_000) throw new Error(`no MoveAck for seq ${seq}`);
      await sleep(MOVE_INTERVAL_MS);
    }
    expect(corrected).toBeUndefined();
  } finally {
    offAck();
    offCorrection();
  }
}

/** Polls the database file (read-only, beside the running server) until `done` holds. */
async function waitForRow(
  dbFile: string,
  characterId: number,
  done: (row: Point) => boolean,
): Promise<Point> {
  for (let waited = 0; ; waited += 100) {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT x, y FROM characters WHERE id = ?').get(characterId) as
        Point | undefined;
      if (row && done(row)) return row;
      if (waited > 10_000)
        throw new Error(`character ${characterId} never reached the database: ${JSON.stringify(row)}`);
    } finally {
      db.close();
    }
    await sleep(100);
  }
}

const near = (a: Point, b: Point) => Math.abs(a.x - b.x) < 0.01 && Math.abs(a.y - b.y) < 0.01;

describe('character persistence across server restarts', () => {
  let dir: string;
  let dbFile: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-persist-'));
    dbFile = join(dir, 'w.db');
  });

  afterEach(async () => {
    for (const child of running) child.kill('SIGKILL');
    await Promise.all([...running].map((c) => new Promise((resolve) => c.once('exit', resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the place saved by a graceful stop and by an autosave before a SIGKILL', async () => {
    const account = 'Wanderer';
    const password = 'long road';

    // First run: a new character walks somewhere; SIGTERM saves it.
    let server = await startServerProcess(dbFile, { AUTOSAVE_INTERVAL_MS: '600000' });
    let client = await connect(server);
    await client.register(account, password);
    await client.login(account, password);
    const character = await client.createCharacter('Strider', 1);
    let entered = await client.enterWorld(character.id);
    const spawn = { x: entered.enter.x, y: entered.enter.y };
    const first = { x: spawn.x + 40, y: spawn.y + 25 };
    await walk(client, spawn, first);
    server.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    client.close();

    // Second run, same file: the character stands where it stopped.
    server = await startServerProcess(dbFile, { AUTOSAVE_INTERVAL_MS: '500' });
    client = await connect(server);
    await client.login(account, password);
    expect(await client.listCharacters()).toEqual([character]);
    entered = await client.enterWorld(character.id);
    expect(entered.enter.x).toBeCloseTo(first.x, 2);
    expect(entered.enter.y).toBeCloseTo(first.y, 2);

    // Walk on, let an autosave write it, then kill the server without warning.
    const second = { x: first.x + 30, y: first.y - 35 };
    await walk(client, first, second);
    await waitForRow(dbFile, character.id, (row) => near(row, second));
    server.kill('SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
    client.close();

    const db = new Database(dbFile, { fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }

    // Third run: the autosaved place is there.
    server = await startServerProcess(dbFile);
    client = await connect(server);
    await client.login(account, password);
    entered = await client.enterWorld(character.id);
    expect(entered.enter.x).toBeCloseTo(second.x, 2);
    expect(entered.enter.y).toBeCloseTo(second.y, 2);
    client.close();
    server.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});
