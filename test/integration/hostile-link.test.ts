/**
 * Play through a hostile link: every chunk held 0-50 ms and cut into 1-7-byte writes in both
 * directions (test/helpers/hostile-proxy.ts), and over WebSocket every client message sent as
 * continuation frames. Login, movement, chat and a cast work, seen by a player on a clean
 * link. Where the test runs as root with `ip netns`, the same over a veth pair at MTU 576
 * with a tbf bandwidth cap into a network namespace; elsewhere that part says it skipped.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WyvernClient } from '../../shared/client/client.js';
import { WebSocketTransport, type WebSocketLike } from '../../shared/client/websocket-transport.js';
import { ChatMessage } from '../../shared/protocol/chat.js';
import { MoveAck, PositionCorrection } from '../../shared/protocol/movement.js';
import { SpellGo } from '../../shared/protocol/spell.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import {
  PacketLog,
  sleep,
  startGameClient,
  startWorldServer,
  type GameTransport,
} from '../helpers/game-client.js';
import { fragmentSends, startHostileProxy, type HostileProxy } from '../helpers/hostile-proxy.js';
import { Netns, startNetns } from '../helpers/hostile-netns.js';

const RENEW = 5;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

interface Player {
  client: WyvernClient;
  log: PacketLog;
  entityId: number;
}

/** A player over the given link: TCP to `host:port`, or WebSocket there with fragmented sends. */
async function playerOver(
  transport: GameTransport,
  host: string,
  port: number,
  name: string,
  options: { clean?: boolean } = {},
): Promise<Player> {
  let client: WyvernClient;
  if (transport === 'tcp') {
    client = new WyvernClient(await TcpTransport.connect({ host, port, timeoutMs: 20_000 }), {
      requestTimeoutMs: 30_000,
    });
  } else {
    const socket = new WebSocket(`ws://${host}:${port}/ws`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    if (!options.clean) fragmentSends(socket);
    client = new WyvernClient(new WebSocketTransport(socket as unknown as WebSocketLike), {
      requestTimeoutMs: 30_000,
    });
  }
  cleanup.push(() => client.close());
  const log = new PacketLog(name);
  client.onPacket = (n, payload) => log.record(n, payload);
  client.onClose = (reason) => log.close(reason);
  client.onError = () => {};
  await client.hello({ clientKind: 'bot', clientName: 'hostile-link' });
  await client.register(`${name.toLowerCase()}_acct`, 'a hostile password');
  await client.login(`${name.toLowerCase()}_acct`, 'a hostile password');
  const character = await client.createCharacter(name, 1);
  const entered = await client.enterWorld(character.id);
  return { client, log, entityId: entered.enter.entityId };
}

/** Steps, chat and a cast by `a`, each seen by `b` on a clean link. */
async function play(
  a: Player,
  b: { log: PacketLog; client: WyvernClient },
  timeoutMs: number,
): Promise<void> {
  await b.log.expectRecord('spawn', { predicate: (s) => s.id === a.entityId, timeoutMs });

  // Three steps, each acknowledged and each seen by B where A put it.
  for (let i = 0; i < 3; i++) {
    await sleep(300);
    const self = a.client.world.self!;
    const to = { x: self.x + 6, y: self.y + 3 };
    const since = b.log.mark();
    const seq = a.client.sendMove(to.x, to.y, 0.5, false, 0);
    await a.log.expect(MoveAck, { predicate: (m) => m.seq === seq, timeoutMs });
    const seen = await b.log.expectRecord('move', {
      since,
      predicate: (m) => m.id === a.entityId && Math.abs(m.x - to.x) < 0.1 && Math.abs(m.y - to.y) < 0.1,
      timeoutMs,
    });
    expect(seen.moving).toBe(false);
  }
  expect(a.log.all(PositionCorrection)).toEqual([]);

  const text = 'heard through the storm';
  a.client.say(text);
  await b.log.expect(ChatMessage, {
    predicate: (m) => m.text === text && m.fromId === a.entityId,
    timeoutMs,
  });
  await a.log.expect(ChatMessage, { predicate: (m) => m.text === text, timeoutMs });

  a.client.cast(RENEW, a.entityId);
  const go = (g: { casterId: number; spellId: number }) => g.casterId === a.entityId && g.spellId === RENEW;
  await a.log.expect(SpellGo, { predicate: go, timeoutMs });
  await b.log.expect(SpellGo, { predicate: go, timeoutMs });
}

describe.each(['tcp', 'ws'] as const)('a hostile link over %s', (transport) => {
  it(
    'carries login, movement, chat and a cast cut into 1-7-byte pieces with 0-50 ms delays',
    { timeout: 90_000 },
    async () => {
      const world = await startWorldServer();
      cleanup.push(() => world.stop());
      const ports = world.server;
      const proxy: HostileProxy = await startHostileProxy(
        transport === 'tcp' ? ports.tcpPort : ports.httpPort,
        {
          seed: transport === 'tcp' ? 11 : 12,
        },
      );
      cleanup.push(() => proxy.close());

      const a = await playerOver(
        transport,
        '127.0.0.1',
        proxy.port,
        transport === 'tcp' ? 'Stormy' : 'Gusty',
      );
      const b = await startGameClient(ports, { transport, name: transport === 'tcp' ? 'Calm' : 'Still' });
      cleanup.push(() => b.close());
      await play(a, b, 20_000);

      // The link did cut everything up, both ways.
      expect(proxy.stats.largestPiece).toBeLessThanOrEqual(7);
      expect(proxy.stats.up).toBeGreaterThan(500);
      expect(proxy.stats.down).toBeGreaterThan(500);
      expect(proxy.stats.pieces).toBeGreaterThanOrEqual((proxy.stats.up + proxy.stats.down) / 7);
    },
  );
});

describe('a namespace link at MTU 576 with a tbf bandwidth cap', () => {
  const why = Netns.unavailable();
  if (why) {
    it.skip(`skipped: ${why}`, () => {});
    return;
  }

  it.each(['tcp', 'ws'] as const)(
    'carries login, movement, chat and a cast over %s through a veth pair in a namespace',
    { timeout: 120_000 },
    async (transport) => {
      const ns = startNetns({ mtu: 576, rate: '256kbit' });
      cleanup.push(() => ns.stop());
      // The server listens on the host end of the pair only. A connects to a relay inside the
      // namespace, which connects back to the server: every byte A sends or gets crosses the
      // link twice. B connects to the server directly.
      const world = await startWorldServer({ HOST: ns.hostAddress });
      cleanup.push(() => world.stop());
      const port = transport === 'tcp' ? world.server.tcpPort : world.server.httpPort;
      const relay = await ns.relay(port);
      cleanup.push(() => relay.stop());

      const a = await playerOver(
        transport,
        relay.host,
        relay.port,
        transport === 'tcp' ? 'Narrow' : 'Slender',
      );
      const b = await playerOver(transport, ns.hostAddress, port, transport === 'tcp' ? 'Wide' : 'Broad', {
        clean: true,
      });
      await play(a, b, 30_000);
      // A's bytes did go through the capped, narrow pair.
      const link = execFileSync('ip', ['link', 'show', ns.outer], { encoding: 'utf8' });
      expect(link).toMatch(/mtu 576/);
      const qdisc = execFileSync('tc', ['-s', 'qdisc', 'show', 'dev', ns.outer], { encoding: 'utf8' });
      expect(qdisc).toMatch(/tbf/);
      expect(Number(/Sent (\d+) bytes/.exec(qdisc)?.[1])).toBeGreaterThan(2000);
    },
  );
});
