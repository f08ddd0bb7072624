import { describe, expect, it } from 'vitest';
import { findPlayerByName } from '../../server/world/index.js';
import {
  cast,
  deliveries,
  INSTANT,
  join,
  mobAt,
  mobId,
  move,
  ofType,
  player,
  received,
  runUntil,
  tick,
  world,
} from './builders.js';

describe('chat', () => {
  it('say reaches the speaker and observers within say range; zone reaches everyone', () => {
    const w = world({ zone: { obstacles: [] } });
    const a = join(w, player({ x: 100, y: 500, name: 'Alda' }));
    const near = join(w, player({ x: 200, y: 500 }));
    const seenButFar = join(w, player({ x: 300, y: 500 })); // 200 away: sees a, out of say range
    const far = join(w, player({ x: 900, y: 500 }));
    const say = tick(w, [{ type: 'chat', entityId: a.id, channel: 'say', text: 'hello' }], 100);
    const line = { channel: 'say', fromId: a.id, from: 'Alda', to: '', text: 'hello' };
    expect(received(say, a.id, 'ChatMessage')).toEqual([line]);
    expect(received(say, near.id, 'ChatMessage')).toEqual([line]);
    expect(seenButFar.visible.has(a.id)).toBe(true);
    expect(received(say, seenButFar.id, 'ChatMessage')).toEqual([]);
    expect(received(say, far.id, 'ChatMessage')).toEqual([]);
    const zone = tick(w, [{ type: 'chat', entityId: a.id, channel: 'zone', text: 'all' }], 200);
    expect(zone).toEqual([{ type: 'shouted', speaker: a, text: 'all' }]);
    expect(received(zone, far.id, 'ChatMessage')).toEqual([{ ...line, channel: 'zone', text: 'all' }]);
  });

  it('refuses a line over MAX_CHAT_BYTES with ERR_CHAT_TOO_LONG to the sender', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 500 }));
    const ev = tick(w, [{ type: 'chat', entityId: a.id, channel: 'say', text: 'é'.repeat(128) }], 100);
    expect(received(ev, a.id, 'Error')).toEqual([
      expect.objectContaining({ code: 'ERR_CHAT_TOO_LONG', fatal: false }),
    ]);
    expect(received(ev, a.id, 'ChatMessage')).toEqual([]);
  });

  it('rate-limits chat per player with ERR_RATE_LIMITED, then lets it through again', () => {
    const w = world({ rules: { chatBurst: 3, chatPerSecond: 1 } });
    const a = join(w, player({ x: 100, y: 500 }));
    const line = { type: 'chat', entityId: a.id, channel: 'zone', text: 'spam' } as const;
    const ev = tick(w, [line, line, line, line], 100);
    expect(ofType(ev, 'shouted')).toHaveLength(3);
    expect(received(ev, a.id, 'Error').map((e) => e.code)).toEqual(['ERR_RATE_LIMITED']);
    const later = tick(w, [line], 1200);
    expect(ofType(later, 'shouted')).toHaveLength(1);
  });

  it('judges the chat rate by when lines were said: lines said a second apart that reach the zone together all go through', () => {
    const w = world({ rules: { chatBurst: 3, chatPerSecond: 1 } });
    const a = join(w, player({ x: 100, y: 500 }));
    const said = (at: number) =>
      ({ type: 'chat', entityId: a.id, channel: 'zone', text: `at ${at}`, receivedAt: at }) as const;
    tick(w, [said(0)], 0);
    // Five lines said a second apart, held up on their way (a bus outage), applied in one tick.
    const ev = tick(w, [said(1000), said(2000), said(3000), said(4000), said(5000)], 6000);
    expect(ofType(ev, 'shouted')).toHaveLength(5);
    expect(received(ev, a.id, 'Error')).toEqual([]);
    // A line claiming to be said in the future counts as said now.
    const burst = tick(w, [said(99_000), said(99_000), said(99_000), said(99_000)], 6100);
    expect(ofType(burst, 'shouted').length).toBeLessThanOrEqual(3);
  });

  it('finds a player by name ignoring case (for whisper and who)', () => {
    const w = world();
    const a = join(w, player({ name: 'Morwen' }));
    expect(findPlayerByName(w, 'morWEN')).toBe(a);
    expect(findPlayerByName(w, 'nobody')).toBeUndefined();
  });
});

describe('logout', () => {
  it('starts a timer, then saves, completes and removes the player with reason left', () => {
    const w = world({ rules: { logoutDelay: 1000 } });
    const a = join(w, player({ x: 100, y: 500, kills: 3 }));
    const b = join(w, player({ x: 150, y: 500 }));
    const cell = a.cell;
    const started = tick(w, [{ type: 'logout', entityId: a.id }], 100);
    expect(received(started, a.id, 'LogoutStarted')).toEqual([{ delay: 1000 }]);
    expect(runUntil(w, 1050).filter((e) => e.type === 'save')).toEqual([]);
    const done = tick(w, [], 1100);
    const save = done.find((e) => e.type === 'save');
    expect(save).toMatchObject({ playerId: a.id, character: { x: 100, y: 500, kills: 3, health: 100 } });
    expect(received(done, a.id, 'LogoutComplete')).toEqual([{}]);
    expect(ofType(done, 'removed')).toEqual([
      { type: 'removed', entity: a, cell, reason: 'left', observers: [b.id] },
    ]);
    expect(b.viewCells.has(cell)).toBe(true);
    expect(b.visible.has(a.id)).toBe(false);
    expect(done.at(-1)).toMatchObject({ type: 'leftWorld', playerId: a.id, reason: 'logout' });
    expect(w.players.has(a.id)).toBe(false);
  });

  it('moving cancels the logout', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 500 }));
    tick(w, [{ type: 'logout', entityId: a.id }], 100);
    const ev = tick(w, [move(a, 105, 500, { t: 300 })], 300);
    expect(received(ev, a.id, 'LogoutCancelled')).toEqual([{}]);
    expect(runUntil(w, 3000).some((e) => e.type === 'save')).toBe(false);
    expect(w.players.has(a.id)).toBe(true);
  });

  it('a blow taken or dealt during the countdown stops it: a logout is no way out of a fight', () => {
    const w = world({ zone: { obstacles: [] }, mobs: [mobAt(160, 500)], rules: { logoutDelay: 1000 } });
    const a = join(w, player({ x: 100, y: 500 }));
    tick(w, [{ type: 'logout', entityId: a.id }], 100);
    // An instant spell at the mob beside: the player fights on.
    const ev = tick(w, [cast(a.id, INSTANT, mobId())], 300);
    expect(received(ev, a.id, 'LogoutCancelled')).toEqual([{}]);
    expect(runUntil(w, 3000).some((e) => e.type === 'save')).toBe(false);
    expect(w.players.has(a.id)).toBe(true);
    // A logout begun after the fight runs out as ever, unless the mob hits back meanwhile.
    const b = join(w, player({ x: 900, y: 900 }));
    tick(w, [{ type: 'logout', entityId: b.id }], 3050);
    expect(runUntil(w, 4100).some((e) => e.type === 'leftWorld' && e.playerId === b.id)).toBe(true);
  });

  it('LogoutCancel stops the timer', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 500 }));
    tick(w, [{ type: 'logout', entityId: a.id }], 100);
    const ev = tick(w, [{ type: 'logoutCancel', entityId: a.id }], 300);
    expect(received(ev, a.id, 'LogoutCancelled')).toEqual([{}]);
    expect(runUntil(w, 3000).some((e) => e.type === 'save')).toBe(false);
  });

  it('a dropped connection saves at once and removes the player', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 500 }));
    const b = join(w, player({ x: 150, y: 500 }));
    const ev = tick(w, [{ type: 'leave', entityId: a.id, reason: 'disconnected' }], 100);
    expect(ev.find((e) => e.type === 'save')).toMatchObject({ playerId: a.id });
    expect(ofType(ev, 'removed')).toEqual([expect.objectContaining({ entity: a, reason: 'left' })]);
    expect(b.visible.has(a.id)).toBe(false);
    expect(received(ev, a.id, 'LogoutComplete')).toEqual([]);
    expect(ev.find((e) => e.type === 'leftWorld')).toMatchObject({ reason: 'disconnected' });
  });

  it('a join input emits joined and entered, which become ZoneInfo, SpellBook, EnterWorld and PlayerStats to the player', () => {
    const w = world();
    join(w, player({ x: 120, y: 500 }));
    const ev = tick(w, [{ type: 'join', sessionId: 42, character: player({ name: 'Nim' }) }], 100);
    const joined = ev[0];
    expect(joined).toMatchObject({ type: 'joined', sessionId: 42 });
    const id = joined?.type === 'joined' ? joined.playerId : -1;
    expect(ev[1]).toMatchObject({ type: 'entered', player: { id } });
    const order = deliveries(ev, w)
      .filter((d) => d.to !== 'zone' && d.to.includes(id))
      .map((d) => d.msg.packet);
    expect(order).toEqual(['ZoneInfo', 'SpellBook', 'EnterWorld', 'PlayerStats']);
    expect(received(ev, id, 'EnterWorld', w)[0]).toMatchObject({
      name: 'Nim',
      x: 100,
      y: 100,
      interestRadius: 250,
    });
  });
});
