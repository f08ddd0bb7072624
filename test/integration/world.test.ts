/**
 * The world over real sockets: a TCP client (A) and a WebSocket client (B) in the test zone
 * (data/test: short corpse and respawn timers), with a small interest radius so walks out of
 * view stay short. The steps run in order and share the two clients: seeing each other,
 * moving, a refused teleport, leaving and re-entering view, chat, logout and re-entry, a
 * second login taking a character over, fighting a mob to its death and respawn, and a
 * dropped connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatMessage, Whisper } from '../../shared/protocol/chat.js';
import { MoveAck, PositionCorrection } from '../../shared/protocol/movement.js';
import { ErrorPacket } from '../../shared/protocol/session.js';
import { CombatEvent, SpellFailed, SpellGo, SpellStart } from '../../shared/protocol/spell.js';
import type { ViewEntity } from '../../shared/client/world-view.js';
import {
  sleep,
  startGameClient,
  startWorldServer,
  walkTo,
  type GameClient,
  type WorldServer,
} from '../helpers/game-client.js';

/** Interest radius for this file: a player stops seeing things beyond 100 × 1.15 units. */
const INTEREST_RADIUS = 100;
const PLAYER_SPAWN = { x: 100, y: 100 };
/**
 * Where the two stand to fight: within view of the two Meadow Wolves that live at
 * (400, 400), and reached in a straight line that clears the wall at x 300-320, y 0-300.
 */
const FIGHT_A = { x: 340, y: 385 };
const FIGHT_B = { x: 330, y: 380 };
const WOLF_HOME = { x: 400, y: 400 };
const FIREBALL = 1;
/** Moves are broadcast quantized to 1/16 unit. */
const QUANTUM = 1 / 16;

const near = (a: number, b: number) => Math.abs(a - b) <= QUANTUM;
/** How long a character stays after its connection drops, in this file. */
const LINGER_MS = 1500;

describe('the world over TCP and WebSocket', () => {
  let world: WorldServer;
  let a: GameClient;
  let b: GameClient;
  const extra: GameClient[] = [];

  beforeAll(async () => {
    world = await startWorldServer({
      INTEREST_RADIUS: String(INTEREST_RADIUS),
      LINGER_MS: String(LINGER_MS),
    });
    const ports = { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort };
    a = await startGameClient(ports, { transport: 'tcp', name: 'Tcpaldo' });
    b = await startGameClient(ports, { transport: 'ws', name: 'Wsbria' });
  });

  afterAll(async () => {
    for (const c of [a, b, ...extra]) c?.close();
    await world?.stop();
  });

  const ports = () => ({ tcpPort: world.server.tcpPort, httpPort: world.server.httpPort });

  it('puts both clients at the zone spawn, each seeing the other as a named player', async () => {
    for (const c of [a, b]) {
      expect(c.entered.enter.zone).toBe('Testvale');
      expect(c.entered.enter.x).toBe(PLAYER_SPAWN.x);
      expect(c.entered.enter.y).toBe(PLAYER_SPAWN.y);
    }
    const bSeenByA = await a.log.expectRecord('spawn', { predicate: (s) => s.id === b.entityId });
    const aSeenByB = await b.log.expectRecord('spawn', { predicate: (s) => s.id === a.entityId });
    expect(bSeenByA).toMatchObject({ entity: 'player', name: 'Wsbria', alive: true });
    expect(aSeenByB).toMatchObject({ entity: 'player', name: 'Tcpaldo', alive: true });
  });

  it('acknowledges walking steps and shows the walker to its observer where it stopped', async () => {
    const bSince = b.log.mark();
    await walkTo(a, { x: 150, y: 100 });
    // Movement is state: the walk's end is an explicit stop where A stopped.
    const end = await b.log.expectRecord('move', {
      since: bSince,
      predicate: (m) => m.id === a.entityId && !m.moving && near(m.x, 150) && near(m.y, 100),
    });
    expect(end.id).toBe(a.entityId);
    expect(a.log.all(MoveAck).length).toBeGreaterThanOrEqual(1);
    expect(a.log.all(PositionCorrection)).toEqual([]);
    expect(b.client.world.get(a.entityId)).toMatchObject({ x: end.x, y: end.y });
  });

  it('corrects a teleport and never shows the walker at the teleported place', async () => {
    const bSince = b.log.mark();
    const seq = a.client.sendMove(150, 700, 0);
    const correction = await a.log.expect(PositionCorrection, { predicate: (c) => c.seq === seq });
    expect(correction).toMatchObject({ reason: 'speed' });
    expect(near(correction.x, 150) && near(correction.y, 100)).toBe(true);
    expect(a.client.world.self).toMatchObject({ x: correction.x, y: correction.y });
    expect(a.log.all(MoveAck, (ack) => ack.seq === seq)).toEqual([]);

    // A legal step after it: once B sees that, every tick since the teleport has reached B.
    await walkTo(a, { x: 150, y: 110 });
    await b.log.expectRecord('move', {
      since: bSince,
      predicate: (m) => m.id === a.entityId && !m.moving && near(m.y, 110),
    });
    expect(b.log.records('move', (m) => m.id === a.entityId && m.y > 200, bSince)).toEqual([]);
  });

  it('despawns both ways out of range and spawns both ways on the way back', async () => {
    let aSince = a.log.mark();
    let bSince = b.log.mark();
    // Views are whole 64-unit cells: here no part of either's cell is within 100 × 1.15 of the other.
    await walkTo(a, { x: 150, y: 330 });
    await a.log.expectRecord('despawn', {
      since: aSince,
      predicate: (d) => d.id === b.entityId && d.reason === 'outOfRange',
    });
    await b.log.expectRecord('despawn', {
      since: bSince,
      predicate: (d) => d.id === a.entityId && d.reason === 'outOfRange',
    });
    expect(b.client.world.get(a.entityId)).toBeUndefined();

    aSince = a.log.mark();
    bSince = b.log.mark();
    await walkTo(a, { x: 110, y: 100 });
    const bAgain = await a.log.expectRecord('spawn', {
      since: aSince,
      predicate: (s) => s.id === b.entityId,
    });
    const aAgain = await b.log.expectRecord('spawn', {
      since: bSince,
      predicate: (s) => s.id === a.entityId,
    });
    expect(bAgain.name).toBe('Wsbria');
    expect(aAgain.name).toBe('Tcpaldo');
  });

  it('delivers say and zone chat, whispers by name to one player, and lists everyone in who', async () => {
    const c = await startGameClient(ports(), { transport: 'tcp', name: 'Bystander' });
    extra.push(c);
    const since = [a, b, c].map((g) => g.log.mark());

    a.client.say('hello from tcp');
    const said = await b.log.expect(ChatMessage, {
      since: since[1],
      predicate: (m) => m.channel === 'say' && m.text === 'hello from tcp',
    });
    expect(said).toMatchObject({ from: 'Tcpaldo', fromId: a.entityId });

    b.client.say('zone news', 'zone');
    for (const g of [a, b]) {
      await g.log.expect(ChatMessage, {
        predicate: (m) => m.channel === 'zone' && m.text === 'zone news' && m.from === 'Wsbria',
      });
    }

    // By name, in any case.
    a.client.whisper('wsBRIA', 'psst');
    const whisper = await b.log.expect(ChatMessage, {
      since: since[1],
      predicate: (m) => m.channel === 'whisper',
    });
    expect(whisper).toMatchObject({ from: 'Tcpaldo', to: 'Wsbria', text: 'psst' });
    // The sender gets its own line back; a bystander gets nothing. Who answers after any
    // whisper already queued for the bystander, so the check below cannot be too early.
    await a.log.expect(ChatMessage, { predicate: (m) => m.channel === 'whisper' && m.text === 'psst' });
    await c.client.who();
    expect(c.log.all(ChatMessage, (m) => m.channel === 'whisper')).toEqual([]);

    // To oneself: the line comes once (it is both the delivery and the echo).
    const selfSince = a.log.mark();
    a.client.whisper('tcpaldo', 'a note to self');
    await a.log.expect(ChatMessage, { since: selfSince, predicate: (m) => m.text === 'a note to self' });
    await a.client.who();
    expect(a.log.all(ChatMessage, (m) => m.text === 'a note to self')).toHaveLength(1);

    a.client.whisper('Nobodyhere', 'anyone?');
    const refused = await a.log.expect(ErrorPacket, { predicate: (e) => e.code === 'ERR_NO_SUCH_PLAYER' });
    expect(refused).toMatchObject({ opcode: Whisper.opcode, fatal: false });
    expect(a.client.isClosed).toBe(false);

    const who = await a.client.who();
    expect(who.total).toBe(3);
    expect(who.players.map((p) => p.name).sort()).toEqual(['Bystander', 'Tcpaldo', 'Wsbria']);
    expect(who.players.every((p) => p.zone === 'Testvale')).toBe(true);

    c.close();
    await a.log.expectRecord('despawn', { predicate: (d) => d.id === c.entityId && d.reason === 'left' });
  });

  it('logs out to the character screen, despawning for observers, and enters again', async () => {
    const bSince = b.log.mark();
    const oldId = a.entityId;
    await a.client.logout();
    expect(a.client.state).toBe('authenticated');
    await b.log.expectRecord('despawn', {
      since: bSince,
      predicate: (d) => d.id === oldId && d.reason === 'left',
    });

    const aSince = a.log.mark();
    const again = await a.enter();
    expect(again.enter.name).toBe('Tcpaldo');
    // Back where it logged out (the save was written before the character could re-enter).
    expect(Math.abs(again.enter.x - 110)).toBeLessThan(1);
    expect(Math.abs(again.enter.y - 100)).toBeLessThan(1);
    await b.log.expectRecord('spawn', {
      since: bSince,
      predicate: (s) => s.id === a.entityId && s.name === 'Tcpaldo',
    });
    await a.log.expectRecord('spawn', { since: aSince, predicate: (s) => s.id === b.entityId });
  });

  it('hands a character to a new login of its account where the old connection left it, without leaving', async () => {
    const first = await startGameClient(ports(), { transport: 'tcp', name: 'Hopper' });
    extra.push(first);
    await walkTo(first, { x: 100, y: 140 });
    await b.log.expectRecord('spawn', { predicate: (s) => s.id === first.entityId });
    const bSince = b.log.mark();
    // No save since it entered: only the world knows where it stands now.
    const second = await startGameClient(ports(), { transport: 'ws', name: 'Hopper', existing: true });
    extra.push(second);
    expect(await first.client.closed).toBeDefined();
    expect(second.characterId).toBe(first.characterId);
    // The same entity, where it stood: observers never saw it go or come again.
    expect(second.entityId).toBe(first.entityId);
    expect(Math.abs(second.entered.enter.x - 100)).toBeLessThan(1);
    expect(Math.abs(second.entered.enter.y - 140)).toBeLessThan(1);
    await b.client.who();
    expect(b.log.records('despawn', (d) => d.id === first.entityId, bSince)).toEqual([]);
    expect(b.log.records('spawn', (s) => s.id === first.entityId, bSince)).toEqual([]);
    second.close();
  });

  it('fights a mob to its death, then sees its corpse decay and the mob respawn', async () => {
    await Promise.all([walkTo(a, FIGHT_A), walkTo(b, FIGHT_B)]);
    const aSince = a.log.mark();
    const bSince = b.log.mark();

    const target = await waitForMobSeenByBoth(a, b);
    const mobId = target.id;
    expect(target.kind).toBe('mob');

    // Cast until it dies: a mob may step out of range, and a cast may be cut short.
    let casts = 0;
    const dead = () => a.log.records('death', (d) => d.id === mobId, aSince).length > 0;
    while (!dead()) {
      if (++casts > 12) throw new Error(`mob ${mobId} still alive after ${casts - 1} casts`);
      const since = a.log.mark();
      a.client.cast(FIREBALL, mobId);
      const outcome = await Promise.race([
        a.log
          .expect(SpellGo, { since, predicate: (g) => g.casterId === a.entityId })
          .then(() => 'go' as const),
        a.log
          .expect(SpellFailed, { since, predicate: (f) => f.casterId === a.entityId })
          .then((f) => f.reason),
        a.log.expectRecord('death', { since, predicate: (d) => d.id === mobId }).then(() => 'dead' as const),
      ]);
      if (outcome === 'badTarget') break;
      if (outcome !== 'go' && outcome !== 'dead') await sleep(200);
    }

    const death = await a.log.expectRecord('death', { since: aSince, predicate: (d) => d.id === mobId });
    expect(death.killerId).toBe(a.entityId);
    await b.log.expectRecord('death', {
      since: bSince,
      predicate: (d) => d.id === mobId && d.killerId === a.entityId,
    });

    // B, standing by A, saw the fight: A's cast bar, the spell, the hits and the health.
    const fromA = (p: { casterId: number; targetId: number }) =>
      p.casterId === a.entityId && p.targetId === mobId;
    expect(b.log.all(SpellStart, fromA, bSince).length).toBeGreaterThan(0);
    expect(b.log.all(SpellStart, fromA, bSince)[0]).toMatchObject({ spellId: FIREBALL, castTime: 1500 });
    expect(b.log.all(SpellGo, fromA, bSince).length).toBeGreaterThan(0);
    const hits = b.log.all(CombatEvent, (e) => e.sourceId === a.entityId && e.targetId === mobId, bSince);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.kind === 'damage' && h.amount > 0)).toBe(true);
    const health = b.log.records('health', (h) => h.id === mobId, bSince);
    expect(health.length).toBeGreaterThan(0);
    expect(health.at(-1)!.health).toBe(0);

    // Test data: the corpse lasts 300 ms, the wolf is back 1 s after dying, at home.
    for (const g of [a, b]) {
      const since = g === a ? aSince : bSince;
      const corpse = (d: { id: number; reason: string }) => d.id === mobId && d.reason === 'corpse';
      await g.log.expectRecord('despawn', { since, predicate: corpse });
      const gone = g.log.indexOfRecord('despawn', corpse, since);
      const back = await g.log.expectRecord('spawn', { since: gone, predicate: (s) => s.id === mobId });
      expect(back).toMatchObject({ entity: 'mob', alive: true, health: back.maxHealth });
      // A spawn's position is the motion record after it: the wolf stands at home.
      const at = g.log.records(
        'move',
        (m) => m.id === mobId,
        g.log.indexOfRecord('spawn', (s) => s === back, gone),
      )[0];
      expect(at && near(at.x, WOLF_HOME.x) && near(at.y, WOLF_HOME.y)).toBe(true);
    }
  });

  it('keeps a player whose socket dies for the linger time, then despawns it', async () => {
    const aSince = a.log.mark();
    const dropped = performance.now();
    b.kill();
    await a.log.expectRecord('despawn', {
      since: aSince,
      predicate: (d) => d.id === b.entityId && d.reason === 'left',
    });
    expect(performance.now() - dropped).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(a.client.world.get(b.entityId)).toBeUndefined();
  });
});

/** A living mob that both clients see (the one nearest A), waiting for one to come into view. */
async function waitForMobSeenByBoth(a: GameClient, b: GameClient, timeoutMs = 10_000): Promise<ViewEntity> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const self = a.client.world.self!;
    const mob = a.client.world.nearest(self, a.client.serverNow(), (e) => {
      const seenByB = b.client.world.get(e.id);
      return e.kind === 'mob' && e.alive && seenByB !== undefined && seenByB.alive;
    });
    if (mob) return mob;
    if (Date.now() > deadline) throw new Error('no mob came into view of both clients');
    await sleep(100);
  }
}
