/**
 * A character outlives its socket: over real sockets, a dropped connection leaves the
 * character in the world (standing, visible, attackable) for the linger time, and a Resume
 * within it, over TCP or WebSocket whatever the old connection was, takes it back where it
 * stands with its whole view, while observers never see it leave. After the linger the
 * character is saved and leaves; a bad or used token changes nothing.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResumeResult } from '../../shared/client/client.js';
import type { WyvernClient } from '../../shared/client/client.js';
import { CombatEvent, SpellGo } from '../../shared/protocol/spell.js';
import { EnterWorld } from '../../shared/protocol/character.js';
import { Bye, ErrorPacket } from '../../shared/protocol/session.js';
import { Resume } from '../../shared/protocol/account.js';
import { WorldUpdate } from '../../shared/protocol/entity.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import type { Player } from '../../server/world/index.js';
import { openStore } from '../../server/store/index.js';
import {
  resumeGameClient,
  sleep,
  startGameClient,
  startWorldServer,
  walkTo,
  type GameClient,
  type PacketLog,
  type ResumedGame,
  type WorldServer,
} from '../helpers/game-client.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ARCANE_SHOT = 3;
/** Within view and reach of the two Meadow Wolves that live at (400, 400); see world.test.ts. */
const FIGHT = { x: 340, y: 385 };
const QUANTUM = 1 / 16;

function ports(world: WorldServer) {
  return { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort };
}

function serverPlayer(world: WorldServer, id: number): Player | undefined {
  for (const host of world.server.realm.zones.values()) {
    const p = host.world.players.get(id);
    if (p) return p;
  }
  return undefined;
}

/** The resumed client as a GameClient, for walkTo. */
function asGame(r: ResumedGame, name: string, characterId: number): GameClient {
  const entered = r.result.entered!;
  return {
    client: r.client,
    log: r.log,
    transport: 'tcp',
    name,
    characterId,
    entityId: entered.enter.entityId,
    entered,
    enter: () => Promise.reject(new Error('not used')),
    kill: r.kill,
    close: r.close,
  };
}

/** Starts walking east and sends `steps` heartbeats 100 ms apart; does not stop. */
async function walkEast(client: WyvernClient, steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) {
    const self = client.world.self!;
    client.sendMove(self.x + 12, self.y, 0, true, 120);
    await sleep(100);
  }
}

/**
 * The first WorldUpdate after EnterWorld holds a spawn for every entity the server's player
 * sees; entities that came or went since are accounted for by later spawns and despawns.
 */
function expectWholeView(world: WorldServer, r: ResumedGame, entityId: number): number[] {
  const at = r.log.entries.findIndex((e) => e.name === EnterWorld.name);
  expect(at).toBeGreaterThanOrEqual(0);
  const firstUpdate = r.log.entries.findIndex((e, i) => i > at && e.name === WorldUpdate.name);
  expect(firstUpdate).toBeGreaterThan(at);
  const update = r.log.entries[firstUpdate]!.payload as PayloadOf<typeof WorldUpdate>;
  const spawned = update.records.flatMap((rec) => (rec.kind === 'spawn' ? [rec.id] : []));
  expect(new Set(spawned).size).toBe(spawned.length);
  const later = firstUpdate + 1;
  const visible = [...serverPlayer(world, entityId)!.visible.keys()];
  for (const id of visible) {
    const spawnedLater = r.log.records('spawn', (s) => s.id === id, later).length > 0;
    expect(spawned.includes(id) || spawnedLater, `entity ${id} in view but never spawned`).toBe(true);
  }
  for (const id of spawned) {
    const goneLater = r.log.records('despawn', (d) => d.id === id, later).length > 0;
    expect(visible.includes(id) || goneLater, `entity ${id} spawned but not in view`).toBe(true);
  }
  return spawned;
}

function neverLeft(log: PacketLog, entityId: number, since = 0): void {
  expect(log.records('despawn', (d) => d.id === entityId, since)).toEqual([]);
}

describe('resuming a character that outlived its socket', () => {
  let world: WorldServer;
  let watcher: GameClient;
  const open: { close(): void }[] = [];

  beforeAll(async () => {
    world = await startWorldServer({ LINGER_MS: '4000', COMBAT_LINGER_MS: '4000' });
    watcher = await startGameClient(ports(world), { transport: 'ws', name: 'Watcher' });
    open.push(watcher);
  });

  afterAll(async () => {
    for (const c of open) c.close();
    await world?.stop();
  });

  it('drops a TCP connection mid-walk and resumes over WebSocket where it stood, with the whole view', async () => {
    const a = await startGameClient(ports(world), { transport: 'tcp', name: 'Walker' });
    open.push(a);
    await watcher.log.expectRecord('spawn', { predicate: (s) => s.id === a.entityId });
    const wSince = watcher.log.mark();
    await walkEast(a.client, 4);
    a.kill();
    // The observer sees it stop where the server last had it, and nothing else.
    const stop = await watcher.log.expectRecord('move', {
      since: wSince,
      predicate: (m) => m.id === a.entityId && !m.moving,
    });
    const player = serverPlayer(world, a.entityId)!;
    expect(player.moving).toBe(false);
    const stood = { x: player.x, y: player.y };
    expect(Math.abs(stop.x - stood.x)).toBeLessThanOrEqual(QUANTUM);

    const r = await resumeGameClient(ports(world), 'ws', a);
    open.push(r);
    expect(r.result.characterId).toBe(a.characterId);
    const enter = r.result.entered!.enter;
    expect(enter.entityId).toBe(a.entityId);
    // Where it stood, as the wire's f32 carries it.
    expect(enter.x).toBe(Math.fround(stood.x));
    expect(enter.y).toBe(Math.fround(stood.y));
    expect(r.client.state).toBe('inWorld');
    const spawned = expectWholeView(world, r, a.entityId);
    expect(spawned).toContain(watcher.entityId);
    // The SDK's view was built from them.
    await r.log.expect(WorldUpdate);
    expect(r.client.world.get(watcher.entityId)).toBeDefined();

    // It walks on without a correction (the server forgot the old connection's clock).
    const game = asGame(r, a.name, a.characterId);
    await walkTo(game, { x: enter.x, y: enter.y + 24 });
    await watcher.log.expectRecord('move', {
      predicate: (m) => m.id === a.entityId && !m.moving && Math.abs(m.y - (stood.y + 24)) <= QUANTUM,
    });
    neverLeft(watcher.log, a.entityId);
    expect(watcher.log.records('spawn', (s) => s.id === a.entityId, wSince)).toEqual([]);
  });

  it('resumes a WebSocket character over TCP, and back', async () => {
    const b = await startGameClient(ports(world), { transport: 'ws', name: 'Hopper' });
    open.push(b);
    await watcher.log.expectRecord('spawn', { predicate: (s) => s.id === b.entityId });
    b.kill();
    const overTcp = await resumeGameClient(ports(world), 'tcp', b);
    open.push(overTcp);
    expect(overTcp.result.entered?.enter.entityId).toBe(b.entityId);
    overTcp.kill();
    const backOverWs = await resumeGameClient(ports(world), 'ws', overTcp);
    open.push(backOverWs);
    expect(backOverWs.result.entered?.enter.entityId).toBe(b.entityId);
    expect(backOverWs.client.world.self?.id).toBe(b.entityId);
    await backOverWs.client.who();
    neverLeft(watcher.log, b.entityId);
  });

  it('takes the character from a connection the server still thinks open (half-open) without a despawn', async () => {
    const h = await startGameClient(ports(world), { transport: 'tcp', name: 'Halfopen' });
    open.push(h);
    await watcher.log.expectRecord('spawn', { predicate: (s) => s.id === h.entityId });
    const wSince = watcher.log.mark();
    // The client gave up on its link (no bytes either way) and comes back on a new one.
    const r = await resumeGameClient(ports(world), 'ws', h);
    open.push(r);
    expect(await h.log.expect(Bye)).toMatchObject({ reason: 'takenOver' });
    expect(r.result.entered?.enter.entityId).toBe(h.entityId);
    await r.client.who();
    neverLeft(watcher.log, h.entityId, wSince);
    expect(watcher.log.records('spawn', (s) => s.id === h.entityId, wSince)).toEqual([]);
  });

  it('refuses a used or made-up token with ERR_BAD_RESUME and changes nothing else', async () => {
    const c = await startGameClient(ports(world), { transport: 'tcp', name: 'Keeper' });
    open.push(c);
    const used = c.client.resumeToken!;
    c.kill();
    const r = await resumeGameClient(ports(world), 'tcp', c);
    open.push(r);
    expect(r.result.entered?.enter.entityId).toBe(c.entityId);

    for (const token of [used, new Uint8Array(32).fill(7)]) {
      const again = await resumeGameClient(ports(world), 'ws', c, { token }).then(
        () => 'resumed',
        (e: { code?: string }) => e.code,
      );
      expect(again).toBe('ERR_BAD_RESUME');
    }
    // The character stays with the resumed connection, which stays open and in the world.
    expect(r.client.isClosed).toBe(false);
    expect(r.client.state).toBe('inWorld');
    expect(r.log.all(ErrorPacket)).toEqual([]);
    expect((await r.client.who()).players.map((p) => p.name)).toContain('Keeper');
    neverLeft(watcher.log, c.entityId);
    // Its token still works once.
    r.kill();
    const last = await resumeGameClient(ports(world), 'tcp', r);
    open.push(last);
    expect(last.result.entered?.enter.entityId).toBe(c.entityId);
  });

  it('answers a bad token on a fresh connection with a non-fatal ERR_BAD_RESUME', async () => {
    const c = await startGameClient(ports(world), { transport: 'tcp', name: 'Prober' });
    open.push(c);
    const r = resumeGameClient(ports(world), 'tcp', c, { token: new Uint8Array(32) });
    await expect(r).rejects.toMatchObject({ code: 'ERR_BAD_RESUME', opcode: Resume.opcode, fatal: false });
    // The owner was not taken over.
    expect(c.client.isClosed).toBe(false);
    expect((await c.client.who()).players.map((p) => p.name)).toContain('Prober');
  });
});

describe('how long a dropped character lingers', () => {
  let world: WorldServer;
  let watcher: GameClient;
  const open: { close(): void }[] = [];
  const LINGER_MS = 800;

  beforeAll(async () => {
    world = await startWorldServer({ LINGER_MS: String(LINGER_MS), COMBAT_LINGER_MS: '20000' });
    watcher = await startGameClient(ports(world), { transport: 'ws', name: 'Onlooker' });
    open.push(watcher);
  });

  afterAll(async () => {
    for (const c of open) c.close();
    await world?.stop();
  });

  it('saves and removes the character when the linger runs out; a later login finds it there', async () => {
    const d = await startGameClient(ports(world), { transport: 'tcp', name: 'Leaver' });
    open.push(d);
    await walkTo(d, { x: 100, y: 150 });
    await watcher.log.expectRecord('spawn', { predicate: (s) => s.id === d.entityId });
    expect((await watcher.client.who()).players.map((p) => p.name)).toContain('Leaver');
    const dropped = performance.now();
    d.kill();
    // Lingering, it is in the world but its player is not online: who leaves it out, as a
    // whisper to it is refused.
    await sleep(300);
    expect(serverPlayer(world, d.entityId)).toBeDefined();
    expect((await watcher.client.who()).players.map((p) => p.name)).not.toContain('Leaver');
    const gone = await watcher.log.expectRecord('despawn', { predicate: (g) => g.id === d.entityId });
    expect(gone.reason).toBe('left');
    expect(performance.now() - dropped).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(serverPlayer(world, d.entityId)).toBeUndefined();

    // Its token still authenticates, at account level: no character in the world.
    const r = await resumeGameClient(ports(world), 'tcp', d);
    open.push(r);
    expect(r.result).toMatchObject({ characterId: 0 });
    expect(r.result.entered).toBeUndefined();
    expect(r.client.state).toBe('authenticated');
    r.close();

    const again = await startGameClient(ports(world), { transport: 'ws', name: 'Leaver', existing: true });
    open.push(again);
    expect(again.entered.enter.x).toBe(100);
    expect(again.entered.enter.y).toBe(150);
  });

  it('keeps a character that was fighting well past the linger; a 2 s outage shows the damage taken', async () => {
    const e = await startGameClient(ports(world), { transport: 'tcp', name: 'Fighter' });
    const f = await startGameClient(ports(world), { transport: 'ws', name: 'Medic' });
    open.push(e, f);
    await Promise.all([walkTo(e, FIGHT), walkTo(f, { x: FIGHT.x - 10, y: FIGHT.y - 5 })]);
    // Shoot the nearest wolf until one is hitting E.
    const eSince = e.log.mark();
    const hitOnE = (c: PayloadOf<typeof CombatEvent>) => c.targetId === e.entityId && c.kind === 'damage';
    for (let tries = 0; e.log.all(CombatEvent, hitOnE, eSince).length === 0; tries++) {
      if (tries > 40) throw new Error('no wolf took the bait');
      const self = e.client.world.self!;
      const wolf = e.client.world.nearest(self, e.client.serverNow(), (x) => x.kind === 'mob' && x.alive);
      if (wolf && (tries === 0 || tries % 10 === 0)) e.client.cast(ARCANE_SHOT, wolf.id);
      await sleep(250);
    }
    expect(e.log.all(SpellGo, (g) => g.casterId === e.entityId, eSince).length).toBeGreaterThan(0);
    const before = serverPlayer(world, e.entityId)!.health;
    const fSince = f.log.mark();
    const wSince = watcher.log.mark();
    e.kill();
    await sleep(2000);
    // Still there after 2.5 × the linger: it was in combat. F saw it being hit.
    expect(serverPlayer(world, e.entityId)).toBeDefined();
    const hits = f.log.all(CombatEvent, hitOnE, fSince);
    expect(hits.length).toBeGreaterThan(0);
    const taken = hits.reduce((sum, h) => sum + h.amount, 0);

    const r: ResumedGame = await resumeGameClient(ports(world), 'ws', e);
    open.push(r);
    const result: ResumeResult = r.result;
    expect(result.entered?.enter.entityId).toBe(e.entityId);
    expect(result.entered!.enter.health).toBeLessThanOrEqual(before - taken);
    expect(result.entered!.enter.health).toBeLessThan(result.entered!.enter.maxHealth);
    neverLeft(f.log, e.entityId);
    expect(watcher.log.records('despawn', (g) => g.id === e.entityId && g.reason === 'left', wSince)).toEqual(
      [],
    );
  });
});

describe('shutting down with a character lingering', () => {
  it('saves the lingering character with everyone else', async () => {
    const world = await startWorldServer({ LINGER_MS: '60000' });
    try {
      const g = await startGameClient(ports(world), { transport: 'tcp', name: 'Sleeper' });
      await walkTo(g, { x: 100, y: 160 });
      g.kill();
      // Gone from the connections, still in the world, not yet saved where it stands.
      for (let i = 0; world.server.dispatcher.sessions.size > 0; i++) {
        if (i > 100) throw new Error('the dropped connection never closed');
        await sleep(20);
      }
      expect(serverPlayer(world, g.entityId)).toBeDefined();
      expect((await world.server.store.getCharacter(g.characterId))?.y).not.toBe(160);
      await world.server.stop();
      const store = await openStore(world.server.config.databaseUrl);
      try {
        expect(await store.getCharacter(g.characterId)).toMatchObject({ x: 100, y: 160 });
      } finally {
        await store.close();
      }
    } finally {
      await world.stop();
    }
  });
});

describe('the terminal client after a dropped connection', () => {
  it('reconnects by itself and resumes in place', async () => {
    const world = await startWorldServer({ LINGER_MS: '5000' });
    try {
      const args = ['--port', String(world.server.tcpPort), '--user', 'termi', '--password', 'pw-termi-1'];
      const child = spawn(process.execPath, ['--import', 'tsx', 'tools/client.ts', ...args, '--register'], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      try {
        child.stdin.write('move 100 130\n');
        const inWorld = () =>
          [...world.server.dispatcher.sessions.values()].find(
            (s) => s.account === 'termi' && s.state === 'inWorld',
          );
        for (let i = 0; !stdout.includes('Arrived at 100,130'); i++) {
          if (i > 500) throw new Error(`the client never arrived:\n${stdout}`);
          await sleep(20);
        }
        const first = inWorld()!;
        const entityId = first.entityId;
        // The server cuts the connection without a goodbye.
        first.close('test drop');
        for (let i = 0; !stdout.includes('Resumed in'); i++) {
          if (i > 500) throw new Error(`the client never resumed:\n${stdout}`);
          await sleep(20);
        }
        const second = inWorld()!;
        expect(second).not.toBe(first);
        expect(second.entityId).toBe(entityId);
        expect(stdout).toMatch(/Resumed in \d+ ms: at 100,130/);
        child.stdin.write('where\n');
        child.stdin.end();
        expect(await exited, stdout).toBe(0);
        expect(stdout).toContain('You are at 100,130');
        expect(stdout, stdout).toContain('Logged out.');
      } finally {
        clearTimeout(timer);
        child.kill('SIGKILL');
      }
    } finally {
      await world.stop();
    }
  });
});
