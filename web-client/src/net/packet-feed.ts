/**
 * Bytes from the server to decoded packets for ClientWorld, for a feed that does not run
 * through the client SDK (the demo world). A bad frame or payload ends the feed with the
 * codec's error; a packet this page does not know is skipped.
 */
import { FrameDecoder } from '../../../shared/codec/frame.js';
import { byOpcode } from '../../../shared/protocol/registry.js';
import type { Incoming } from '../state/world.js';

export class PacketFeed {
  private readonly decoder = new FrameDecoder();

  constructor(private readonly onPacket: (p: Incoming) => void) {}

  push(bytes: Uint8Array): void {
    this.decoder.push(bytes);
    for (let f = this.decoder.next(); f; f = this.decoder.next()) {
      const def = byOpcode(f.opcode);
      if (!def || def.dir !== 's2c') continue;
      this.onPacket({ name: def.name, value: def.decode(f.payload) } as Incoming);
    }
  }
}
