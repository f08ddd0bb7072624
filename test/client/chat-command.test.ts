/**
 * The chat grammar every client types in (shared/client/chat-command.ts): the browser's chat
 * box and the terminal client read a line the same way.
 */
import { describe, expect, it } from 'vitest';
import {
  chatBytesLeft,
  isChatCommand,
  parseChat,
  utf8Bytes,
  whisperedBy,
} from '../../shared/client/chat-command.js';
import { MAX_CHAT_BYTES } from '../../shared/protocol/chat.js';

describe('chat commands', () => {
  it('says plain text', () => expect(parseChat(' hello ')).toEqual({ kind: 'say', text: 'hello' }));
  it('says with /s and /say too', () => {
    expect(parseChat('/s hi')).toEqual({ kind: 'say', text: 'hi' });
    expect(parseChat('/SAY hi there')).toEqual({ kind: 'say', text: 'hi there' });
  });
  it('sends /z to the zone', () =>
    expect(parseChat('/z lfg wolves')).toEqual({ kind: 'zone', text: 'lfg wolves' }));
  it('whispers with /w name text (or /whisper, /tell)', () => {
    expect(parseChat('/w Borin meet at the bridge')).toEqual({
      kind: 'whisper',
      to: 'Borin',
      text: 'meet at the bridge',
    });
    expect(parseChat('/whisper Borin  hi ')).toEqual({ kind: 'whisper', to: 'Borin', text: 'hi' });
    expect(parseChat('/tell Borin hi')).toMatchObject({ kind: 'whisper', to: 'Borin' });
  });
  it('asks for a name and a message after /w', () => {
    expect(parseChat('/w Borin')).toEqual({ kind: 'error', message: 'Whisper with /w name message.' });
    expect(parseChat('/w').kind).toBe('error');
  });
  it('says why a /say or /z with nothing after it was not sent, in the words typed', () => {
    expect(parseChat('/say   ')).toEqual({
      kind: 'error',
      message: 'Nothing sent: /say needs something to say (/say TEXT).',
    });
    expect(parseChat('/z')).toEqual({
      kind: 'error',
      message: 'Nothing sent: /z needs something to say (/z TEXT).',
    });
  });
  it('knows /who', () => expect(parseChat('/who')).toEqual({ kind: 'who' }));
  it('refuses unknown commands in words', () => {
    const c = parseChat('/dance');
    expect(c.kind).toBe('error');
    expect(c.kind === 'error' && c.message).toContain('/dance');
  });
  it('refuses a message over 255 bytes', () => expect(parseChat('é'.repeat(200)).kind).toBe('error'));
  it('ignores empty lines', () => expect(parseChat('   ').kind).toBe('none'));
  it('tells a command from plain text', () => {
    expect(isChatCommand('  /w Bo hi')).toBe(true);
    expect(isChatCommand('move 10 10')).toBe(false);
  });
});

describe('/r replies to the last whisper', () => {
  it('whispers back to whoever whispered last', () =>
    expect(parseChat('/r on my way', { replyTo: 'Bran' })).toEqual({
      kind: 'whisper',
      to: 'Bran',
      text: 'on my way',
    }));
  it('knows /reply too', () =>
    expect(parseChat('/reply ok', { replyTo: 'Bran' })).toMatchObject({ kind: 'whisper', to: 'Bran' }));
  it('says so when nobody has whispered yet', () => {
    const c = parseChat('/r hello');
    expect(c).toEqual({ kind: 'error', message: 'Nobody has whispered to you yet: /w name message.' });
  });
  it('asks for a message', () =>
    expect(parseChat('/r', { replyTo: 'Bran' })).toEqual({
      kind: 'error',
      message: 'Reply to Bran with /r message.',
    }));
  it('checks the length like any message', () =>
    expect(parseChat(`/r ${'é'.repeat(200)}`, { replyTo: 'Bran' }).kind).toBe('error'));
  it('answers a whisper from someone else, not the echo of one of our own, nor other channels', () => {
    const self = 1;
    expect(whisperedBy({ channel: 'whisper', fromId: 7, from: 'Bran' }, self)).toBe('Bran');
    expect(whisperedBy({ channel: 'whisper', fromId: self, from: 'Ayla' }, self)).toBeUndefined();
    expect(whisperedBy({ channel: 'say', fromId: 7, from: 'Bran' }, self)).toBeUndefined();
    expect(whisperedBy({ channel: 'whisper', fromId: 0, from: '' }, self)).toBeUndefined();
  });
});

describe('chat length in bytes', () => {
  it('counts UTF-8 bytes, not characters', () => {
    expect(utf8Bytes('abc')).toBe(3);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('€')).toBe(3);
    expect(utf8Bytes('🐉')).toBe(4);
  });

  it('counts only the message: the whisper address and the command are free', () => {
    expect(chatBytesLeft('hello')).toBe(MAX_CHAT_BYTES - 5);
    expect(chatBytesLeft('/w Borin héllo')).toBe(MAX_CHAT_BYTES - 6);
    expect(chatBytesLeft('/r héllo')).toBe(MAX_CHAT_BYTES - 6);
    expect(chatBytesLeft('/z ')).toBe(MAX_CHAT_BYTES);
  });

  it('goes negative for 203 × é (406 bytes in 203 characters), and says so in bytes', () => {
    const line = 'é'.repeat(203);
    expect(line.length).toBeLessThan(MAX_CHAT_BYTES);
    expect(chatBytesLeft(line)).toBe(MAX_CHAT_BYTES - 406);
    const c = parseChat(line);
    expect(c.kind === 'error' && c.message).toMatch(/406 bytes, at most 255/);
  });

  it('takes exactly 255 bytes', () => {
    expect(parseChat('é'.repeat(127) + 'a').kind).toBe('say');
    expect(chatBytesLeft('é'.repeat(127) + 'a')).toBe(0);
  });
});
