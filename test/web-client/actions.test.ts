/**
 * The page's actions on a world fed by real packets through the page's client: what a cast
 * and a chat line send, and what they say instead when they cannot.
 */
import { describe, expect, it } from 'vitest';
import type { WhoListPayload } from '../../shared/client/client.js';
import { WyvernError } from '../../shared/client/errors.js';
import { ChatMessage, EnterWorld, SpellBook, WorldUpdate, ZoneInfo } from '../../shared/protocol/index.js';
import { Actions } from '../../web-client/src/app/actions.js';
import { enterWorld, fireball, heal, moveRecord, spawnRecord } from '../client/fake-server.js';
import { openPage, type Page } from './page.js';

const SELF = 1;
const WOLF = 900;
const BOB = 2;

/** A page in the world as Ayla (knowing Fireball and Heal), a wolf and Bob in view. */
function inWorld(): Page {
  const page = openPage();
  page.feed(0, (w) => {
    ZoneInfo.write(w, {
      zone: 'meadow',
      x: 0,
      y: 0,
      width: 1000,
      height: 1000,
      obstacles: [],
      neighbours: [],
      cellSize: 100,
      respawnDelay: 500,
    });
    SpellBook.write(w, { spells: [fireball, heal] });
    EnterWorld.write(w, enterWorld({ entityId: SELF }));
    WorldUpdate.write(w, {
      tick: 1,
      time: 0,
      records: [
        spawnRecord({ id: WOLF }),
        moveRecord(WOLF, 150, 100),
        spawnRecord({ id: BOB, entity: 'player', name: 'Bob' }),
        moveRecord(BOB, 120, 100),
      ],
    });
  });
  expect(page.world.self?.id).toBe(SELF);
  expect(page.world.entities.has(WOLF)).toBe(true);
  return page;
}

function actionsOn(page: Page, who: () => Promise<WhoListPayload> | undefined = () => undefined) {
  return new Actions({ world: page.world, client: () => page.client, who, now: () => page.now });
}

const notices = (page: Page) => page.world.notices.map((n) => n.text);
const sent = (page: Page) => page.sent.filter((s) => s.name !== 'Ping');

describe('casting from an action slot', () => {
  it('casts at the target and rings the slot used', () => {
    const page = inWorld();
    page.world.targetId = WOLF;
    actionsOn(page).cast(0);
    expect(sent(page)).toEqual([{ name: 'CastSpell', payload: { spellId: fireball.id, targetId: WOLF } }]);
    expect(page.world.selectedSlot).toBe(0);
  });

  it('says to pick a target first when none is selected, and sends nothing', () => {
    const page = inWorld();
    actionsOn(page).cast(0);
    expect(sent(page)).toEqual([]);
    expect(notices(page)).toEqual(['Select a target first (click it or press Tab).']);
  });

  it('heals the player targeted, or oneself when a mob or nothing is', () => {
    const page = inWorld();
    const actions = actionsOn(page);
    page.world.targetId = BOB;
    actions.cast(1);
    page.world.targetId = WOLF;
    actions.cast(1);
    page.world.targetId = undefined;
    actions.cast(1);
    expect(sent(page).map((s) => s.payload)).toEqual([
      { spellId: heal.id, targetId: BOB },
      { spellId: heal.id, targetId: SELF },
      { spellId: heal.id, targetId: SELF },
    ]);
  });

  it('does nothing for an empty slot', () => {
    const page = inWorld();
    page.world.targetId = WOLF;
    actionsOn(page).cast(4);
    expect(sent(page)).toEqual([]);
    expect(notices(page)).toEqual([]);
  });
});

describe('a chat line', () => {
  it('is said, said to the zone, whispered, or whispered back as the shared parser reads it', () => {
    const page = inWorld();
    const actions = actionsOn(page);
    actions.chat('hello there');
    actions.chat('/z anyone selling wolf pelts?');
    actions.chat('/w Bob meet at the bridge');
    page.feed(10, (w) =>
      ChatMessage.write(w, { channel: 'whisper', fromId: BOB, from: 'Bob', to: 'Ayla', text: 'on my way' }),
    );
    actions.chat('/r thanks');
    actions.chat('   ');
    expect(sent(page)).toEqual([
      { name: 'ChatSend', payload: { channel: 'say', text: 'hello there' } },
      { name: 'ChatSend', payload: { channel: 'zone', text: 'anyone selling wolf pelts?' } },
      { name: 'Whisper', payload: { to: 'Bob', text: 'meet at the bridge' } },
      { name: 'Whisper', payload: { to: 'Bob', text: 'thanks' } },
    ]);
  });

  it('read once by the chat box goes as it was read', () => {
    const page = inWorld();
    actionsOn(page).command({ kind: 'whisper', to: 'Bob', text: 'read once' });
    expect(sent(page)).toEqual([{ name: 'Whisper', payload: { to: 'Bob', text: 'read once' } }]);
  });

  it('that is wrong is not sent: the notice says why', () => {
    const page = inWorld();
    const actions = actionsOn(page);
    actions.chat('/dance');
    actions.chat('/r hi');
    expect(sent(page)).toEqual([]);
    expect(notices(page)).toEqual([
      'Unknown command /dance. Try /z, /w name, /r or /who.',
      'Nobody has whispered to you yet: /w name message.',
    ]);
  });

  it('/who shows the online list as a system line', async () => {
    const page = inWorld();
    const list: WhoListPayload = {
      total: 2,
      players: [
        { name: 'Ayla', level: 1, zone: 'meadow' },
        { name: 'Bob', level: 4, zone: 'ashmoor' },
      ],
    };
    actionsOn(page, () => Promise.resolve(list)).chat('/who');
    await Promise.resolve();
    expect(page.world.chat.map((c) => [c.channel, c.text])).toEqual([
      ['system', '2 online: Ayla (1, meadow), Bob (4, ashmoor)'],
    ]);
  });

  it('/who says when there is nobody to ask (the demo), or why the server did not answer', async () => {
    const page = inWorld();
    actionsOn(page).chat('/who');
    const failed = Promise.reject(new WyvernError('ERR_RATE_LIMITED', '', false));
    actionsOn(page, () => failed).chat('/who');
    await failed.catch(() => undefined);
    await Promise.resolve();
    expect(notices(page)).toEqual([
      'Nobody else is online in the demo.',
      new WyvernError('ERR_RATE_LIMITED', '', false).message,
    ]);
  });
});

describe('targets', () => {
  it('picks the entity clicked on, none on empty ground, and drops the target', () => {
    const page = inWorld();
    const actions = actionsOn(page);
    actions.pick(152, 101);
    expect(page.world.targetId).toBe(WOLF);
    actions.pick(600, 600);
    expect(page.world.targetId).toBeUndefined();
    page.world.targetId = WOLF;
    actions.clearTarget();
    expect(page.world.targetId).toBeUndefined();
  });
});
