/**
 * Resume benchmark: how long a client whose connection dropped takes to be back in the world.
 *
 *   npx tsx bench/resume.ts [--rounds 20]
 *
 * Starts the server as a child process (fresh temp SQLite database, 127.0.0.1, ephemeral
 * ports, the test zone) with an observer in the world. For each way (tcp -> tcp, tcp -> ws,
 * ws -> ws, ws -> tcp) a player enters the world and, --rounds times, its socket is destroyed
 * (no goodbye) and the SDK's reconnect() opens a new connection of the other kind, says Hello
 * and resumes. Measured from the socket's destruction: back in the world (EnterWorld
 * received, resume() resolved) and the first WorldUpdate (its whole view as spawns). The
 * observer must never see the player leave.
 *
 * Writes bench/results/resume.json. The browser's reload is measured by test/e2e/resume.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { WyvernClient } from '../shared/client/client.js';
import { reconnect } from '../shared/client/reconnect.js';
import type { ByteTransport } from '../shared/client/transport.js';
import { WebSocketTransport, type WebSocketLike } from '../shared/client/websocket-transport.js';
import { WorldUpdate } from '../shared/protocol/entity.js';
import { TcpTransport } from '../tools/net/tcp-transport.js';
import {
  adopt,
  freePort,
  killChildren,
  killChildrenOnExit,
  stopChild,
  untilHealthy,
} from './load/children.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench/results');
const TARGET_MS = 1000;

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const ROUNDS = Number(values.rounds);
if (!(ROUNDS > 0)) throw new Error('--rounds must be positive');

killChildrenOnExit('resume');

type Kind = 'tcp' | 'ws';

interface Link {
  transport: ByteTransport;
  /** Destroys the socket: no goodbye, no close frame. */
  kill(): void;
}

async function open(kind: Kind, ports: { tcp: number; http: number }): Promise<Link> {
  if (kind === 'tcp') {
    const tcp = await TcpTransport.connect({ host: '127.0.0.1', port: ports.tcp });
    return { transport: tcp, kill: () => tcp.socket.destroy() };
  }
  const socket = new WebSocket(`ws://127.0.0.1:${ports.http}/ws`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    transport: new WebSocketTransport(socket as unknown as WebSocketLike),
    kill: () => socket.terminate(),
  };
}

async function player(kind: Kind, ports: { tcp: number; http: number }, name: string) {
  const link = await open(kind, ports);
  const client = new WyvernClient(link.transport);
  await client.hello({ clientKind: 'bot', clientName: 'bench-resume' });
  const account = `${name.toLowerCase()}_acct`;
  await client.register(account, `pw-${name}-1`);
  await client.login(account, `pw-${name}-1`);
  const character = await client.createCharacter(name, 1);
  const entered = await client.enterWorld(character.id);
  return { client, link, entityId: entered.enter.entityId };
}

function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const r = (v: number) => Math.round(v * 10) / 10;
  return { count: s.length, p50: r(at(0.5)), p95: r(at(0.95)), max: r(s[s.length - 1]!) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-resume-'));
  const [http, tcp] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      HTTP_PORT: String(http),
      TCP_PORT: String(tcp),
      DATABASE_URL: `sqlite:${join(dir, 'wyvern.db')}`,
      DATA_DIR: join(ROOT, 'data/test'),
      LOG_LEVEL: 'warn',
      SRP_WORKERS: '1',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  adopt(proc);
  try {
    await untilHealthy(proc, http);
    const ports = { tcp, http };
    const observer = await player('ws', ports, 'Observer');
    const left: number[] = [];
    observer.client.on(WorldUpdate, (u) => {
      for (const r of u.records) if (r.kind === 'despawn' && r.reason === 'left') left.push(r.id);
    });
    const ways: [Kind, Kind][] = [
      ['tcp', 'tcp'],
      ['tcp', 'ws'],
      ['ws', 'ws'],
      ['ws', 'tcp'],
    ];
    const results: Record<string, unknown> = {};
    let n = 0;
    for (const [from, to] of ways) {
      const p = await player(from, ports, `Runner${String.fromCharCode(97 + n++)}`);
      let link = p.link;
      let client = p.client;
      const inWorld: number[] = [];
      const firstUpdate: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const next = i % 2 === 0 ? to : from;
        const dropped = performance.now();
        link.kill();
        let opened: Link | undefined;
        let updateAt = 0;
        const back = await reconnect({
          connect: async () => (opened = await open(next, ports)).transport,
          account: client.account!,
          token: client.resumeToken!,
          clientKind: 'bot',
          clientName: 'bench-resume',
          prepare: (c) =>
            c.on(WorldUpdate, () => {
              updateAt ||= performance.now();
            }),
        });
        inWorld.push(performance.now() - dropped);
        if (back.result.entered?.enter.entityId !== p.entityId)
          throw new Error('resumed into another entity');
        while (updateAt === 0) await new Promise((r) => setTimeout(r, 1));
        firstUpdate.push(updateAt - dropped);
        client = back.client;
        link = opened!;
        // Let the new connection settle before the next drop.
        await new Promise((r) => setTimeout(r, 100));
      }
      const key = `${from}->${to}`;
      // Checked before this player's last connection closes (after that it lingers, then leaves).
      const observerSawLeave = left.filter((id) => id === p.entityId).length;
      results[key] = {
        backInWorldMs: summary(inWorld),
        firstWorldUpdateMs: summary(firstUpdate),
        observerSawLeave,
      };
      console.log(
        `${key}: back in the world ${JSON.stringify(summary(inWorld))} ms; observer saw it leave ${observerSawLeave} times`,
      );
      client.close();
    }
    const out = { date: new Date().toISOString(), rounds: ROUNDS, targetMs: TARGET_MS, results };
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'resume.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log('wrote bench/results/resume.json');
    observer.client.close();
  } finally {
    await stopChild(proc);
    killChildren();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
