/**
 * The page's world behind the client SDK, as the page wires it: a WyvernClient over a
 * transport the test feeds by hand keeps the ClientWorld's WorldView and hands each packet
 * to the page. Delivery is synchronous, and the page clock is whatever the test says.
 */
import { Writer } from '../../shared/codec/writer.js';
import type { WyvernClient } from '../../shared/client/client.js';
import { ignoreBytes, ignoreClose, type ByteTransport } from '../../shared/client/transport.js';
import { byOpcode } from '../../shared/protocol/registry.js';
import { pageClient } from '../../web-client/src/net/connection.js';
import { ClientWorld, type Incoming } from '../../web-client/src/state/world.js';

export interface Page {
  world: ClientWorld;
  client: WyvernClient;
  /** The page clock (what `localNow` the packets arrive at). */
  now: number;
  /** Names and payloads of what the page sent, oldest first. */
  sent: { name: string; payload: unknown }[];
  /** Delivers everything `write` writes as one message, at page time `localNow`. */
  feed(localNow: number, write: (w: Writer) => void): void;
  /** Delivers raw bytes (a transport chunk) at page time `localNow`. */
  push(localNow: number, bytes: Uint8Array): void;
}

export interface PageOptions {
  /** Every packet, as the page gets it (before ClientWorld.apply). */
  onPacket?: (p: Incoming) => void;
  /** Where the page's bytes go besides `sent` (a demo server). */
  toServer?: (bytes: Uint8Array) => void;
}

export function openPage(options: PageOptions = {}): Page {
  const { onPacket, toServer } = options;
  const transport: ByteTransport = {
    send: (bytes) => {
      toServer?.(bytes);
      // One frame per send from the SDK: size u16, opcode u16, crc u16, payload.
      const opcode = bytes[2]! | (bytes[3]! << 8);
      const def = byOpcode(opcode);
      if (def) page.sent.push({ name: def.name, payload: def.decode(bytes.subarray(6)) });
    },
    close: () => {},
    onBytes: ignoreBytes,
    onClose: ignoreClose,
  };
  const world = new ClientWorld({ now: () => page.now });
  const client = pageClient(transport, {
    world: world.view,
    // A failing handler fails the test.
    onHandlerError: (err) => {
      throw err;
    },
    onPacket: (name, value) => {
      const p = { name, value } as Incoming;
      onPacket?.(p);
      world.apply(p, page.now);
    },
  });
  const page: Page = {
    world,
    client,
    now: 0,
    sent: [],
    feed(localNow, write) {
      const w = new Writer();
      write(w);
      this.push(localNow, w.finish());
    },
    push(localNow, bytes) {
      page.now = localNow;
      transport.onBytes(bytes);
    },
  };
  return page;
}
