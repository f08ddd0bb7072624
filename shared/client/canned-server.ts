/**
 * A canned server: the far end of a client's ByteTransport (the in-memory pair's server end, a
 * TCP socket, a WebSocket), speaking real frames with the shared codec, and answering with the
 * handlers its script installs. The page's `?demo` world (web-client/src/net/demo.ts) and the
 * SDK's tests (test/client/fake-server.ts) are scripts on it, so both reach the client by the
 * path a real server's bytes take.
 *
 * Entity news goes out as the real server sends it: WorldUpdate frames of entity records,
 * each head counting on from the previous WorldUpdate (or EnterWorld). `batch` sends what it
 * is given in one write, as the server sends a tick.
 */
import { FrameDecoder } from '../codec/frame.js';
import { Writer } from '../codec/writer.js';
import { EnterWorld } from '../protocol/character.js';
import { PROTOCOL_VERSION } from '../protocol/common.js';
import type { ClientPacket, PayloadOf, ServerPacket } from '../protocol/define.js';
import { WorldUpdate } from '../protocol/entity.js';
import type { EntityRecord } from '../protocol/records.js';
import { byOpcode } from '../protocol/registry.js';
import { ErrorPacket, Hello, Ping, Pong, Welcome } from '../protocol/session.js';
import type { ByteTransport } from './transport.js';

/** A packet the client sent, decoded. */
export interface Received {
  name: string;
  payload: any;
}

type Handler = (payload: any) => void | Promise<void>;

export interface CannedServerOptions {
  /** Server clock (ms) for Welcome, Pong and WorldUpdate times. */
  now?: () => number;
  /**
   * Keep every packet received in `received` (tests read it). Off for a server that runs for
   * as long as a page stays open.
   */
  keepReceived?: boolean;
}

export class CannedServer {
  readonly received: Received[] = [];
  readonly now: () => number;
  closed = false;
  /** The tick of the newest WorldUpdate (or EnterWorld) sent. */
  tick = 0;
  /** The server time the client holds for the newest WorldUpdate (or EnterWorld) sent. */
  private sentTime = 0;
  private readonly decoder = new FrameDecoder();
  private readonly handlers = new Map<number, Handler>();
  private readonly waiters: { name: string; resolve: (r: Received) => void }[] = [];
  private readonly keepReceived: boolean;
  /** Where frames go while a batch is being written. */
  private batching: Writer | undefined;

  constructor(
    readonly transport: ByteTransport,
    options: CannedServerOptions = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.keepReceived = options.keepReceived ?? true;
    transport.onBytes = (bytes) => {
      this.decoder.push(bytes);
      for (let frame = this.decoder.next(); frame; frame = this.decoder.next()) {
        const def = byOpcode(frame.opcode);
        // The client SDK sends only declared packets: anything else is a bug to see at once.
        if (!def) throw new Error(`canned server: unknown opcode ${frame.opcode}`);
        const r = { name: def.name, payload: def.decode(frame.payload) };
        if (this.keepReceived) this.received.push(r);
        const i = this.waiters.findIndex((w) => w.name === r.name);
        if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(r);
        const handler = this.handlers.get(def.opcode);
        if (handler) void handler(r.payload);
      }
    };
    transport.onClose = () => {
      this.closed = true;
    };
  }

  send<P extends ServerPacket<string, any>>(def: P, value: PayloadOf<P>): void {
    if (def.opcode === EnterWorld.opcode) {
      // WorldUpdate heads count on from here.
      const enter = value as PayloadOf<typeof EnterWorld>;
      this.tick = enter.tick;
      this.sentTime = enter.serverTime;
    }
    if (this.batching) def.write(this.batching, value);
    else this.transport.send(def.encode(value));
  }

  /** Everything `write` sends goes out in one write (nested batches join the outer one). */
  batch(write: () => void): void {
    if (this.batching) return write();
    const w = (this.batching = new Writer(1024));
    try {
      write();
    } finally {
      this.batching = undefined;
    }
    if (w.pos > 0) this.transport.send(w.finish());
  }

  /** One tick's WorldUpdate: `records` happened at server time `time` (now by default, whole ms on the wire). */
  update(records: EntityRecord[], time = this.now()): void {
    // The head counts on from the previous WorldUpdate (or EnterWorld), as the server's does.
    const dt = Math.max(0, Math.round(time - this.sentTime));
    this.sentTime += dt;
    this.tick++;
    this.send(WorldUpdate, { tick: 1, time: dt, records });
  }

  sendRaw(bytes: Uint8Array): void {
    this.transport.send(bytes);
  }

  refuse(request: { opcode: number }, code: string, reason = '', fatal = false): void {
    this.send(ErrorPacket, { code, reason, opcode: request.opcode, fatal });
    if (fatal) this.transport.close();
  }

  handle<P extends ClientPacket<string, any>>(
    def: P,
    handler: (payload: PayloadOf<P>) => void | Promise<void>,
  ): this {
    this.handlers.set(def.opcode, handler as Handler);
    return this;
  }

  /** The next packet of this name from the client (one already received counts if not yet taken). */
  next(name: string): Promise<Received> {
    return new Promise((resolve) => this.waiters.push({ name, resolve }));
  }

  names(): string[] {
    return this.received.map((r) => r.name);
  }

  close(): void {
    this.transport.close();
  }

  /** Hello -> Welcome, Ping -> Pong. */
  speakSession(serverName = 'fake'): this {
    this.handle(Hello, (h) => {
      if (h.protocolVersion !== PROTOCOL_VERSION)
        return this.refuse(Hello, 'ERR_VERSION', 'old client', true);
      this.send(Welcome, {
        protocolVersion: PROTOCOL_VERSION,
        serverName,
        tickRate: 20,
        serverTime: this.now(),
        connectionId: 1,
      });
    });
    this.handle(Ping, (p) =>
      this.send(Pong, { seq: p.seq, clientTime: p.clientTime, serverTime: this.now() }),
    );
    return this;
  }
}
