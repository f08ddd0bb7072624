/**
 * The own character through discontinuities, as the page lives them: packets through the SDK
 * into the page's world, a key held down frame after frame. Death, respawn, a teleport, a
 * correction, a hand-off and a resume each move the character once, to where the server
 * has it, and nothing the client made before it heard of the event is replayed or sent after.
 */
import { describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { EnterWorld, ZoneChanged, ZoneInfo } from '../../shared/protocol/character.js';
import type { PayloadOf } from '../../shared/protocol/define.js';
import { WorldUpdate } from '../../shared/protocol/entity.js';
import { PositionCorrection } from '../../shared/protocol/movement.js';
import type { EntityRecord } from '../../shared/protocol/records.js';
import { openPage, type Page } from './page.js';

const T0 = 1_700_000_000_000;
const FRAME_MS = 16;
const SPEED = 120;

type Correction = PayloadOf<typeof PositionCorrection>;
type Move = { seq: number; x: number; y: number; moving: boolean; epoch?: number };

function zoneInfo(w: Writer, zone = 'Vale', x = 0): void {
  ZoneInfo.write(w, {
    zone,
    x,
    y: 0,
    width: 1000,
    height: 1000,
    obstacles: [],
    neighbours: [],
    cellSize: 100,
    respawnDelay: 500,
  });
}

function enterWorld(over: Partial<PayloadOf<typeof EnterWorld>> = {}): PayloadOf<typeof EnterWorld> {
  return {
    zone: 'Vale',
    entityId: 1,
    name: 'Aria',
    x: 100,
    y: 100,
    facing: 0,
    speed: SPEED,
    level: 1,
    health: 100,
    maxHealth: 100,
    mana: 50,
    maxMana: 50,
    spells: [1],
    serverTime: T0,
    tick: 0,
    interestRadius: 300,
    moveEpoch: 0,
    ...over,
  } as PayloadOf<typeof EnterWorld>;
}

/** A page in the world at (100, 100), with a server that has said nothing yet about its moves. */
function inWorld(): Page & { tick: number } {
  const page = Object.assign(openPage(), { tick: 0 });
  page.feed(0, (w) => {
    zoneInfo(w);
    EnterWorld.write(w, enterWorld());
  });
  return page;
}

/** One WorldUpdate of `records` and the messages after it, as the server writes a tick. */
function serverTick(page: Page & { tick: number }, records: EntityRecord[], after: Correction[] = []): void {
  page.tick++;
  page.feed(page.now, (w) => {
    WorldUpdate.write(w, { tick: 1, time: page.tick === 1 ? page.now : FRAME_MS, records });
    for (const c of after) PositionCorrection.write(w, c);
  });
}

/** One frame of the page holding `dir` (the page's frame loop): predict, send, draw. */
function frame(page: Page, dir: { x: number; y: number }): void {
  page.now += FRAME_MS;
  page.world.frame(dir, FRAME_MS, T0 + page.now, (s) =>
    page.client.sendMove(s.x, s.y, s.facing, s.moving, s.speed),
  );
  page.world.prune(page.now);
}

function hold(page: Page, frames: number, dir = { x: 1, y: 0 }): void {
  for (let i = 0; i < frames; i++) frame(page, dir);
}

function moves(page: Page): Move[] {
  return page.sent.filter((m) => m.name === 'MoveInput').map((m) => m.payload as Move);
}

/** Where the page draws its own character now. */
function drawn(page: Page): { x: number; y: number } {
  const p = page.world.drawnPosition(page.world.selfEntity()!, page.now);
  return { x: p.x, y: p.y };
}

function expectNear(a: { x: number; y: number }, b: { x: number; y: number }, within = 0.5): void {
  expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeLessThanOrEqual(within);
}

describe('the own character through a discontinuity', () => {
  it('dying while a key is held: drawn at once where the server has the corpse, and nothing more is sent', () => {
    const page = inWorld();
    hold(page, 30);
    const before = moves(page).length;
    expect(before).toBeGreaterThan(1);
    // The server had it at (130, 100), its newest accepted input, when it fell.
    serverTick(
      page,
      [{ kind: 'death', id: 1, killerId: 1 << 20 }],
      [{ seq: 2, x: 130, y: 100, facing: 0, reason: 'dead', epoch: 1 } as Correction],
    );
    expectNear(drawn(page), { x: 130, y: 100 });
    hold(page, 60);
    expect(moves(page).slice(before)).toEqual([]);
    expectNear(drawn(page), { x: 130, y: 100 });
    expect(page.world.self!.predictor.pending).toEqual([]);
  });

  it('respawning with the key still held: walks on from the graveyard, in the new epoch, never from the corpse', () => {
    const page = inWorld();
    hold(page, 30);
    serverTick(
      page,
      [{ kind: 'death', id: 1, killerId: 1 << 20 }],
      [{ seq: 2, x: 130, y: 100, facing: 0, reason: 'dead', epoch: 1 } as Correction],
    );
    hold(page, 30);
    const sentBefore = moves(page).length;
    serverTick(
      page,
      [{ kind: 'respawn', id: 1, x: 500, y: 500, health: 100, maxHealth: 100 }],
      [{ seq: 2, x: 500, y: 500, facing: 0, reason: 'respawn', epoch: 2 } as Correction],
    );
    expectNear(drawn(page), { x: 500, y: 500 });
    const correctionsAtRespawn = page.world.self!.predictor.corrections;
    hold(page, 30);
    const after = moves(page).slice(sentBefore);
    expect(after.length).toBeGreaterThan(0);
    for (const m of after) {
      expect(m.epoch).toBe(2);
      expect(m.y).toBeCloseTo(500, 3);
      expect(m.x).toBeGreaterThanOrEqual(500);
    }
    expectNear(drawn(page), { x: 500 + (SPEED * 30 * FRAME_MS) / 1000, y: 500 });
    expect(page.world.self!.predictor.corrections).toBe(correctionsAtRespawn);
  });

  it('teleported while walking: stands where the server put it, the steps made before not replayed', () => {
    const page = inWorld();
    hold(page, 20);
    serverTick(page, [], [{ seq: 1, x: 700, y: 300, facing: 0, reason: 'teleport', epoch: 1 } as Correction]);
    expectNear(drawn(page), { x: 700, y: 300 });
    expect(page.world.self!.predictor.pending).toEqual([]);
    const sentBefore = moves(page).length;
    hold(page, 10);
    const after = moves(page).slice(sentBefore);
    expect(after[0]).toMatchObject({ moving: true, epoch: 1 });
    expect(after[0]!.x).toBeGreaterThanOrEqual(700);
  });

  it('corrected while walking: replays its own keys from the server position and sends that in the new epoch, the old inputs forgotten', () => {
    const page = inWorld();
    hold(page, 40);
    const sent = moves(page);
    expect(sent.length).toBeGreaterThan(2);
    // The server refused the second input and has the character at (104, 100).
    serverTick(page, [], [{ seq: 2, x: 104, y: 100, facing: 0, reason: 'speed', epoch: 1 } as Correction]);
    const pr = page.world.self!.predictor;
    // Every input after seq 2 was made in epoch 0: the server drops them, nothing waits for their ack.
    expect(pr.pending).toEqual([]);
    hold(page, 1);
    const next = moves(page).slice(sent.length);
    expect(next).toHaveLength(1);
    expect(next[0]).toMatchObject({ epoch: 1, moving: true });
    expect(next[0]!.x).toBeCloseTo(pr.x, 3);
  });

  it('taken over by a new connection (resume, reload): starts from EnterWorld in its epoch, with nothing pending', () => {
    const page = inWorld();
    hold(page, 40);
    expect(page.world.self!.predictor.pending.length).toBeGreaterThan(0);
    page.feed(page.now, (w) => {
      zoneInfo(w);
      EnterWorld.write(w, enterWorld({ x: 300, y: 320, moveEpoch: 3, serverTime: T0 + page.now }));
    });
    expectNear(drawn(page), { x: 300, y: 320 });
    expect(page.world.self!.predictor.pending).toEqual([]);
    const sentBefore = moves(page).length;
    hold(page, 10);
    const after = moves(page).slice(sentBefore);
    expect(after[0]).toMatchObject({ seq: 1, epoch: 3, moving: true });
    expect(after[0]!.y).toBeCloseTo(320, 3);
  });

  it('handed to the next zone mid-walk: no jump, its pending inputs and epoch carried on', () => {
    const page = inWorld();
    hold(page, 20);
    const pr = page.world.self!.predictor;
    const at = drawn(page);
    const pending = pr.pending.length;
    page.feed(page.now, (w) => {
      zoneInfo(w, 'Moor', 1000);
      ZoneChanged.write(w, { zone: 'Moor', tick: 50, serverTime: T0 + page.now });
    });
    expect(drawn(page)).toEqual(at);
    expect(pr.pending).toHaveLength(pending);
    const sentBefore = moves(page).length;
    hold(page, 20);
    for (const m of moves(page).slice(sentBefore)) expect(m.epoch).toBe(0);
    expect(pr.corrections).toBe(0);
  });
});
