/** Chat and presence, 0x05xx. */
import { t } from '../codec/index.js';
import { characterName, entityId, zoneName } from './common.js';
import { definePacket } from './define.js';

export const MAX_CHAT_BYTES = 255;
const chatText = t.string(MAX_CHAT_BYTES);

export const ChatChannel = ['say', 'zone', 'whisper', 'system'] as const;
export type ChatChannel = (typeof ChatChannel)[number];

export const ChatSend = definePacket({
  opcode: 0x0501,
  name: 'ChatSend',
  dir: 'c2s',
  target: 'zone',
  states: ['inWorld'],
  rate: 'chat',
  doc: 'Say (heard within say range) or zone (heard in the whole zone).',
  fields: { channel: t.enumOf(['say', 'zone'] as const), text: chatText },
});

export const Whisper = definePacket({
  opcode: 0x0502,
  name: 'Whisper',
  dir: 'c2s',
  target: 'world',
  states: ['inWorld'],
  rate: 'chat',
  doc: 'A private message to a character by name, in any zone (ERR_NO_SUCH_PLAYER when offline).',
  fields: { to: characterName, text: chatText },
});

export const ChatMessage = definePacket({
  opcode: 0x0503,
  name: 'ChatMessage',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'A line of chat; fromId 0 and from "" for system messages; to is set on whispers.',
  fields: {
    channel: t.enumOf(ChatChannel),
    fromId: entityId,
    from: characterName,
    to: characterName,
    text: chatText,
  },
});

export const Who = definePacket({
  opcode: 0x0504,
  name: 'Who',
  dir: 'c2s',
  target: 'world',
  states: ['inWorld'],
  rate: 'chat',
  doc: 'Ask who is online.',
  fields: {},
});

export const WhoList = definePacket({
  opcode: 0x0505,
  name: 'WhoList',
  dir: 's2c',
  delivery: 'reliable',
  doc: 'Players online (the first 200) and the total.',
  fields: {
    total: t.u32,
    players: t.list(t.struct({ name: characterName, level: t.u8, zone: zoneName }), 200),
  },
});
