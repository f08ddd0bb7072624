/**
 * The fuzz run: `concurrency` workers take cases (tools/fuzz/cases.ts) in index order until
 * the frame budget is spent, each on its own connection from one of 127.0.0.2-9, while an
 * observer in the world pings every 100 ms over TCP from 127.0.0.1.
 *
 * A case: connect, reach its stage with the SDK client (Hello; then a resume with the
 * worker's token, or an SRP login when that fails; then the worker's character enters the
 * world), send its messages, then wait until the server answers (any bytes after the last
 * write) or closes. A connection that does neither within `deadlineMs` is a silent one: the
 * server keeps a socket nobody is served on. The server under test runs with short
 * handshake, login and idle deadlines so that a case cut mid-frame is ended by them well
 * within the fuzzer's deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { WyvernClient } from '../../shared/client/client.js';
import { WebSocketTransport, type WebSocketLike } from '../../shared/client/websocket-transport.js';
import { FrameDecoder } from '../../shared/codec/frame.js';
import { ErrorPacket } from '../../shared/protocol/session.js';
import { TcpTransport } from '../net/tcp-transport.js';
import { buildPool, hex, makeCase, type FramePool, type FuzzCase, type FuzzTransport } from './cases.js';
import { quantile, ROOT, rssOf, sampleProcess, sleep, startServerChild, type ServerChild } from './server.js';

export interface FuzzOptions {
  /** Hostile units to send (frames, random chunks, WebSocket messages). */
  readonly frames: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly transports: readonly FuzzTransport[];
  /** Longest a case waits for an answer or a close after its last write. */
  readonly deadlineMs: number;
  /** Wait after the run before RSS is read again. */
  readonly settleMs: number;
  /**
   * Frames sent first to warm the server up (its heap grown to its working size, its code
   * compiled): RSS "before" is read after them and a settle, so that what the run leaves
   * behind is not confused with a cold start.
   */
  readonly warmupFrames: number;
  /** Hard limit on the whole run; cases stop being started after it. */
  readonly maxRunMs: number;
  /** A server already running (host ports and, for RSS, its pid); by default one is started. */
  readonly target?: { tcpPort: number; httpPort: number; pid?: number };
  readonly verbose?: boolean;
}

export interface FuzzResult {
  readonly options: Omit<FuzzOptions, 'verbose' | 'target'> & { external: boolean };
  readonly startedAt: string;
  readonly elapsedS: number;
  readonly framesSent: number;
  readonly bytesSent: number;
  readonly cases: number;
  readonly connections: number;
  readonly byKind: Record<string, number>;
  readonly byStage: Record<string, number>;
  readonly outcomes: { closed: number; answered: number; silent: number };
  /** Cases the server neither answered nor closed in time (the first few). */
  readonly silentSamples: { index: number; transport: string; stage: string; kind: string; head: string }[];
  /** Cases whose stage could not be reached (a login or enter failed). */
  readonly setupFailures: number;
  readonly setupFailureKinds: Record<string, number>;
  /** Error codes the server answered with, over all cases. */
  readonly errorCodes: Record<string, number>;
  readonly serverErrors: number;
  readonly serverErrorSamples: string[];
  readonly uncaught: number;
  readonly crashes: number;
  readonly warmupFramesSent: number;
  readonly rss:
    | {
        /** Just after start, before any case. */
        cold: number;
        /** After the warm-up and a settle. */
        before: number;
        after: number;
        settled: number;
        changePct: number;
        heapBefore: number;
        heapSettled: number;
      }
    | undefined;
  readonly observer: {
    alive: boolean;
    pings: number;
    failed: number;
    p50: number;
    p99: number;
    max: number;
    /** The highest p99 of any 10-second window of the run. */
    worstWindowP99: number;
  };
  readonly windows: Window[];
}

export interface Window {
  /** Seconds from the start of the run (the warm-up included). */
  startS: number;
  /** The observer's round trips in it. */
  p99: number;
  max: number;
  /** The server's longest event-loop delay in it (prom-client's nodejs_eventloop_lag_max_seconds). */
  serverLagMaxMs: number;
  /** The machine's 1-minute load average. */
  load: number;
}

const PASSWORD = 'fuzz password';
const LOCAL_ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7'];
const WINDOW_MS = 10_000;
/** The server under test: short deadlines, and rates high enough that frames reach the handlers. */
export const FUZZ_SERVER_ENV: Record<string, string> = {
  HANDSHAKE_TIMEOUT_MS: '2000',
  LOGIN_TIMEOUT_MS: '4000',
  IDLE_TIMEOUT_MS: '6000',
  RATE_DEFAULT: '2000',
  RATE_DEFAULT_BURST: '2000',
  RATE_MOVE: '2000',
  RATE_MOVE_BURST: '2000',
  RATE_CHAT: '2000',
  RATE_CHAT_BURST: '2000',
  LOGIN_FAILURES_PER_ACCOUNT: '1000000',
  LOGIN_FAILURES_PER_IP: '1000000',
  LOGIN_LOCK_ADDRESSES: '1000000',
};
/** The largest WebSocket message before login, and after (server defaults). */
const LIMITS = { login: 1236, ws: 262_144 };

interface Ports {
  tcpPort: number;
  httpPort: number;
}

/** A worker's account: it resumes with its token, or logs in when the token is gone. */
interface Account {
  readonly name: string;
  token: Uint8Array | undefined;
  characterId: number;
}

class Tally {
  framesSent = 0;
  bytesSent = 0;
  cases = 0;
  connections = 0;
  readonly byKind: Record<string, number> = {};
  readonly byStage: Record<string, number> = {};
  readonly outcomes = { closed: 0, answered: 0, silent: 0 };
  readonly silentSamples: FuzzResult['silentSamples'] = [];
  setupFailures = 0;
  readonly setupFailureKinds: Record<string, number> = {};
  readonly errorCodes: Record<string, number> = {};
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** One open connection: its raw socket, and what the server did after a given time. */
interface Link {
  readonly client: WyvernClient;
  /** The stage is reached: what comes now answers the case (Error codes are counted from here). */
  staged: boolean;
  lastRx: number;
  closed: boolean;
  readonly done: Promise<void>;
  write(bytes: Uint8Array, opts?: { text?: boolean; fragments?: number }): void;
  destroy(): void;
}

async function open(
  ports: Ports,
  transport: FuzzTransport,
  localAddress: string,
  tally: Tally,
): Promise<Link> {
  tally.connections++;
  let markDone!: () => void;
  const done = new Promise<void>((r) => (markDone = r));
  // Error codes are read from the raw bytes: the SDK drops what it has no waiter for.
  const decoder = new FrameDecoder();
  const seen = (chunk: Uint8Array) => {
    link.lastRx = performance.now();
    try {
      decoder.push(new Uint8Array(chunk));
      for (let f = decoder.next(); f; f = decoder.next()) {
        if (f.opcode === ErrorPacket.opcode && link.staged)
          bump(tally.errorCodes, ErrorPacket.decode(f.payload).code);
      }
    } catch {
      // a frame this build cannot read: counted by nobody, the client reports it
    }
  };
  let link: Link;
  if (transport === 'tcp') {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: '127.0.0.1', port: ports.tcpPort, localAddress }, () => resolve(s));
      s.once('error', reject);
    });
    socket.on('error', () => {});
    const client = new WyvernClient(new TcpTransport(socket), { requestTimeoutMs: 15_000 });
    link = {
      client,
      staged: false,
      lastRx: 0,
      closed: false,
      done,
      write: (bytes) => {
        if (!link.closed && !socket.destroyed) socket.write(bytes);
      },
      destroy: () => socket.destroy(),
    };
    socket.on('data', (chunk: Buffer) => seen(chunk));
    socket.once('close', () => {
      link.closed = true;
      markDone();
    });
  } else {
    const socket = new WebSocket(`ws://127.0.0.1:${ports.httpPort}/ws`, {
      perMessageDeflate: false,
      localAddress,
    });
    socket.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('close', () => reject(new Error('closed before open')));
      socket.once('unexpected-response', () => reject(new Error('upgrade refused')));
    });
    const client = new WyvernClient(new WebSocketTransport(socket as unknown as WebSocketLike), {
      requestTimeoutMs: 15_000,
    });
    link = {
      client,
      staged: false,
      lastRx: 0,
      closed: false,
      done,
      write: (bytes, opts = {}) => {
        if (link.closed || socket.readyState !== WebSocket.OPEN) return;
        if (opts.text) {
          socket.send(new TextDecoder().decode(bytes), { binary: false });
        } else if (opts.fragments && opts.fragments > 1) {
          const step = Math.ceil(bytes.length / opts.fragments);
          for (let at = 0; at < bytes.length; at += step) {
            socket.send(bytes.subarray(at, at + step), { binary: true, fin: at + step >= bytes.length });
          }
        } else {
          socket.send(bytes, { binary: true });
        }
      },
      destroy: () => socket.terminate(),
    };
    socket.on('message', (data: Buffer) => seen(data));
    socket.once('close', () => {
      link.closed = true;
      markDone();
    });
  }
  link.client.onError = () => {};
  return link;
}

/** Brings a fresh link to the case's stage; throws when it cannot. */
async function stage(link: Link, c: FuzzCase, account: Account): Promise<void> {
  if (c.stage === 'fresh') return;
  const client = link.client;
  await client.hello({ clientKind: 'bot', clientName: 'fuzz' });
  if (c.stage === 'login') return;
  let resumed = false;
  let inWorld = false;
  if (account.token) {
    try {
      const ok = await client.resume(account.name, account.token);
      account.token = ok.resumeToken;
      resumed = true;
      // Where the server keeps a dropped character a while, Resumed puts it back in the world.
      inWorld = (ok as { entered?: unknown }).entered !== undefined;
    } catch {
      account.token = undefined;
    }
  }
  if (!resumed) account.token = (await client.login(account.name, PASSWORD)).resumeToken;
  // Back in the world already: the case runs there, whichever stage it asked for.
  if (inWorld || c.stage === 'characters') return;
  if (
    account.characterId === 0 ||
    !(await client.listCharacters()).some((ch) => ch.id === account.characterId)
  ) {
    account.characterId = (await client.createCharacter(`Fz${letters(c.index)}`, 1)).id;
  }
  await client.enterWorld(account.characterId);
}

function letters(n: number): string {
  let s = '';
  do {
    s += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  } while (n > 0 && s.length < 12);
  return s;
}

async function runCase(
  ports: Ports,
  c: FuzzCase,
  account: Account,
  localAddress: string,
  deadlineMs: number,
  tally: Tally,
): Promise<void> {
  let link: Link;
  try {
    link = await open(ports, c.transport, localAddress, tally);
  } catch (e) {
    tally.setupFailures++;
    bump(tally.setupFailureKinds, `connect: ${(e as Error).message.replace(/\d+/g, 'N')}`);
    return;
  }
  try {
    try {
      await stage(link, c, account);
    } catch (e) {
      tally.setupFailures++;
      bump(tally.setupFailureKinds, `${c.stage}: ${(e as Error).message.replace(/\d+/g, 'N').slice(0, 120)}`);
      return;
    }
    link.staged = true;
    tally.cases++;
    bump(tally.byKind, `${c.transport} ${c.kind}`);
    bump(tally.byStage, c.stage);
    let writes = 0;
    for (const m of c.messages) {
      if (link.closed) break;
      link.write(m.bytes, { text: m.text, fragments: m.fragments });
      tally.framesSent += m.units;
      tally.bytesSent += m.bytes.length;
      // Now and then the event loop turns between writes, so they go out as separate segments.
      if (++writes % 8 === 0) await new Promise((r) => setImmediate(r));
    }
    const sentAt = performance.now();
    const until = sentAt + deadlineMs;
    while (!link.closed && link.lastRx < sentAt && performance.now() < until) {
      await Promise.race([link.done, sleep(Math.min(50, Math.max(1, until - performance.now())))]);
    }
    if (link.closed) tally.outcomes.closed++;
    else if (link.lastRx >= sentAt) tally.outcomes.answered++;
    else {
      tally.outcomes.silent++;
      if (tally.silentSamples.length < 20) {
        tally.silentSamples.push({
          index: c.index,
          transport: c.transport,
          stage: c.stage,
          kind: c.kind,
          head: hex(c.messages[0]?.bytes ?? new Uint8Array()),
        });
      }
    }
  } finally {
    link.destroy();
    await Promise.race([link.done, sleep(1000)]);
  }
}

/** The observer process (tools/fuzz/observer.ts) and the round trips it reports. */
class Observer {
  readonly rtts: { at: number; ms: number }[] = [];
  failed = 0;
  private proc: ChildProcess | undefined;
  private lastWord: { alive?: boolean } = {};

  async start(ports: Ports, account: string): Promise<void> {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'tools/fuzz/observer.ts'), String(ports.tcpPort), account],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    this.proc = proc;
    process.on('exit', () => proc.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      proc.once('exit', (code) =>
        reject(new Error(`the observer exited (${code}) before it was in the world`)),
      );
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        const m = JSON.parse(line) as {
          ready?: boolean;
          at?: number;
          ms?: number;
          failed?: number;
          alive?: boolean;
        };
        if (m.ready) resolve();
        else if (m.at !== undefined && m.ms !== undefined) this.rtts.push({ at: m.at, ms: m.ms });
        else if (m.failed) this.failed++;
        else if (m.alive !== undefined) this.lastWord = m;
      });
    });
  }

  async stop(): Promise<boolean> {
    const proc = this.proc;
    if (!proc) return false;
    if (proc.exitCode !== null) return false;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.stdin!.end();
    await Promise.race([exited, sleep(15_000)]);
    if (proc.exitCode === null) proc.kill('SIGKILL');
    return this.lastWord.alive === true;
  }
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const say = (line: string) => options.verbose && process.stderr.write(`fuzz: ${line}\n`);
  const startedAt = new Date().toISOString();
  let server: ServerChild | undefined;
  let ports: Ports;
  let pid: number | undefined;
  if (options.target) {
    ports = options.target;
    pid = options.target.pid;
  } else {
    server = await startServerChild({ env: FUZZ_SERVER_ENV });
    ports = server;
    pid = server.pid;
  }
  const tally = new Tally();
  const pool: FramePool = buildPool(options.seed);

  // The workers' accounts, made before the run so the first cases need no registration.
  const accounts: Account[] = [];
  for (let w = 0; w < options.concurrency; w++) {
    const name = `fuzz${options.seed}w${w}`;
    const tcp = await TcpTransport.connect({ host: '127.0.0.1', port: ports.tcpPort });
    const client = new WyvernClient(tcp, { requestTimeoutMs: 15_000 });
    await client.hello({ clientKind: 'bot', clientName: 'fuzz setup' });
    await client.register(name, PASSWORD);
    client.close();
    accounts.push({ name, token: undefined, characterId: 0 });
  }

  const observer = new Observer();
  await observer.start(ports, `fuzzobs${options.seed}`);
  await sleep(2000);
  const rssCold = pid ? rssOf(pid) : undefined;
  say(`server up (${ports.tcpPort}/${ports.httpPort}); rss ${mb(rssCold)} MB; warming up`);

  const t0 = Date.now();
  const loads: { at: number; lagMaxMs: number; load: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        const text = await fetch(`http://127.0.0.1:${ports.httpPort}/metrics`, {
          signal: AbortSignal.timeout(2000),
        }).then((r) => r.text());
        const lag = /^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1];
        loads.push({ at: Date.now(), lagMaxMs: Number(lag ?? 0) * 1000, load: loadavg()[0]! });
      } catch {
        // a busy or gone server: the crash count says which
      }
      await sleep(2000);
    }
  })();
  let next = 0;
  let crashes = 0;
  const stopAt = t0 + options.maxRunMs;
  let lastReport = t0;
  let budget = options.warmupFrames;
  const worker = async (w: number) => {
    const localAddress = LOCAL_ADDRESSES[w % LOCAL_ADDRESSES.length]!;
    while (tally.framesSent < budget && Date.now() < stopAt) {
      if (server?.exit) return;
      const c = makeCase(options.seed, next++, pool, options.transports, LIMITS);
      await runCase(ports, c, accounts[w]!, localAddress, options.deadlineMs, tally);
      if (w === 0 && Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        const last = observer.rtts
          .slice(-100)
          .map((r) => r.ms)
          .sort((a, b) => a - b);
        say(
          `${((Date.now() - t0) / 1000).toFixed(0)} s: ${tally.framesSent} frames, ${tally.cases} cases, ` +
            `silent ${tally.outcomes.silent}, setup failures ${tally.setupFailures}, ` +
            `observer p99 ${quantile(last, 0.99).toFixed(1)} ms, rss ${mb(pid ? rssOf(pid) : undefined)} MB`,
        );
      }
    }
  };
  const drive = () => Promise.all(Array.from({ length: options.concurrency }, (_, w) => worker(w)));
  await drive();
  const warmupFramesSent = tally.framesSent;
  await sleep(options.settleMs);
  const heapBefore =
    server && !server.exit ? (await sampleProcess(server).catch(() => undefined))?.heap : undefined;
  const rssBefore = pid && !server?.exit ? rssOf(pid) : undefined;
  say(`warmed up with ${warmupFramesSent} frames; rss before ${mb(rssBefore)} MB; ${options.frames} frames`);
  budget = warmupFramesSent + options.frames;
  await drive();
  const elapsedS = (Date.now() - t0) / 1000;
  sampling = false;
  await sampler;
  if (server?.exit) crashes++;

  const rssAfter = pid && !server?.exit ? rssOf(pid) : undefined;
  await sleep(options.settleMs);
  const alive = await observer.stop();
  let rssSettled: number | undefined;
  let heapSettled: number | undefined;
  if (pid && !server?.exit) {
    if (server) heapSettled = (await sampleProcess(server).catch(() => undefined))?.heap;
    rssSettled = rssOf(pid);
  }
  if (server && !server.exit) await server.stop();

  const rtts = observer.rtts;
  const sorted = rtts.map((r) => r.ms).sort((a, b) => a - b);
  // Per 10 s window: the observer's p99 beside the server's own event-loop delay and the
  // machine's load, to tell a stalled server from a crowded machine.
  const windows: Window[] = [];
  for (let from = t0; from < t0 + elapsedS * 1000; from += WINDOW_MS) {
    const w = rtts
      .filter((r) => r.at >= from && r.at < from + WINDOW_MS)
      .map((r) => r.ms)
      .sort((a, b) => a - b);
    const inWindow = loads.filter((l) => l.at >= from && l.at < from + WINDOW_MS);
    if (w.length === 0) continue;
    windows.push({
      startS: round((from - t0) / 1000),
      p99: round(quantile(w, 0.99)),
      max: round(w.at(-1)!),
      serverLagMaxMs: round(Math.max(0, ...inWindow.map((l) => l.lagMaxMs))),
      load: round(inWindow.reduce((a, l) => a + l.load, 0) / Math.max(1, inWindow.length)),
    });
  }
  const worstWindowP99 = Math.max(0, ...windows.map((w) => w.p99));
  const { verbose: _v, target, ...rest } = options;
  return {
    options: { ...rest, external: target !== undefined },
    startedAt,
    elapsedS: round(elapsedS),
    framesSent: tally.framesSent,
    bytesSent: tally.bytesSent,
    cases: tally.cases,
    connections: tally.connections,
    byKind: tally.byKind,
    byStage: tally.byStage,
    outcomes: tally.outcomes,
    silentSamples: tally.silentSamples,
    setupFailures: tally.setupFailures,
    setupFailureKinds: tally.setupFailureKinds,
    errorCodes: tally.errorCodes,
    serverErrors: server?.log.errors ?? 0,
    serverErrorSamples: server?.log.samples ?? [],
    uncaught: server?.log.uncaught ?? 0,
    crashes,
    warmupFramesSent,
    rss:
      rssCold !== undefined && rssBefore !== undefined && rssAfter !== undefined && rssSettled !== undefined
        ? {
            cold: rssCold,
            before: rssBefore,
            after: rssAfter,
            settled: rssSettled,
            changePct: round(((rssSettled - rssBefore) / rssBefore) * 100),
            heapBefore: heapBefore ?? 0,
            heapSettled: heapSettled ?? 0,
          }
        : undefined,
    observer: {
      alive,
      pings: rtts.length,
      failed: observer.failed,
      p50: round(quantile(sorted, 0.5)),
      p99: round(quantile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
      worstWindowP99: round(worstWindowP99),
    },
    windows,
  };
}

function mb(bytes: number | undefined): string {
  return bytes === undefined ? '?' : (bytes / 2 ** 20).toFixed(1);
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
