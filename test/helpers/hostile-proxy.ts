/**
 * A hostile link for tests: a TCP proxy on 127.0.0.1 that holds every chunk it reads for a
 * random 0-50 ms (in order: a chunk never overtakes the one before it) and then writes it
 * on in 1-7-byte pieces, one piece per event-loop turn, so the far side sees a stream cut
 * at every possible place, in both directions. WebSocket runs over it too (its frames are
 * cut the same way); `fragmentSends` additionally makes a `ws` client send each message as
 * continuation frames.
 */
import net from 'node:net';
import type WebSocket from 'ws';
import { mulberry32, randomInt, type Rng } from '../../shared/game/rng.js';

export interface HostileProxyStats {
  /** Bytes carried, client to server and server to client. */
  up: number;
  down: number;
  /** Writes made on either side, and the largest. */
  pieces: number;
  largestPiece: number;
}

export interface HostileProxy {
  readonly port: number;
  readonly stats: HostileProxyStats;
  close(): Promise<void>;
}

export interface HostileOptions {
  readonly seed?: number;
  readonly maxDelayMs?: number;
  readonly maxPiece?: number;
}

/** Carries one direction: chunks in, delayed pieces out, order kept. */
class Pipe {
  private readonly queue: { at: number; bytes: Buffer }[] = [];
  private running = false;
  private lastAt = 0;

  constructor(
    private readonly to: net.Socket,
    private readonly rng: Rng,
    private readonly options: Required<HostileOptions>,
    private readonly stats: HostileProxyStats,
    private readonly count: (n: number) => void,
  ) {}

  push(chunk: Buffer): void {
    // Held 0-50 ms, but never released before the chunk in front of it.
    const at = Math.max(this.lastAt, performance.now() + this.rng() * this.options.maxDelayMs);
    this.lastAt = at;
    this.queue.push({ at, bytes: chunk });
    if (!this.running) void this.run();
  }

  end(): void {
    this.queue.push({ at: this.lastAt, bytes: Buffer.alloc(0) });
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const next = this.queue.shift()!;
      const wait = next.at - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (next.bytes.length === 0) {
        this.to.end();
        continue;
      }
      for (let at = 0; at < next.bytes.length;) {
        if (this.to.destroyed) return;
        const n = Math.min(next.bytes.length - at, randomInt(this.rng, 1, this.options.maxPiece));
        this.to.write(next.bytes.subarray(at, at + n));
        this.stats.pieces++;
        this.stats.largestPiece = Math.max(this.stats.largestPiece, n);
        this.count(n);
        at += n;
        await new Promise((r) => setImmediate(r));
      }
    }
    this.running = false;
  }
}

export async function startHostileProxy(
  targetPort: number,
  options: HostileOptions = {},
): Promise<HostileProxy> {
  const opts: Required<HostileOptions> = { seed: 1, maxDelayMs: 50, maxPiece: 7, ...options };
  const rng = mulberry32(opts.seed);
  const stats: HostileProxyStats = { up: 0, down: 0, pieces: 0, largestPiece: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    const up = new Pipe(upstream, rng, opts, stats, (n) => (stats.up += n));
    const down = new Pipe(client, rng, opts, stats, (n) => (stats.down += n));
    client.on('data', (chunk: Buffer) => up.push(chunk));
    upstream.on('data', (chunk: Buffer) => down.push(chunk));
    client.on('end', () => up.end());
    upstream.on('end', () => down.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Makes a `ws` client send every binary message as 2-5 continuation frames (a first frame
 * without FIN, then continuations), as a proxy that re-frames messages would.
 */
export function fragmentSends(socket: WebSocket, seed = 1): void {
  const rng = mulberry32(seed);
  const send = socket.send.bind(socket);
  (socket as { send: (data: Uint8Array) => void }).send = (data: Uint8Array) => {
    const parts = Math.min(data.length, randomInt(rng, 2, 5));
    const step = Math.ceil(data.length / parts);
    for (let at = 0; at < data.length; at += step) {
      send(data.subarray(at, at + step), { binary: true, fin: at + step >= data.length });
    }
  };
}
