/**
 * Faults with the game running, over a real nats-server: a zone host and two gateway
 * processes (roles.ts), short registry TTLs and linger times so each recovery takes seconds.
 *
 *   - nats-server killed and started again on its port and store: every process reconnects,
 *     the players on both gateways see each other move again, the registry entries come back;
 *   - the zone host killed: its players are told ERR_ZONE_DOWN and stay connected; the host
 *     started again puts them back in the world from their last save, by itself;
 *   - the same with a standby host, which takes the zone when the dead host's claim lapses;
 *   - a gateway killed: its player's client fails over to the other gateway at once and gets
 *     its character back where it stands; the zone host, once the gateway's lease lapses,
 *     leaves the others lingering: one logged in again on the other gateway is taken over,
 *     one nobody comes back for leaves after the linger time; observers see no despawn.
 *
 * Recovery times are printed for the record, never asserted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChatMessage, EnterWorld, ErrorPacket } from '../../shared/protocol/index.js';
import { jetStreamRegistry, NatsBus, zoneId } from '../../server/cluster/index.js';
import { reconnect } from '../../shared/client/reconnect.js';
import { connectAny } from '../../tools/net/connect.js';
import { PacketLog, sleep, startGameClient, walkTo, type GameClient } from '../helpers/game-client.js';
import {
  clusterEnv,
  GATEWAY_UP,
  spawnRole,
  startRole,
  TEST_DATA,
  zoneHostUp,
  type RoleProcess,
} from './roles.js';
import { until } from './until.js';
import { clusterDatabase, type ClusterDatabase } from './database.js';
import { describeWithNats } from './with-nats.js';

/** Short enough for a test of seconds, long enough that a NATS restart does not look like a death. */
const LEASE_TTL_MS = 3000;
const LINGER_MS = 3000;
const AUTOSAVE_MS = 300;

const near = (a: number, b: number): boolean => Math.abs(a - b) < 0.5;
const zoneDown = (e: { code: string }) => e.code === 'ERR_ZONE_DOWN';
const figures: Record<string, number> = {};
const since = (t: number): number => Math.round(performance.now() - t);

describeWithNats('faults: a zone host or a gateway killed, NATS restarted, with the game running', (nats) => {
  let dir: string;
  let database: ClusterDatabase | undefined;
  let common: Record<string, string>;
  const roles: RoleProcess[] = [];
  let gateways: { tcpPort: number; httpPort: number }[];
  let host: RoleProcess;
  let gatewayA: RoleProcess;
  /**
   * On gateway a: P fails over at once when a dies, S logs in on b once its character
   * lingers, T never comes back. On gateway b: Q watches.
   */
  let p: GameClient;
  let q: GameClient;
  let s: GameClient;
  let t: GameClient;

  const zoneHost = (id: string, env: Record<string, string> = {}): RoleProcess => {
    const role = spawnRole({ ...common, ROLE: 'zone-host', NODE_ID: id, ...env }, zoneHostUp(id));
    roles.push(role);
    return role;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-faults-'));
    database = await clusterDatabase(dir);
    common = clusterEnv(
      {
        databaseUrl: database.url,
        dataDir: TEST_DATA,
        natsUrl: nats().url,
        logLevel: process.env['FAULTS_DEBUG'] ? 'info' : 'warn',
      },
      {
        LEASE_TTL_MS: String(LEASE_TTL_MS),
        LINGER_MS: String(LINGER_MS),
        COMBAT_LINGER_MS: '0',
        AUTOSAVE_INTERVAL_MS: String(AUTOSAVE_MS),
      },
    );
    host = zoneHost('zh-a');
    await host.up;
    const started = await Promise.all(
      ['a', 'b'].map((id) => startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: id }, GATEWAY_UP)),
    );
    roles.push(...started);
    gatewayA = started[0]!;
    gateways = started.map((r) => ({ httpPort: Number(r.ready[1]), tcpPort: Number(r.ready[2]) }));
    p = await startGameClient(gateways[0]!, { transport: 'tcp', name: 'Faultpia' });
    s = await startGameClient(gateways[0]!, { transport: 'tcp', name: 'Faultsam' });
    t = await startGameClient(gateways[0]!, { transport: 'ws', name: 'Faulttom' });
    q = await startGameClient(gateways[1]!, { transport: 'ws', name: 'Faultquin' });
  }, 120_000);

  afterAll(async () => {
    if (process.env['FAULTS_DEBUG']) for (const r of roles) console.log(r.lines.join('\n'));
    for (const c of [p, q, s, t]) c?.close();
    await Promise.all(roles.map((r) => r.stop()));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(`faults: recovery times (ms) ${JSON.stringify(figures)}`);
  }, 60_000);

  /** Every process still running (none crashed or exited). */
  const alive = (...rs: RoleProcess[]) =>
    expect(rs.map((r) => r.proc.exitCode ?? r.proc.signalCode)).toEqual(rs.map(() => null));

  /**
   * `from` says something until `to` hears it: inputs and tick messages flow again between
   * them, and any tick message lost on the way has been found (and resynced) by then.
   */
  let probes = 0;
  const heard = async (from: GameClient, to: GameClient) => {
    const text = `probe ${++probes}`;
    const got = to.log.expect(ChatMessage, { predicate: (m) => m.text === text, timeoutMs: 20_000 });
    let done = false;
    void got.finally(() => (done = true)).catch(() => {});
    while (!done) {
      from.client.say(text);
      await sleep(300);
    }
    await got;
  };

  /** P and Q see each other walk (after a restart of anything). */
  const seeEachOtherMove = async (dx: number) => {
    const qSince = q.log.mark();
    const to = { x: p.client.world.self!.x + dx, y: p.client.world.self!.y };
    await walkTo(p, to);
    await q.log.expectRecord('move', {
      since: qSince,
      predicate: (m) => m.id === p.client.world.selfId && !m.moving && near(m.x, to.x),
    });
    const pSince = p.log.mark();
    const qTo = { x: q.client.world.self!.x, y: q.client.world.self!.y + dx };
    await walkTo(q, qTo);
    await p.log.expectRecord('move', {
      since: pSince,
      predicate: (m) => m.id === q.client.world.selfId && !m.moving && near(m.y, qTo.y),
    });
  };

  it('survives a NATS restart: every process reconnects, players see each other move, the registry is written again', async () => {
    await seeEachOtherMove(10);
    const started = performance.now();
    await nats().restart({ signal: 'SIGKILL' });
    const bus = await NatsBus.connect({ servers: nats().url });
    const registry = await jetStreamRegistry(bus.connection, { ttlMs: LEASE_TTL_MS });
    try {
      await until(
        async () => {
          const nodes = (await registry.nodes()).map((n) => n.id).sort();
          const claim = await registry.zoneClaim(zoneId(p.entered.enter.zone));
          return nodes.join() === 'a,b,zh-a' && claim?.host.id === 'zh-a';
        },
        20_000,
        'the registry entries written again',
      );
      await until(
        async () => (await registry.characterGateway('Faultquin'))?.gateway.id === 'b',
        20_000,
        'the session entries',
      );
    } finally {
      await registry.close({ release: false });
      await bus.close();
    }
    await heard(q, p);
    await heard(p, q);
    figures['natsRestartToChatBothWays'] = since(started);
    await seeEachOtherMove(-10);
    alive(...roles);
  }, 60_000);

  it('tells the players of a killed zone host ERR_ZONE_DOWN, keeps them connected, and puts them back from their last save when it restarts', async () => {
    // Somewhere new, saved (autosave) before the crash.
    const spot = { x: p.client.world.self!.x + 15, y: p.client.world.self!.y };
    await walkTo(p, spot);
    await sleep(AUTOSAVE_MS * 4);
    const pSince = p.log.mark();
    const qSince = q.log.mark();
    const killed = performance.now();
    await host.kill();
    const [pDown, qDown] = await Promise.all([
      p.log.expect(ErrorPacket, { since: pSince, predicate: zoneDown, timeoutMs: LEASE_TTL_MS * 4 }),
      q.log.expect(ErrorPacket, { since: qSince, predicate: zoneDown, timeoutMs: LEASE_TTL_MS * 4 }),
    ]);
    figures['zoneHostKillToNotice'] = since(killed);
    expect(pDown.fatal).toBe(false);
    expect(qDown.fatal).toBe(false);
    // Meanwhile zone inputs go nowhere, and nothing breaks: the gateways run, the clients stay.
    // A whisper needs no zone (it goes from gateway to gateway) and still arrives.
    p.client.say('anyone?');
    p.client.whisper('faultquin', 'whisper, anyone?');
    await q.log.expect(ChatMessage, { since: qSince, predicate: (m) => m.text === 'whisper, anyone?' });
    alive(...roles.filter((r) => r !== host));
    expect([p.client.closeReason, q.client.closeReason]).toEqual([undefined, undefined]);

    const restarted = performance.now();
    host = zoneHost('zh-a');
    await host.up;
    const up = performance.now();
    const [pEnter, qEnter] = await Promise.all([
      p.log.expect(EnterWorld, { since: pSince, timeoutMs: 20_000 }),
      q.log.expect(EnterWorld, { since: qSince, timeoutMs: 20_000 }),
    ]);
    figures['zoneHostRestartToUp'] = Math.round(up - restarted);
    figures['zoneHostUpToEnterWorld'] = since(up);
    expect(pEnter).toMatchObject({ name: 'Faultpia' });
    expect(near(pEnter.x, spot.x) && near(pEnter.y, spot.y)).toBe(true);
    expect(qEnter).toMatchObject({ name: 'Faultquin' });
    expect(p.log.all(ChatMessage, (m) => m.text === 'anyone?', pSince)).toEqual([]);
    await q.log.expectRecord('spawn', { since: qSince, predicate: (r) => r.id === pEnter.entityId });
    await seeEachOtherMove(8);
  }, 90_000);

  it('lets a standby zone host take the zone when its host is killed, and puts the players back', async () => {
    const standby = zoneHost('zh-b', { ZONE_STANDBY: 'on', LOG_LEVEL: 'info' });
    await standby.waitFor(/standing by/);
    const pSince = p.log.mark();
    const qSince = q.log.mark();
    const killed = performance.now();
    await host.kill();
    await p.log.expect(ErrorPacket, { since: pSince, predicate: zoneDown, timeoutMs: LEASE_TTL_MS * 4 });
    figures['standbyKillToNotice'] = since(killed);
    await standby.up;
    const up = performance.now();
    figures['standbyKillToUp'] = Math.round(up - killed);
    await Promise.all([
      p.log.expect(EnterWorld, { since: pSince, timeoutMs: 20_000 }),
      q.log.expect(EnterWorld, { since: qSince, timeoutMs: 20_000 }),
    ]);
    figures['standbyUpToEnterWorld'] = since(up);
    host = standby;
    await seeEachOtherMove(-8);
  }, 90_000);

  it("gives a killed gateway's player its character back where it stands through the other gateway, and leaves the others lingering, unseen to go", async () => {
    const pEntity = p.client.world.selfId!;
    const sEntity = s.client.world.selfId!;
    const sStood = { x: s.client.world.self!.x, y: s.client.world.self!.y };
    const tEntity = t.client.world.selfId!;
    const stood = { x: p.client.world.self!.x, y: p.client.world.self!.y };
    // Q sees both before.
    await q.log.expectRecord('spawn', { predicate: (r) => r.id === pEntity });
    const qSince = q.log.mark();
    const hostSince = host.lines.length;
    const token = p.client.resumeToken!;
    const killed = performance.now();
    await gatewayA.kill();
    await p.client.closed;

    // P's client fails over to gateway b at once, as a native client does with a list of
    // gateways, and resumes there with the token gateway a issued: the world hands it its
    // character where it stands, before the host even knows a is dead.
    const again = new PacketLog('Faultpia on gateway b');
    const back = await reconnect({
      connect: connectAny(gateways.map((g) => `127.0.0.1:${g.tcpPort}`)),
      account: 'faultpia_acct',
      token,
      clientKind: 'bot',
      clientName: 'integration-test',
      clientOptions: { requestTimeoutMs: 15_000 },
      prepare: (c) => {
        c.onPacket = (name, payload) => again.record(name, payload);
        c.onError = () => {};
      },
      maxAttempts: 5,
      baseDelayMs: 100,
    });
    const client = back.client;
    try {
      // Resumed into the world, not just logged in.
      expect(back.result.entered).toBeDefined();
      const entered = back.result.entered!;
      figures['gatewayKillToEnterWorldElsewhere'] = since(killed);
      expect(entered.enter.entityId).toBe(pEntity);
      expect(near(entered.enter.x, stood.x) && near(entered.enter.y, stood.y)).toBe(true);
      // The host learns that a is gone and leaves S and T lingering.
      await host.waitFor(/gateway gone/, { since: hostSince, timeoutMs: LEASE_TTL_MS * 4 });
      figures['gatewayKillToLinger'] = since(killed);
      // S's player logs in on b within the linger time: the lingering character is taken over.
      const sBack = await startGameClient(gateways[1]!, {
        transport: 'tcp',
        name: 'Faultsam',
        existing: true,
      });
      const sBackAt = q.log.mark();
      sBack.close();
      expect(sBack.entityId).toBe(sEntity);
      expect(near(sBack.entered.enter.x, sStood.x) && near(sBack.entered.enter.y, sStood.y)).toBe(true);
      // T, whose player never came back, leaves once its linger time is up...
      await q.log.expectRecord('despawn', {
        since: qSince,
        predicate: (r) => r.id === tEntity,
        timeoutMs: LINGER_MS * 4,
      });
      // ...while P and S (until S's new connection closed) never left Q's view.
      expect(q.log.all(ErrorPacket, () => true, qSince)).toEqual([]);
      const despawned = (id: number, to?: number) =>
        q.log.entries
          .slice(qSince, to)
          .filter((e) => e.name === '@despawn' && (e.payload as { id: number }).id === id);
      expect(despawned(pEntity)).toEqual([]);
      expect(despawned(sEntity, sBackAt)).toEqual([]);
      const qTo = { x: q.client.world.self!.x + 6, y: q.client.world.self!.y };
      const seen = again.mark();
      await walkTo(q, qTo);
      await again.expectRecord('move', {
        since: seen,
        predicate: (m) => m.id === q.client.world.selfId && !m.moving && near(m.x, qTo.x),
      });
    } finally {
      client.close();
    }
  }, 90_000);
});
