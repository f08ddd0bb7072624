/**
 * A tiny protocol client for tests: connects over TCP, TLS, WS or WSS, sends raw bytes or
 * encoded frames, and collects the server's frames decoded by name. No SDK logic.
 */
import net from 'node:net';
import tls from 'node:tls';
import WebSocket from 'ws';
import { FrameDecoder } from '../../shared/codec/frame.js';
import { DecodeError } from '../../shared/codec/errors.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import { byOpcode, type AnyClientPacket } from '../../shared/protocol/registry.js';
import { PROTOCOL_VERSION } from '../../shared/protocol/common.js';
import { Hello } from '../../shared/protocol/session.js';

export type RawTransport = 'tcp' | 'tls' | 'ws' | 'wss';

export interface ReceivedFrame {
  readonly name: string;
  readonly opcode: number;
  readonly payload: Record<string, unknown>;
}

export interface RawClient {
  readonly transport: RawTransport;
  /** Every frame received so far, in order. */
  readonly frames: ReceivedFrame[];
  /** Writes bytes as they are: one TCP write, or one binary WebSocket message. */
  sendRaw(bytes: Uint8Array): void;
  /** Encodes and sends one packet. */
  send<P extends AnyClientPacket>(def: P, value: PayloadOf<P>): void;
  /** WebSocket only: a text message. */
  sendText(text: string): void;
  /** Resolves with the next frame named `name` not yet taken by an earlier waitFor. */
  waitFor(name: string, timeoutMs?: number): Promise<ReceivedFrame>;
  /** Resolves when the server closes (or the socket fails). */
  readonly closed: Promise<void>;
  readonly isClosed: boolean;
  close(): void;
}

export interface ConnectOptions {
  readonly host?: string;
  /** The address to connect from (one of this machine's). */
  readonly localAddress?: string;
  /** For WebSocket, the path (default /ws). */
  readonly path?: string;
}

export async function connectRaw(
  transport: RawTransport,
  port: number,
  options: ConnectOptions = {},
): Promise<RawClient> {
  const host = options.host ?? '127.0.0.1';
  const frames: ReceivedFrame[] = [];
  const taken = new Set<ReceivedFrame>();
  const waiters: { name: string; resolve: (f: ReceivedFrame) => void }[] = [];
  const decoder = new FrameDecoder();
  let isClosed = false;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const onClosed = () => {
    isClosed = true;
    markClosed();
  };

  const onBytes = (chunk: Uint8Array) => {
    decoder.push(new Uint8Array(chunk));
    try {
      for (let f = decoder.next(); f; f = decoder.next()) {
        const def = byOpcode(f.opcode);
        const frame: ReceivedFrame = {
          name: def?.name ?? `0x${f.opcode.toString(16)}`,
          opcode: f.opcode,
          payload: def ? (def.decode(f.payload) as Record<string, unknown>) : {},
        };
        frames.push(frame);
        const i = waiters.findIndex((w) => w.name === frame.name);
        if (i >= 0) {
          taken.add(frame);
          waiters.splice(i, 1)[0]!.resolve(frame);
        }
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      frames.push({ name: 'DecodeError', opcode: 0, payload: { code: e.code } });
    }
  };

  let write: (bytes: Uint8Array) => void;
  let writeText: (text: string) => void = () => {
    throw new Error('text messages exist only on WebSocket');
  };
  let end: () => void;

  // Listeners go on before the connection opens: a server may answer in the same turn.
  if (transport === 'tcp' || transport === 'tls') {
    const socket: net.Socket = await new Promise((resolve, reject) => {
      const s =
        transport === 'tcp'
          ? net.connect({ host, port, localAddress: options.localAddress }, () => resolve(s))
          : tls.connect({ host, port, rejectUnauthorized: false }, () => resolve(s));
      s.once('error', reject);
      s.on('data', onBytes);
      s.on('close', onClosed);
    });
    socket.setNoDelay(true);
    socket.on('error', () => {});
    write = (bytes) => void socket.write(bytes);
    end = () => socket.destroy();
  } else {
    const scheme = transport === 'ws' ? 'ws' : 'wss';
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const ws = new WebSocket(`${scheme}://${urlHost}:${port}${options.path ?? '/ws'}`, {
      localAddress: options.localAddress,
      rejectUnauthorized: false,
      perMessageDeflate: false,
    });
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) onBytes(data);
    });
    ws.on('close', onClosed);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => {});
    write = (bytes) => ws.send(bytes, { binary: true });
    writeText = (text) => ws.send(text, { binary: false });
    end = () => ws.terminate();
  }

  return {
    transport,
    frames,
    sendRaw: (bytes) => write(bytes),
    send: (def, value) => write(def.encode(value as never)),
    sendText: (text) => writeText(text),
    waitFor(name, timeoutMs = 3000) {
      const ready = frames.find((f) => f.name === name && !taken.has(f));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          name,
          resolve: (f: ReceivedFrame) => {
            clearTimeout(timer);
            resolve(f);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no ${name} within ${timeoutMs} ms; got ${frames.map((f) => f.name).join(', ')}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    closed,
    get isClosed() {
      return isClosed;
    },
    close: () => end(),
  };
}

/** A Hello with the current protocol version. */
export function hello(clientName = 'test'): PayloadOf<typeof Hello> {
  return { protocolVersion: PROTOCOL_VERSION, clientKind: 'bot', clientName };
}

/** Waits for a close, failing after `timeoutMs`. */
export function closedWithin(client: RawClient, timeoutMs = 3000): Promise<void> {
  return Promise.race([
    client.closed,
    new Promise<void>((_, reject) =>
      setTimeout(() => reject(new Error(`still open after ${timeoutMs} ms`)), timeoutMs).unref(),
    ),
  ]);
}
