import { describe, expect, it } from 'vitest';
import type { WorldChange } from '../../shared/client/world-view.js';
import { inSight, sightFirst } from '../../shared/game/sight.js';
import { CHAT_HISTORY, ChatLog, chatTime, type ChatLine } from '../../web-client/src/state/chat-log.js';
import { NOTICE_MS, NOTICES_SHOWN, Notices, noticeText } from '../../web-client/src/state/notices.js';
import { Prefs, type KeyValueStore } from '../../web-client/src/state/prefs.js';
import { ChangeCues, CueGate, CUE_GAP_MS, cueForPacket } from '../../web-client/src/state/sound-cues.js';
import { ClientWorld } from '../../web-client/src/state/world.js';

const wall = { x: 300, y: 0, w: 20, h: 300 };

describe('line of sight, shared by the server, the page and the terminal client', () => {
  it('is a thin line: blocked through a wall, clear past its end', () => {
    expect(inSight({ x: 100, y: 100 }, { x: 500, y: 100 }, [wall])).toBe(false);
    expect(inSight({ x: 100, y: 400 }, { x: 500, y: 400 }, [wall])).toBe(true);
    // No clearance: a line 1 unit past the wall's end is clear.
    expect(inSight({ x: 100, y: 301 }, { x: 500, y: 301 }, [wall])).toBe(true);
  });

  it('orders candidates in sight first, nearest first, then those behind walls', () => {
    const from = { x: 100, y: 100 };
    const behind = { id: 1, x: 380, y: 100 }; // 280 away, behind the wall
    const open = { id: 2, x: 100, y: 450 }; // 350 away, in sight
    const near = { id: 3, x: 100, y: 420 }; // 320 away, in sight
    expect(sightFirst(from, [behind, open, near], [wall]).map((c) => c.id)).toEqual([3, 2, 1]);
    expect(sightFirst(from, [behind, open], []).map((c) => c.id)).toEqual([1, 2]);
  });
});

describe('notices', () => {
  it('merges the same message into one line with a count, and keeps it up while repeated', () => {
    const n = new Notices();
    for (let i = 0; i < 5; i++) n.add('Not enough mana.', i * 1000);
    expect(n.list.map(noticeText)).toEqual(['Not enough mana. ×5']);
    n.prune(4000 + NOTICE_MS - 1);
    expect(n.list).toHaveLength(1);
    n.prune(4000 + NOTICE_MS + 1);
    expect(n.list).toHaveLength(0);
  });

  it('moves a repeated message to the newest place and keeps at most a few lines', () => {
    const n = new Notices();
    n.add('a', 0);
    n.add('b', 1);
    n.add('a', 2);
    expect(n.list.map(noticeText)).toEqual(['b', 'a ×2']);
    for (let i = 0; i < 10; i++) n.add(`m${i}`, 3 + i);
    expect(n.list).toHaveLength(NOTICES_SHOWN);
    expect(noticeText(n.list.at(-1)!)).toBe('m9');
  });

  it('settles: takes back the stale lines and says the new one', () => {
    const n = new Notices();
    n.add('Connection lost. Reconnecting…', 0);
    n.add('Reconnecting (attempt 2 of 6)…', 1);
    n.add('Your target is too far away.', 2);
    n.settle((t) => t.includes('Reconnect') || t.startsWith('Connection lost'), 'Reconnected.', 3);
    expect(n.list.map(noticeText)).toEqual(['Your target is too far away.', 'Reconnected.']);
  });

  it('are what the world says for refused casts, merged', () => {
    const w = new ClientWorld({ now: () => 0 });
    for (let i = 0; i < 5; i++) {
      w.apply({ name: 'SpellFailed', value: { casterId: 0, spellId: 1, reason: 'lineOfSight' } }, i);
    }
    // No own character yet: nothing said.
    expect(w.notices).toHaveLength(0);
    for (let i = 0; i < 5; i++) w.notice('Your target is out of sight.', i);
    expect(w.notices.map(noticeText)).toEqual(['Your target is out of sight. ×5']);
  });
});

const line = (over: Partial<ChatLine>): ChatLine => ({
  channel: 'say',
  fromId: 7,
  from: 'Bran',
  to: '',
  text: 'hi',
  at: 0,
  time: 0,
  ...over,
});

describe('chat history', () => {
  it(`keeps the newest ${CHAT_HISTORY} lines (at least 200)`, () => {
    expect(CHAT_HISTORY).toBeGreaterThanOrEqual(200);
    const log = new ChatLog();
    for (let i = 0; i < CHAT_HISTORY + 30; i++) log.add(line({ text: `line ${i}` }), 1);
    expect(log.lines).toHaveLength(CHAT_HISTORY);
    expect(log.lines[0]!.text).toBe('line 30');
    expect(log.lines.at(-1)!.text).toBe(`line ${CHAT_HISTORY + 29}`);
  });

  it('stamps each line with the wall-clock time it arrived, shown as HH:MM', () => {
    let wall = new Date(2024, 0, 1, 9, 5, 30).getTime();
    const w = new ClientWorld({ now: () => 0, wallClock: () => wall });
    const msg = { channel: 'say' as const, fromId: 7, from: 'Bran', to: '', text: 'hello' };
    w.apply({ name: 'ChatMessage', value: msg }, 10);
    wall = new Date(2024, 0, 1, 23, 59).getTime();
    w.apply({ name: 'ChatMessage', value: { ...msg, text: 'late' } }, 20);
    expect(w.chat.map((c) => chatTime(c.time))).toEqual(['09:05', '23:59']);
  });

  it('remembers who whispered last, not the own echo', () => {
    const log = new ChatLog();
    log.add(line({ channel: 'whisper', fromId: 7, from: 'Bran', to: 'Ayla' }), 1);
    log.add(line({ channel: 'whisper', fromId: 1, from: 'Ayla', to: 'Cora' }), 1);
    log.add(line({ channel: 'say', fromId: 9, from: 'Dax' }), 1);
    expect(log.replyTo).toBe('Bran');
    log.add(line({ channel: 'whisper', fromId: 9, from: 'Dax', to: 'Ayla' }), 1);
    expect(log.replyTo).toBe('Dax');
  });
});

/** A localStorage stand-in that outlives the Prefs object, as the page's outlives a reload. */
class MemoryStore implements KeyValueStore {
  readonly data = new Map<string, string>();
  getItem(k: string) {
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.data.set(k, v);
  }
}

describe('remembered choices', () => {
  it('keeps mute across a reload', () => {
    const store = new MemoryStore();
    expect(new Prefs(store).muted).toBe(false);
    new Prefs(store).muted = true;
    expect(new Prefs(store).muted).toBe(true);
    new Prefs(store).muted = false;
    expect(new Prefs(store).muted).toBe(false);
  });

  it('remembers that the controls were seen', () => {
    const store = new MemoryStore();
    const first = new Prefs(store);
    expect(first.seenControls).toBe(false);
    first.seenControls = true;
    expect(new Prefs(store).seenControls).toBe(true);
  });

  it('lasts the visit when the store refuses', () => {
    const refusing: KeyValueStore = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    const p = new Prefs(refusing);
    p.muted = true;
    expect(p.muted).toBe(true);
  });
});

describe('sound cues', () => {
  const self = 1;
  it('plays cast for the own spell leaving, not for another caster', () => {
    const go = { casterId: self, spellId: 1, targetId: 9, travelTime: 100 };
    expect(cueForPacket({ name: 'SpellGo', value: go }, self)).toBe('cast');
    expect(cueForPacket({ name: 'SpellGo', value: { ...go, casterId: 2 } }, self)).toBeUndefined();
  });

  it('plays hit for damage on the player or from the player, not between others or for heals', () => {
    const hit = { sourceId: 9, targetId: self, spellId: 0, kind: 'damage' as const, amount: 5, crit: false };
    expect(cueForPacket({ name: 'CombatEvent', value: hit }, self)).toBe('hit');
    expect(cueForPacket({ name: 'CombatEvent', value: { ...hit, sourceId: self, targetId: 9 } }, self)).toBe(
      'hit',
    );
    expect(cueForPacket({ name: 'CombatEvent', value: { ...hit, targetId: 8 } }, self)).toBeUndefined();
    expect(cueForPacket({ name: 'CombatEvent', value: { ...hit, kind: 'heal' } }, self)).toBeUndefined();
  });

  it('plays whisper for a whisper heard, not for the own echo', () => {
    const w = { channel: 'whisper' as const, fromId: 7, from: 'Bran', to: 'Ayla', text: 'hi' };
    expect(cueForPacket({ name: 'ChatMessage', value: w }, self)).toBe('whisper');
    expect(cueForPacket({ name: 'ChatMessage', value: { ...w, fromId: self } }, self)).toBeUndefined();
    expect(cueForPacket({ name: 'ChatMessage', value: { ...w, channel: 'say' } }, self)).toBeUndefined();
  });

  it('plays death for the own death and for a kill', () => {
    const cues = new ChangeCues();
    const entity = (id: number) => ({ id, level: 1 }) as never;
    const change = (c: unknown) => cues.cue(c as WorldChange, self);
    expect(change({ type: 'death', entity: entity(self), killerId: 50 })).toBe('death');
    expect(change({ type: 'death', entity: entity(50), killerId: self })).toBe('death');
    expect(change({ type: 'death', entity: entity(50), killerId: 2 })).toBeUndefined();
  });

  it('plays levelUp when the own level rises, not for the level entered with', () => {
    const cues = new ChangeCues();
    expect(cues.cue({ type: 'enter', entity: { id: self, level: 3 } } as never, self)).toBeUndefined();
    expect(cues.levelNow(3)).toBeUndefined();
    expect(cues.levelNow(4)).toBe('levelUp');
    expect(cues.levelNow(4)).toBeUndefined();
    // Back from a reload at level 4: no fanfare.
    cues.cue({ type: 'reset' } as never, self);
    expect(cues.levelNow(4)).toBeUndefined();
    expect(cues.levelNow(5)).toBe('levelUp');
  });

  it('makes one sound of the same cue repeated within a few frames', () => {
    const gate = new CueGate();
    expect(gate.pass('hit', 0)).toBe(true);
    expect(gate.pass('hit', CUE_GAP_MS - 1)).toBe(false);
    expect(gate.pass('cast', 10)).toBe(true);
    expect(gate.pass('hit', CUE_GAP_MS + 1)).toBe(true);
  });
});
