/**
 * A client that stops reading in a busy area. Thirty clients (TCP and WebSocket) walk in small
 * circles around the spawn, all in view of each other; one more TCP client enters the world
 * and pauses its socket for good. With small send limits (4 KiB soft, 64 KiB hard) the server
 * must skip that client's motion records once it is behind, cut it at the hard limit
 * ('slow consumer'), and meanwhile keep answering and updating everyone else.
 *
 * On loopback the kernel's socket buffers absorb megabytes before the server's own queue
 * grows at all, which moves alone would take minutes to fill. So the paused client also asks
 * `who` over and over (it can still write): each answer is a WhoList of every player, and a
 * few thousand of them fill the buffers in a second or two. The steps wait for conditions
 * (the queue over the soft limit, a drop counted, the session closed), never for times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Who } from '../../shared/protocol/chat.js';
import { PositionCorrection } from '../../shared/protocol/movement.js';
import type { TcpTransport } from '../../tools/net/tcp-transport.js';
import { droppedPackets, framesIn } from '../../server/metrics/index.js';
import type { Session } from '../../server/session/session.js';
import {
  sleep,
  startGameClient,
  startWorldServer,
  type GameClient,
  type WorldServer,
} from '../helpers/game-client.js';

const WALKERS = 30;
const SOFT_LIMIT = 4 * 1024;
const HARD_LIMIT = 64 * 1024;
const PLAYER_SPAWN = { x: 100, y: 100 };
/** Walkers circle through the spawn: radius 20, 0.3 rad a step (6 units), 10 steps a second. */
const CIRCLE_RADIUS = 20;
const STEP_ANGLE = 0.3;
const STEP_MS = 100;
/**
 * Who requests the paused client writes at once. Their answers (a WhoList of 31 players,
 * about 600 bytes each) are queued in one turn: well under the hard limit together.
 */
const WHO_BATCH = 60;

/** Letters only (character names): a, b, ..., z, ba, bb, ... */
function letters(n: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

/** Walks one client around a circle that passes through the spawn until `stop` is set. */
function walkInCircles(game: GameClient, index: number, stop: { done: boolean }): Promise<void> {
  const phase = (index / WALKERS) * 2 * Math.PI;
  const cx = PLAYER_SPAWN.x + CIRCLE_RADIUS * Math.cos(phase);
  const cy = PLAYER_SPAWN.y + CIRCLE_RADIUS * Math.sin(phase);
  return (async () => {
    // Positions by step count, not by clock: a stalled loop never asks for a faster step.
    for (let k = 1; !stop.done && !game.client.isClosed; k++) {
      const angle = phase + Math.PI + k * STEP_ANGLE;
      const facing = (angle + Math.PI / 2) % (2 * Math.PI);
      // Walking a circle turns all the time: every step is a new movement state.
      game.client.sendMove(
        cx + CIRCLE_RADIUS * Math.cos(angle),
        cy + CIRCLE_RADIUS * Math.sin(angle),
        facing,
        true,
        (CIRCLE_RADIUS * STEP_ANGLE * 1000) / STEP_MS,
      );
      await sleep(STEP_MS);
    }
  })();
}

async function waitUntil(what: string, condition: () => boolean, timeoutMs: number, tick?: () => void) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    tick?.();
    await sleep(5);
  }
}

/** Every walker still gets its pings answered and other walkers' moves. */
async function expectWalkersServed(walkers: readonly GameClient[]): Promise<void> {
  await Promise.all(
    walkers.map(async (w) => {
      const since = w.log.mark();
      await w.client.ping();
      await w.log.expectRecord('move', { since, predicate: (m) => m.id !== w.entityId });
    }),
  );
}

function metricValue(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('a client that stops reading', () => {
  let world: WorldServer;
  const walkers: GameClient[] = [];
  let slow: GameClient | undefined;
  const stop = { done: false };
  let walking: Promise<void>[] = [];

  beforeAll(async () => {
    world = await startWorldServer({
      SEND_SOFT_LIMIT: String(SOFT_LIMIT),
      SEND_HARD_LIMIT: String(HARD_LIMIT),
      // Who is in the chat rate class; the paused client's requests are the load here.
      RATE_CHAT: '1000000',
      RATE_CHAT_BURST: '1000000',
      // A cut connection's character stays for the linger time, then leaves: keep it short here.
      LINGER_MS: '200',
    });
    const ports = { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort };
    // A few at a time: logins share one SRP worker.
    for (let i = 0; i < WALKERS; i += 6) {
      const batch = [];
      for (let j = i; j < Math.min(WALKERS, i + 6); j++) {
        batch.push(
          startGameClient(ports, { transport: j % 3 === 2 ? 'ws' : 'tcp', name: `Walker${letters(j)}` }),
        );
      }
      walkers.push(...(await Promise.all(batch)));
    }
    walking = walkers.map((w, i) => walkInCircles(w, i, stop));
  });

  afterAll(async () => {
    stop.done = true;
    await Promise.all(walking);
    for (const c of [...walkers, slow]) c?.close();
    await world?.stop();
  });

  it('skips its motion over the soft limit, cuts it at the hard limit, and serves everyone else', async () => {
    const server = world.server;
    slow = await startGameClient(
      { tcpPort: server.tcpPort, httpPort: server.httpPort },
      { transport: 'tcp', name: 'Slowpoke' },
    );
    const slowId = slow.entityId;
    const session = [...server.dispatcher.sessions.values()].find((s) => s.entityId === slowId) as Session;
    expect(session).toBeDefined();
    // It sees the walkers move before it stops reading.
    await slow.log.expectRecord('move', { predicate: (m) => m.id !== slowId });

    const slowSocket = (slow.client.transport as TcpTransport).socket;
    slowSocket.pause();
    const who = Who.encode({});
    const whoBatch = new Uint8Array(who.length * WHO_BATCH);
    for (let i = 0; i < WHO_BATCH; i++) whoBatch.set(who, i * who.length);
    // One batch at a time, the next only once the server has read the last: one batch's
    // answers are queued in one turn, and must not overshoot the hard limit by themselves.
    const whoRead = framesIn.get('Who');
    let whoSent = 0;
    const ask = () => {
      if (framesIn.get('Who') - whoRead < whoSent) return;
      slowSocket.write(whoBatch);
      whoSent += WHO_BATCH;
    };
    const behind = () => session.conn.bufferedBytes() > SOFT_LIMIT;

    // Fill the pipe until the server's own queue for it is over the soft limit...
    await waitUntil('the paused client is over the soft limit', behind, 20_000, () => {
      if (!behind()) ask();
    });
    // ...where its motion is skipped while it stays behind (topped up only if it drained).
    const movesDropped = droppedPackets.get('WorldUpdate');
    await waitUntil(
      'motion for the paused client is skipped',
      () => droppedPackets.get('WorldUpdate') > movesDropped,
      10_000,
      () => {
        if (!behind()) ask();
      },
    );
    expect(session.closing).toBe(false);
    await expectWalkersServed(walkers);

    // More answers it cannot take push it over the hard limit: the server cuts it.
    await waitUntil('the server closes the paused client', () => session.closing, 10_000, ask);
    expect(session.closeReason).toBe('slow consumer');
    // The socket itself goes once the close grace is over; the world then lets it go.
    await waitUntil('the session is gone', () => !server.dispatcher.sessions.has(session.id), 10_000);
    await Promise.all(
      walkers.map((w) =>
        w.log.expectRecord('despawn', { predicate: (d) => d.id === slowId && d.reason === 'left' }),
      ),
    );

    const metrics = await (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();
    expect(metricValue(metrics, 'wyvern_disconnects_total', 'reason="slow consumer"')).toBe(1);
    expect(metricValue(metrics, 'wyvern_dropped_packets_total', 'packet="WorldUpdate"')).toBeGreaterThan(0);

    // Nobody else was cut, corrected or starved.
    await expectWalkersServed(walkers);
    for (const w of walkers) {
      expect(w.client.isClosed).toBe(false);
      expect(w.log.records('despawn', (d) => d.id !== slowId && d.reason === 'left')).toEqual([]);
      expect(w.log.all(PositionCorrection)).toEqual([]);
    }
  });
});
