/**
 * Captures WorldUpdate frames as a client receives them from a real server, for PROTOCOL.md's
 * walk through one (docs: "A captured WorldUpdate"). It runs the server on the shipped world
 * data (npm start's), enters a walker and then a watcher beside it, and keeps every byte the
 * watcher's TCP connection receives; the walker then walks east and stops. It writes the
 * first WorldUpdate that spawns the walker and the first that carries its moveBy, as frames
 * in hex with what they are, to test/protocol/captured/WorldUpdate.hex.
 *
 *   npx tsx tools/capture-world-update.ts
 *
 * The bytes differ from run to run (times, mobs' wanderings); PROTOCOL.md explains whichever
 * frames the file holds.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FrameDecoder } from '../shared/codec/index.js';
import { WyvernClient } from '../shared/client/client.js';
import { WorldUpdate, type EntityRecord } from '../shared/protocol/index.js';
import { TcpTransport } from './net/tcp-transport.js';
import { hex } from './golden.js';
import { sleep, startGameClient, startWorldServer, walkTo } from '../test/helpers/game-client.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const CAPTURED_PATH = resolve(ROOT, 'test/protocol/captured/WorldUpdate.hex');

async function main(): Promise<void> {
  const world = await startWorldServer({ DATA_DIR: resolve(ROOT, 'data') });
  const ports = { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort };
  try {
    const walker = await startGameClient(ports, { transport: 'tcp', name: 'Walker' });
    const frames: Uint8Array[] = [];
    const decoder = new FrameDecoder();
    const tcp = await TcpTransport.connect({ host: '127.0.0.1', port: ports.tcpPort });
    const client = new WyvernClient(tcp);
    const deliver = tcp.onBytes;
    tcp.onBytes = (bytes) => {
      decoder.push(bytes);
      for (let f = decoder.next(); f; f = decoder.next())
        if (f.opcode === WorldUpdate.opcode) frames.push(f.bytes.slice(f.start - 6, f.end));
      deliver(bytes);
    };
    await client.hello({ clientKind: 'native', clientName: 'capture' });
    await client.register('watcher_acct', 'watcher-password');
    await client.login('watcher_acct', 'watcher-password');
    const character = await client.createCharacter('Watcher', 1);
    await client.enterWorld(character.id);
    await sleep(500);
    const self = walker.client.world.self!;
    await walkTo(walker, { x: self.x + 60, y: self.y });
    await sleep(500);
    client.close();
    walker.close();

    const records = (f: Uint8Array): EntityRecord[] => WorldUpdate.decode(f.subarray(6)).records;
    const id = walker.entityId;
    const spawned = frames.find((f) => records(f).some((r) => r.kind === 'spawn' && r.id === id));
    const moved = frames.find((f) => records(f).some((r) => r.kind === 'moveBy' && r.id === id));
    if (!spawned || !moved) throw new Error('no frame spawned the walker, or none carried its moveBy');
    const lines = [
      "# WorldUpdate frames as a watcher received them from `npm start`'s world (tools/capture-world-update.ts):",
      `# the first spawns what the watcher sees on entering (the walker is player ${id}), the second`,
      '# carries the walker setting off. One frame per line, in hex.',
      hex(spawned),
      hex(moved),
    ];
    writeFileSync(CAPTURED_PATH, `${lines.join('\n')}\n`);
    console.log(`wrote ${CAPTURED_PATH}: frames of ${spawned.length} and ${moved.length} bytes`);
  } finally {
    await world.stop();
  }
}

await main();
