/**
 * A zone packet's payload is decoded once, on the zone host; the gateway passes it on unread.
 * A payload that does not decode still gets its client the Error the dispatch core gave it
 * when the gateway decoded (same code, reason and opcode, fatal, then a close), and nobody
 * else notices: over real sockets, in one process and on a gateway and a zone host over NATS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crc16 } from '../../shared/codec/crc16.js';
import { DecodeError } from '../../shared/codec/errors.js';
import { ChatMessage, ChatSend, MoveAck, MoveInput } from '../../shared/protocol/index.js';
import type { AnyClientPacket } from '../../shared/protocol/registry.js';
import { ErrorPacket } from '../../shared/protocol/session.js';
import {
  startGameClient,
  startWorldServer,
  type GameClient,
  type ServerPorts,
} from '../helpers/game-client.js';
import { GATEWAY_UP, startRole, TEST_DATA, zoneHostUp, type RoleProcess } from '../cluster/roles.js';
import { clusterDatabase, type ClusterDatabase } from '../cluster/database.js';
import { describeWithNats } from '../cluster/with-nats.js';

/** A frame around any payload, its CRC right: only decoding the payload finds it wrong. */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const f = new Uint8Array(6 + payload.length);
  f.set(payload, 6);
  const crc = crc16(f, 6);
  f.set([f.length & 0xff, f.length >> 8, opcode & 0xff, opcode >> 8, crc & 0xff, crc >> 8]);
  return f;
}

/** What decoding `payload` as `def` throws: the Error the client must get for it. */
function decodeError(def: AnyClientPacket, payload: Uint8Array): DecodeError {
  try {
    def.decode(payload);
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  throw new Error(`${def.name}: the payload decodes`);
}

const move = (seq: number, x: number, y: number) => ({
  seq,
  x,
  y,
  facing: 0,
  moving: false,
  speed: 0,
  clientTime: 1000 + seq,
  epoch: 0,
});

const malformed: { name: string; def: AnyClientPacket; payload: () => Uint8Array }[] = [
  {
    name: 'a MoveInput cut short',
    def: MoveInput,
    payload: () => MoveInput.encode(move(1, 0, 0)).subarray(6, 20),
  },
  {
    // Within ChatSend's largest size: only decoding finds the extra byte.
    name: 'a ChatSend with a byte after its last field',
    def: ChatSend,
    payload: () => Uint8Array.of(...ChatSend.encode({ channel: 'say', text: 'hi' }).subarray(6), 0),
  },
  {
    name: 'a ChatSend on a channel that does not exist',
    def: ChatSend,
    payload: () => {
      const p = ChatSend.encode({ channel: 'say', text: 'hi' }).slice(6);
      p[0] = 9;
      return p;
    },
  },
];

/** The cases against a running world; `ports()` is the gateway's. */
function refusesMalformedZonePayloads(ports: () => ServerPorts, transport: 'tcp' | 'ws'): void {
  let n = 0;
  const name = (what: string) => `${what}${transport === 'tcp' ? 'T' : 'W'}${String.fromCharCode(97 + n++)}`;

  it.each(malformed)(
    `answers $name over ${transport} with its decode error, and nobody else notices`,
    async (c) => {
      const bystander = await startGameClient(ports(), { transport, name: name('Stander') });
      const victim = await startGameClient(ports(), { transport, name: name('Garbler') });
      const open: GameClient[] = [bystander, victim];
      try {
        const payload = c.payload();
        const expected = decodeError(c.def, payload);
        const said = bystander.log.mark();
        victim.client.transport.send(frame(c.def.opcode, payload));
        const error = await victim.log.expect(ErrorPacket);
        expect(error).toEqual({
          code: expected.code,
          reason: expected.message,
          opcode: c.def.opcode,
          fatal: true,
        });
        await Promise.race([
          victim.client.closed,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('the connection stayed open')), 10_000).unref(),
          ),
        ]);
        // The bystander plays on: its move is taken and its line heard.
        const spawn = bystander.entered.enter;
        const seq = bystander.client.sendMove(spawn.x + 2, spawn.y, 0);
        await bystander.log.expect(MoveAck, { predicate: (a) => a.seq >= seq, since: said });
        bystander.client.say('still here');
        await bystander.log.expect(ChatMessage, { predicate: (m) => m.text === 'still here', since: said });
        expect(bystander.log.all(ErrorPacket, () => true, said)).toEqual([]);
      } finally {
        for (const g of open) g.close();
      }
    },
  );
}

describe('a malformed zone payload in one process', () => {
  let world: Awaited<ReturnType<typeof startWorldServer>>;
  beforeAll(async () => {
    world = await startWorldServer();
  });
  afterAll(async () => {
    await world?.stop();
  });
  const ports = () => ({ tcpPort: world.server.tcpPort, httpPort: world.server.httpPort });

  it('decodes each MoveInput once on its way from the socket into the world', async () => {
    const walker = await startGameClient(ports(), { transport: 'tcp', name: 'Counter' });
    // Every decode of a MoveInput, by the dispatch core or the zone host, reads through its payload codec
    // (read, or readInto for a decode into the world's input).
    const reads = vi.spyOn(MoveInput.payload, 'read');
    const readsInto = vi.spyOn(MoveInput.payload, 'readInto');
    try {
      const spawn = walker.entered.enter;
      let seq = 0;
      for (let i = 1; i <= 5; i++) seq = walker.client.sendMove(spawn.x + i, spawn.y, 0);
      await walker.log.expect(MoveAck, { predicate: (a) => a.seq >= seq });
      expect(reads.mock.calls.length + readsInto.mock.calls.length).toBe(5);
    } finally {
      reads.mockRestore();
      readsInto.mockRestore();
      walker.close();
    }
  });

  refusesMalformedZonePayloads(ports, 'tcp');
  refusesMalformedZonePayloads(ports, 'ws');
});

describeWithNats('a malformed zone payload on a gateway and a zone host over NATS', (nats) => {
  let dir: string;
  let database: ClusterDatabase | undefined;
  const roles: RoleProcess[] = [];
  let gateway: ServerPorts;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-zone-payload-'));
    database = await clusterDatabase(dir);
    const common = {
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      DATABASE_URL: database.url,
      DATA_DIR: TEST_DATA,
      LOG_LEVEL: 'warn',
      SRP_WORKERS: '1',
      SHUTDOWN_TIMEOUT_MS: '2000',
      WYVERN_SECRET: '00112233445566778899aabbccddeeff',
      NATS_URL: nats().url,
    };
    roles.push(await startRole({ ...common, ROLE: 'zone-host', NODE_ID: 'zh' }, zoneHostUp('zh')));
    const g = await startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: 'g' }, GATEWAY_UP);
    roles.push(g);
    gateway = { httpPort: Number(g.ready[1]), tcpPort: Number(g.ready[2]) };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(roles.map((r) => r.stop()));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  refusesMalformedZonePayloads(() => gateway, 'tcp');
});
