/**
 * Idle benchmark: what connections that never log in cost the server, and that they go.
 *
 *   npx tsx bench/idle.ts [--count 5000] [--addresses 5] [--transport tcp|ws]
 *       [--login-timeout-ms 30000] [--settle-ms 3000]
 *
 * Starts the server as a child process (fresh temp SQLite database, 127.0.0.1, ephemeral
 * ports), measures its memory (process_resident_memory_bytes and nodejs_heap_size_used_bytes
 * from /metrics) after a warm-up, then opens --count connections spread over the loopback
 * addresses 127.0.0.2 .. 127.0.0.(1 + --addresses) (the server takes at most
 * MAX_CONNECTIONS_PER_IP, 1,000 by default, from one address). Each says Hello, hears
 * Welcome and then says nothing. With all of them open the server's memory is measured
 * again; the difference over the count is the cost of one idle pre-login connection. Then
 * a legitimate client registers and logs in from 127.0.0.1, and the benchmark waits for the
 * login deadline: every idle connection must have been closed with ERR_LOGIN_TIMEOUT by
 * then (plus the deadline sweep's period and a little slack).
 *
 * Writes bench/results/idle-<transport>.json. Bounded: every wait has a limit, the child is
 * killed on exit, error or Ctrl-C, and only 127.0.0.x is ever contacted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { FrameDecoder } from '../shared/codec/frame.js';
import { WyvernClient } from '../shared/client/client.js';
import { PROTOCOL_VERSION } from '../shared/protocol/common.js';
import { ErrorPacket, Hello, Welcome } from '../shared/protocol/session.js';
import { TcpTransport } from '../tools/net/tcp-transport.js';
import { adopt, freePort, killChildren, killChildrenOnExit, sleep, untilHealthy } from './load/children.js';
import { parseMetrics, total } from '../tools/net/prometheus.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench/results');
const TARGET_BYTES_PER_CONNECTION = 10 * 1024;
/** The deadline sweep runs at most this far apart (server/dispatch/dispatcher.ts). */
const SWEEP_MAX_MS = 1000;

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '5000' },
    addresses: { type: 'string', default: '5' },
    transport: { type: 'string', default: 'tcp' },
    'login-timeout-ms': { type: 'string', default: '30000' },
    'settle-ms': { type: 'string', default: '3000' },
  },
});
const COUNT = Number(values.count);
const ADDRESSES = Number(values.addresses);
const TRANSPORT = values.transport === 'ws' ? 'ws' : 'tcp';
const LOGIN_TIMEOUT_MS = Number(values['login-timeout-ms']);
const SETTLE_MS = Number(values['settle-ms']);
if (!(COUNT > 0 && ADDRESSES >= 1 && ADDRESSES <= 250 && LOGIN_TIMEOUT_MS > 0)) {
  throw new Error('--count, --addresses (1-250) and --login-timeout-ms must be positive');
}

killChildrenOnExit('idle');

interface Server {
  proc: ChildProcess;
  httpPort: number;
  tcpPort: number;
  dir: string;
}

async function startServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-idle-'));
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      HTTP_PORT: String(httpPort),
      TCP_PORT: String(tcpPort),
      DATABASE_URL: `sqlite:${join(dir, 'wyvern.db')}`,
      LOG_LEVEL: 'warn',
      LOGIN_TIMEOUT_MS: String(LOGIN_TIMEOUT_MS),
      // Longer than the login deadline: Hello comes at once here, but a slow open must not
      // be cut for the wrong reason.
      HANDSHAKE_TIMEOUT_MS: String(LOGIN_TIMEOUT_MS),
      SRP_WORKERS: '1',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  adopt(proc);
  await untilHealthy(proc, httpPort);
  return { proc, httpPort, tcpPort, dir };
}

async function memory(server: Server): Promise<{ rss: number; heap: number; connections: number }> {
  const text = await (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();
  const s = parseMetrics(text);
  const health = (await (await fetch(`http://127.0.0.1:${server.httpPort}/healthz`)).json()) as {
    connections: number;
  };
  return {
    rss: total(s, 'process_resident_memory_bytes'),
    heap: total(s, 'nodejs_heap_size_used_bytes'),
    connections: health.connections,
  };
}

/** One idle connection: says Hello, then only listens. */
interface Idle {
  welcomed: boolean;
  closedAt: number | undefined;
  errorCode: string | undefined;
  close(): void;
}

function openIdle(server: Server, localAddress: string): Promise<Idle> {
  const decoder = new FrameDecoder();
  const hello = Hello.encode({ protocolVersion: PROTOCOL_VERSION, clientKind: 'bot', clientName: 'idle' });
  return new Promise((resolve, reject) => {
    const idle: Idle = { welcomed: false, closedAt: undefined, errorCode: undefined, close: () => {} };
    const onBytes = (bytes: Uint8Array) => {
      decoder.push(new Uint8Array(bytes));
      for (let f = decoder.next(); f; f = decoder.next()) {
        if (f.opcode === Welcome.opcode && !idle.welcomed) {
          idle.welcomed = true;
          resolve(idle);
        } else if (f.opcode === ErrorPacket.opcode) {
          idle.errorCode = ErrorPacket.decode(f.payload).code;
        }
      }
    };
    const onClose = () => {
      idle.closedAt ??= Date.now();
      if (!idle.welcomed) reject(new Error(`closed before Welcome (${idle.errorCode ?? 'no error'})`));
    };
    if (TRANSPORT === 'tcp') {
      const socket = net.connect({ host: '127.0.0.1', port: server.tcpPort, localAddress }, () =>
        socket.write(hello),
      );
      socket.on('data', onBytes);
      socket.on('error', (e) => reject(e));
      socket.on('close', onClose);
      idle.close = () => socket.destroy();
    } else {
      const ws = new WebSocket(`ws://127.0.0.1:${server.httpPort}/ws`, {
        localAddress,
        perMessageDeflate: false,
      });
      ws.binaryType = 'nodebuffer';
      ws.on('open', () => ws.send(hello, { binary: true }));
      ws.on('message', (data: Buffer) => onBytes(data));
      ws.on('error', (e) => reject(e));
      ws.on('close', onClose);
      idle.close = () => ws.terminate();
    }
  });
}

async function legitimateLogin(server: Server): Promise<number> {
  const started = performance.now();
  const transport = await TcpTransport.connect({ host: '127.0.0.1', port: server.tcpPort });
  const client = new WyvernClient(transport, { requestTimeoutMs: 30_000 });
  try {
    await client.hello({ clientKind: 'bot', clientName: 'bench' });
    await client.register('bench_user', 'a legitimate password');
    await client.login('bench_user', 'a legitimate password');
    return performance.now() - started;
  } finally {
    client.close();
  }
}

function kb(bytes: number): number {
  return Math.round(bytes / 102.4) / 10;
}

async function main(): Promise<void> {
  console.log(
    `idle: ${COUNT} ${TRANSPORT} connections from ${ADDRESSES} addresses, login deadline ${LOGIN_TIMEOUT_MS} ms`,
  );
  const server = await startServer();
  try {
    // Warm-up: the code paths of accepting, greeting and closing are compiled and the
    // allocator has its pools before the baseline is taken.
    const warm = await Promise.all(Array.from({ length: 200 }, () => openIdle(server, '127.0.0.1')));
    for (const w of warm) w.close();
    await sleep(SETTLE_MS);
    const before = await memory(server);

    const idle: Idle[] = [];
    const openedAt = Date.now();
    const BATCH = 250;
    for (let i = 0; i < COUNT; i += BATCH) {
      const n = Math.min(BATCH, COUNT - i);
      const batch = await Promise.all(
        Array.from({ length: n }, (_, j) => openIdle(server, `127.0.0.${2 + ((i + j) % ADDRESSES)}`)),
      );
      idle.push(...batch);
    }
    const allOpenAt = Date.now();
    console.log(`opened ${idle.length} in ${allOpenAt - openedAt} ms`);
    await sleep(SETTLE_MS);
    const during = await memory(server);
    const rssPer = (during.rss - before.rss) / COUNT;
    const heapPer = (during.heap - before.heap) / COUNT;
    console.log(
      `server: ${during.connections} connections; RSS ${kb(before.rss)} -> ${kb(during.rss)} KB ` +
        `(${kb(rssPer)} KB per idle connection), heap used ${kb(before.heap)} -> ${kb(during.heap)} KB ` +
        `(${kb(heapPer)} KB per idle connection)`,
    );

    const loginMs = await legitimateLogin(server);
    console.log(`a legitimate register + login from 127.0.0.1 succeeded in ${Math.round(loginMs)} ms`);

    // Every idle connection must be gone by its login deadline (the first was opened at
    // openedAt), give or take one sweep and a little slack.
    const limit = allOpenAt + LOGIN_TIMEOUT_MS + SWEEP_MAX_MS + 2000;
    while (Date.now() < limit && idle.some((c) => c.closedAt === undefined)) await sleep(100);
    const open = idle.filter((c) => c.closedAt === undefined).length;
    const codes = new Map<string, number>();
    for (const c of idle) codes.set(c.errorCode ?? 'none', (codes.get(c.errorCode ?? 'none') ?? 0) + 1);
    const closeTimes = idle.flatMap((c) => (c.closedAt === undefined ? [] : [c.closedAt - openedAt]));
    const after = await memory(server);
    for (const c of idle) c.close();
    console.log(
      `after the deadline: ${open} still open; errors ${JSON.stringify(Object.fromEntries(codes))}; ` +
        `closed ${Math.min(...closeTimes)}-${Math.max(...closeTimes)} ms after the first opened; ` +
        `server holds ${after.connections} connections`,
    );

    const result = {
      date: new Date().toISOString(),
      node: process.version,
      transport: TRANSPORT,
      connections: COUNT,
      addresses: Array.from({ length: ADDRESSES }, (_, i) => `127.0.0.${2 + i}`),
      loginTimeoutMs: LOGIN_TIMEOUT_MS,
      openMs: allOpenAt - openedAt,
      before: { rssBytes: before.rss, heapUsedBytes: before.heap, connections: before.connections },
      during: { rssBytes: during.rss, heapUsedBytes: during.heap, connections: during.connections },
      rssBytesPerIdleConnection: Math.round(rssPer),
      heapBytesPerIdleConnection: Math.round(heapPer),
      targetBytesPerIdleConnection: TARGET_BYTES_PER_CONNECTION,
      withinTarget: rssPer <= TARGET_BYTES_PER_CONNECTION,
      legitimateLoginMs: Math.round(loginMs),
      stillOpenAfterDeadline: open,
      errorCodes: Object.fromEntries(codes),
      closedMsAfterFirstOpen: { min: Math.min(...closeTimes), max: Math.max(...closeTimes) },
    };
    mkdirSync(RESULTS, { recursive: true });
    const file = join(RESULTS, `idle-${TRANSPORT}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    console.log(`wrote ${file}`);
    const ok = open === 0 && codes.get('ERR_LOGIN_TIMEOUT') === COUNT && result.withinTarget;
    if (!ok) {
      console.error(
        'FAILED: idle connections outlived the deadline, got another error, or cost over the target',
      );
      process.exitCode = 1;
    }
  } finally {
    killChildren();
    rmSync(server.dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(),
  (e: unknown) => {
    console.error(e);
    killChildren();
    process.exit(1);
  },
);
