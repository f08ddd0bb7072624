/**
 * A login storm: 200 clients send LoginStart at once to a server with a 2-thread SRP pool.
 * Every client logs in, clients that wait hear their LoginQueue position moving up, and an
 * already-logged-in client's pings are answered all along (their round trips are reported,
 * never asserted: timing depends on the machine).
 *
 * The storm's clients run in worker threads (this same file, started with a role in
 * workerData): their own SRP math costs tens of ms per login and would otherwise stall the
 * event loop the server and the pinging client share, and the round trips would measure the
 * test instead of the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { accountHandlers } from '../../server/session/account.js';
import { AccountService } from '../../server/session/accounts.js';
import { characterHandlers } from '../../server/session/characters.js';
import { SrpPool } from '../../server/session/srp.js';
import { openStore, type CharacterState, type Store } from '../../server/store/index.js';
import type { ServerHandle } from '../../server/main.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import { startTestServer, stopTestServers } from './harness.js';

const STORM_CLIENTS = 200;
/** Threads the storm's clients are split over (their registration math is serial per thread). */
const STORM_THREADS = 1;
const SRP_POOL_SIZE = 2;
const PASSWORD = 'storm front';
const PING_INTERVAL_MS = 50;

interface StormOptions {
  readonly wyvernLoginStorm: true;
  readonly port: number;
  /** Accounts storm_<first> .. storm_<first + count - 1>. */
  readonly first: number;
  readonly count: number;
}

interface StormClientResult {
  readonly ok: boolean;
  readonly error?: string;
  /** LoginQueue positions heard, in order. */
  readonly positions: number[];
  readonly queueLengths: number[];
}

type StormMessage =
  | { type: 'ready' }
  | { type: 'done'; ms: number; clients: StormClientResult[] }
  | { type: 'failed'; error: string };

const stormOptions = workerData as Partial<StormOptions> | null;

/** Runs inside a worker thread: register `count` accounts, wait for 'go', log all in at once. */
async function runStormClients(options: StormOptions, port: NonNullable<typeof parentPort>): Promise<void> {
  const clients: WyvernClient[] = [];
  try {
    for (let i = 0; i < options.count; i++) {
      const transport = await TcpTransport.connect({ host: '127.0.0.1', port: options.port });
      const client = new WyvernClient(transport, { requestTimeoutMs: 60_000 });
      clients.push(client);
    }
    await Promise.all(clients.map((c) => c.hello({ clientKind: 'bot', clientName: 'storm' })));
    for (const [i, c] of clients.entries()) await c.register(`storm_${options.first + i}`, PASSWORD);
    const go = new Promise<void>((resolve) => port.once('message', () => resolve()));
    port.postMessage({ type: 'ready' } satisfies StormMessage);
    await go;

    const started = performance.now();
    const results = await Promise.all(
      clients.map(async (c, i): Promise<StormClientResult> => {
        const positions: number[] = [];
        const queueLengths: number[] = [];
        try {
          await c.login(`storm_${options.first + i}`, PASSWORD, {
            onQueue: (position, length) => {
              positions.push(position);
              queueLengths.push(length);
            },
          });
          return { ok: true, positions, queueLengths };
        } catch (err) {
          return { ok: false, error: String(err), positions, queueLengths };
        }
      }),
    );
    const ms = performance.now() - started;
    port.postMessage({ type: 'done', ms, clients: results } satisfies StormMessage);
  } catch (err) {
    port.postMessage({ type: 'failed', error: String(err) } satisfies StormMessage);
  } finally {
    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.closed));
  }
}

if (stormOptions?.wyvernLoginStorm && parentPort) {
  await runStormClients(stormOptions as StormOptions, parentPort);
} else {
  describe('login storm', () => {
    let dir: string;
    let store: Store;
    let pool: SrpPool;
    let server: ServerHandle;
    const workers: Worker[] = [];

    const startingState = (): CharacterState => ({
      zone: 'greenvale',
      x: 10,
      y: 10,
      facing: 0,
      level: 1,
      health: 100,
      mana: 50,
      spells: [],
      kills: 0,
      experience: 0,
    });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'wyvern-storm-'));
      store = await openStore(`sqlite:${join(dir, 'wyvern.db')}`);
      pool = new SrpPool({ size: SRP_POOL_SIZE });
      await pool.ready();
      const accounts = new AccountService({ store, srp: pool, secret: new Uint8Array(32).fill(3) });
      server = await startTestServer(
        // The storm measures the login queue, not the login deadline: registering 200 accounts
        // first takes a while on a busy machine.
        { WS_ENGINE: 'ws', LOGIN_TIMEOUT_MS: '600000' },
        {
          handlers: [accountHandlers({ accounts }), characterHandlers({ accounts, startingState })],
        },
      );
    });

    afterAll(async () => {
      await Promise.all(workers.map((w) => w.terminate()));
      await stopTestServers();
      await pool?.close();
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Starts this file in a worker thread as some of the storm's clients (tsx compiles it there). */
    function startStormWorker(
      first: number,
      count: number,
    ): { worker: Worker; next: () => Promise<StormMessage> } {
      const options: StormOptions = { wyvernLoginStorm: true, port: server.tcpPort, first, count };
      const w = new Worker(
        `const { workerData } = require('node:worker_threads');
         import('tsx/esm/api').then((tsx) => { tsx.register(); return import(workerData.entry); });`,
        {
          eval: true,
          workerData: { ...options, entry: import.meta.url },
          // Not the runner's flags: they may name loaders a thread cannot use.
          execArgv: [],
        },
      );
      workers.push(w);
      const inbox: StormMessage[] = [];
      const waiting: ((m: StormMessage) => void)[] = [];
      const deliver = (m: StormMessage) => {
        const wait = waiting.shift();
        if (wait) wait(m);
        else inbox.push(m);
      };
      w.on('message', deliver);
      w.on('error', (err) => deliver({ type: 'failed', error: String(err) }));
      w.on('exit', (code) => deliver({ type: 'failed', error: `storm worker exited (${code})` }));
      return {
        worker: w,
        next: () => {
          const m = inbox.shift();
          return m ? Promise.resolve(m) : new Promise((resolve) => waiting.push(resolve));
        },
      };
    }

    it('logs every client in while a logged-in client keeps getting its pongs', async () => {
      // The client already logged in, whose pings measure the server's responsiveness.
      const watcher = new WyvernClient(
        await TcpTransport.connect({ host: '127.0.0.1', port: server.tcpPort }),
      );
      await watcher.hello({ clientKind: 'bot', clientName: 'watcher' });
      await watcher.register('storm_watcher', 'watching');
      await watcher.login('storm_watcher', 'watching');

      const perThread = Math.ceil(STORM_CLIENTS / STORM_THREADS);
      const storms = Array.from({ length: STORM_THREADS }, (_, t) =>
        startStormWorker(t * perThread, Math.min(perThread, STORM_CLIENTS - t * perThread)),
      );
      for (const storm of storms) expect(await storm.next()).toEqual({ type: 'ready' });

      const rtts: number[] = [];
      const pings: Promise<void>[] = [];
      const pinger = setInterval(() => {
        const sent = performance.now();
        pings.push(watcher.ping().then(() => void rtts.push(performance.now() - sent)));
      }, PING_INTERVAL_MS);
      for (const storm of storms) storm.worker.postMessage('go');
      const outcomes = await Promise.all(storms.map((storm) => storm.next()));
      clearInterval(pinger);
      await Promise.all(pings);
      watcher.close();

      const clients: StormClientResult[] = [];
      let ms = 0;
      for (const outcome of outcomes) {
        if (outcome.type !== 'done') {
          throw new Error(`the storm failed: ${outcome.type === 'failed' ? outcome.error : outcome.type}`);
        }
        clients.push(...outcome.clients);
        ms = Math.max(ms, outcome.ms);
      }
      expect(clients.filter((c) => !c.ok)).toEqual([]);
      expect(clients).toHaveLength(STORM_CLIENTS);

      // Positions only move up (towards 1) and lie within the queue; most clients waited.
      for (const c of clients) {
        for (const [i, position] of c.positions.entries()) {
          expect(position).toBeGreaterThanOrEqual(1);
          expect(position).toBeLessThanOrEqual(c.queueLengths[i]!);
          if (i > 0) expect(position).toBeLessThan(c.positions[i - 1]!);
        }
      }
      const waited = clients.filter((c) => c.positions.length > 0);
      expect(waited.length).toBeGreaterThan(STORM_CLIENTS / 2);

      // Every ping sent during the storm got its Pong (a lost one would have rejected above).
      expect(rtts.length).toBe(pings.length);
      expect(rtts.length).toBeGreaterThan(0);
      const sorted = [...rtts].sort((a, b) => a - b);
      const seconds = ms / 1000;
      const updates = clients.reduce((n, c) => n + c.positions.length, 0);
      console.log(
        `login storm: ${STORM_CLIENTS} logins in ${seconds.toFixed(2)} s ` +
          `(${(STORM_CLIENTS / seconds).toFixed(1)} logins/s, SRP pool ${SRP_POOL_SIZE}); ` +
          `${waited.length} clients queued, ${updates} LoginQueue updates, ` +
          `deepest position ${Math.max(0, ...clients.flatMap((c) => c.positions))}; ` +
          `${rtts.length} pings, rtt median ${sorted[sorted.length >> 1]!.toFixed(1)} ms, ` +
          `max ${sorted[sorted.length - 1]!.toFixed(1)} ms`,
      );
    }, 60_000);
  });
}
