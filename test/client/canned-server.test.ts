/**
 * The canned server both the SDK tests and the page's demo world run on: real frames both
 * ways, a tick's packets in one write, WorldUpdate heads counting on as the server's do.
 */
import { describe, expect, it } from 'vitest';
import { CannedServer } from '../../shared/client/canned-server.js';
import { createMemoryTransportPair } from '../../shared/client/transport.js';
import { FrameDecoder } from '../../shared/codec/frame.js';
import { ChatMessage, ChatSend, EnterWorld, MoveAck, byOpcode } from '../../shared/protocol/index.js';
import { enterWorld, moveRecord } from './fake-server.js';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** What reached the client: each write as the names of the packets in it, and the packets. */
function clientSide(pair: ReturnType<typeof createMemoryTransportPair>) {
  const writes: string[][] = [];
  const packets: { name: string; value: any }[] = [];
  const decoder = new FrameDecoder();
  pair.client.onBytes = (bytes) => {
    decoder.push(bytes);
    const names: string[] = [];
    for (let f = decoder.next(); f; f = decoder.next()) {
      const def = byOpcode(f.opcode)!;
      names.push(def.name);
      packets.push({ name: def.name, value: def.decode(f.payload) });
    }
    writes.push(names);
  };
  return { writes, packets };
}

describe('the canned server', () => {
  it("sends a batch's packets in one write, the others one a write", async () => {
    const pair = createMemoryTransportPair();
    const client = clientSide(pair);
    const server = new CannedServer(pair.server, { now: () => 5000 });
    server.send(MoveAck, { seq: 1 });
    server.batch(() => {
      server.update([moveRecord(9, 10, 20)]);
      server.send(ChatMessage, { channel: 'say', fromId: 9, from: 'Bo', to: '', text: 'hi' });
      // A batch inside a batch joins it.
      server.batch(() => server.send(MoveAck, { seq: 2 }));
    });
    await flush();
    expect(client.writes).toEqual([['MoveAck'], ['WorldUpdate', 'ChatMessage', 'MoveAck']]);
  });

  it('counts WorldUpdate heads on from EnterWorld, a tick and the time between each', async () => {
    const pair = createMemoryTransportPair();
    const client = clientSide(pair);
    let now = 10_000;
    const server = new CannedServer(pair.server, { now: () => now });
    server.send(EnterWorld, enterWorld({ serverTime: 10_000, tick: 40 }));
    now = 10_050.4;
    server.update([]);
    now = 10_100;
    server.update([]);
    await flush();
    const heads = client.packets
      .filter((p) => p.name === 'WorldUpdate')
      .map((p) => [p.value.tick, p.value.time]);
    expect(heads).toEqual([
      [1, 50],
      [1, 50],
    ]);
    expect(server.tick).toBe(42);
  });

  it('answers with the handlers its script installed, and keeps what came unless told not to', async () => {
    for (const keepReceived of [true, false]) {
      const pair = createMemoryTransportPair();
      const client = clientSide(pair);
      const server = new CannedServer(pair.server, { keepReceived });
      server.handle(ChatSend, (c) =>
        server.send(ChatMessage, { channel: c.channel, fromId: 1, from: 'Ayla', to: '', text: c.text }),
      );
      pair.client.send(ChatSend.encode({ channel: 'say', text: 'hello' }));
      const got = server.next('ChatSend');
      await flush();
      expect((await got).payload).toEqual({ channel: 'say', text: 'hello' });
      expect(client.packets.map((p) => p.value.text)).toEqual(['hello']);
      expect(server.names()).toEqual(keepReceived ? ['ChatSend'] : []);
    }
  });
});
