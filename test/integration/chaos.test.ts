/**
 * kill -9 during a login storm and an autosave, ten times, on the real server process with
 * its SQLite file in a temporary directory. Each round: the server starts on the same file;
 * a walker logs in and walks (each step acknowledged) while a storm of new players
 * registers, logs in and creates characters; at a random moment the server gets SIGKILL.
 * Then, before the next start: the database passes `PRAGMA integrity_check`, every account
 * whose Registered came back exists, every character whose CharacterCreated came back
 * exists, and the walker's saved place is one it stood on no longer than the autosave
 * interval (plus a tick and the write) before the kill.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { mulberry32, randomInt } from '../../shared/game/rng.js';
import { MoveAck, PositionCorrection } from '../../shared/protocol/movement.js';
import { startServerChild, type ServerChild } from '../../tools/fuzz/server.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';

const ROUNDS = 10;
const STORM = 12;
const AUTOSAVE_MS = 1000;
/** A save is taken at a tick and written after it: a tick (50 ms) and the write, with room. */
const SAVE_MARGIN_MS = 300;
const STEP = 4;
const ROW = 24;

const dir = mkdtempSync(join(tmpdir(), 'wyvern-chaos-'));
const dbFile = join(dir, 'wyvern.db');
let server: ServerChild | undefined;

afterAll(async () => {
  if (server && !server.exit) server.proc.kill('SIGKILL');
  await server?.exited;
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function letters(n: number): string {
  let s = '';
  do {
    s += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

async function connect(port: number): Promise<WyvernClient> {
  const client = new WyvernClient(await TcpTransport.connect({ host: '127.0.0.1', port }), {
    requestTimeoutMs: 20_000,
  });
  client.onError = () => {};
  await client.hello({ clientKind: 'bot', clientName: 'chaos' });
  return client;
}

/** Where the walker stood, and until when (ms, Date.now()); the last entry until the kill. */
interface Stand {
  x: number;
  y: number;
  until: number;
}

/**
 * Walks a serpentine that never crosses itself (rows of ROW units, each STEP further in y),
 * one acknowledged step at a time, until `stop()` says so or the connection dies.
 */
async function walk(client: WyvernClient, stands: Stand[], stopped: () => boolean): Promise<void> {
  let corrected = false;
  client.on(PositionCorrection, () => (corrected = true));
  let seq = 0;
  client.on(MoveAck, (a) => (seq = Math.max(seq, a.seq)));
  while (!stopped() && !client.closeReason) {
    const self = client.world.self!;
    const row = Math.round((self.y - 100) / STEP);
    const right = row % 2 === 0;
    let x = self.x + (right ? STEP : -STEP);
    let y = self.y;
    if (x > 100 + ROW || x < 100) {
      x = self.x;
      y = self.y + STEP;
    }
    // Each step a stand: a walk would be held between steps further apart than its heartbeat.
    const sent = client.sendMove(x, y, right ? 0 : Math.PI, false);
    const start = Date.now();
    while (seq < sent && !client.closeReason && Date.now() - start < 5000) await sleep(5);
    if (seq < sent) return;
    expect(corrected).toBe(false);
    stands.at(-1)!.until = Date.now();
    stands.push({ x, y, until: Infinity });
    await sleep(100);
  }
}

it(
  `loses no acknowledged write in ${ROUNDS} kill -9 rounds during logins and autosaves`,
  { timeout: 120_000 },
  async () => {
    const rng = mulberry32(2026);
    const registered: string[] = [];
    const created: number[] = [];
    let walkerCharacter = 0;
    const worstAge: number[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      server = await startServerChild({
        dir,
        env: { AUTOSAVE_INTERVAL_MS: String(AUTOSAVE_MS), DATA_DIR: 'data/test', LOG_LEVEL: 'error' },
      });
      const port = server.tcpPort;

      // The walker: made in the first round, logged in again in every round after.
      const walker = await connect(port);
      if (round === 0) {
        await walker.register('walker', 'chaos password');
        await walker.login('walker', 'chaos password');
        walkerCharacter = (await walker.createCharacter('Walker', 1)).id;
      } else {
        await walker.login('walker', 'chaos password');
      }
      const entered = await walker.enterWorld(walkerCharacter);
      const stands: Stand[] = [{ x: entered.enter.x, y: entered.enter.y, until: Infinity }];

      // The storm: new players, every acknowledgement noted as it comes.
      let killed = false;
      const storm = Array.from({ length: STORM }, async (_, i) => {
        const name = `storm${letters(round)}x${letters(i)}`;
        await sleep(randomInt(rng, 0, 800));
        try {
          const client = await connect(port);
          await client.register(name, 'storm password');
          registered.push(name);
          await client.login(name, 'storm password');
          const character = await client.createCharacter(`S${letters(round * STORM + i + 100)}`, 1);
          created.push(character.id);
          client.close();
        } catch {
          // cut off by the kill: only what was acknowledged counts
        }
      });
      const walking = walk(walker, stands, () => killed);

      await sleep(randomInt(rng, 1200, 2600));
      server.proc.kill('SIGKILL');
      const killedAt = Date.now();
      killed = true;
      expect((await server.exited).signal).toBe('SIGKILL');
      await Promise.all([walking, ...storm]);
      walker.close();

      const db = new Database(dbFile, { readonly: true, fileMustExist: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const accounts = new Set(
          (db.prepare('SELECT name_key FROM accounts').all() as { name_key: string }[]).map(
            (r) => r.name_key,
          ),
        );
        expect(registered.filter((name) => !accounts.has(name.toLowerCase()))).toEqual([]);
        const characters = new Set(
          (db.prepare('SELECT id FROM characters').all() as { id: number }[]).map((r) => r.id),
        );
        expect(created.filter((id) => !characters.has(id))).toEqual([]);

        const row = db.prepare('SELECT x, y FROM characters WHERE id = ?').get(walkerCharacter) as {
          x: number;
          y: number;
        };
        const at = stands.findLastIndex((s) => Math.abs(s.x - row.x) < 0.01 && Math.abs(s.y - row.y) < 0.01);
        expect(at, `saved ${row.x},${row.y} is none of the places walked this round`).toBeGreaterThanOrEqual(
          0,
        );
        const age = Math.max(0, killedAt - Math.min(stands[at]!.until, killedAt));
        worstAge.push(age);
        expect(age).toBeLessThanOrEqual(AUTOSAVE_MS + SAVE_MARGIN_MS);
      } finally {
        db.close();
      }
    }
    // The storms were real: accounts and characters were acknowledged and kept in every round.
    expect(registered.length).toBeGreaterThan(ROUNDS * 2);
    expect(created.length).toBeGreaterThan(ROUNDS);
    expect(worstAge.length).toBe(ROUNDS);
  },
);
