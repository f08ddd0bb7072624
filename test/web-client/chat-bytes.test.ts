import { describe, expect, it } from 'vitest';
import { MAX_CHAT_BYTES } from '../../shared/protocol/chat.js';
import { chatBytesLeft, parseChat, utf8Bytes } from '../../web-client/src/state/chat-command.js';
import { isTextEntry } from '../../web-client/src/state/input.js';

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

describe('what counts as typing', () => {
  it('text fields do, the netcode panel checkboxes and sliders do not', () => {
    expect(isTextEntry({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT', type: 'password' })).toBe(true);
    expect(isTextEntry({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT', type: 'range' })).toBe(false);
    expect(isTextEntry({ tagName: 'INPUT', type: 'checkbox' })).toBe(false);
    expect(isTextEntry({ tagName: 'BUTTON' })).toBe(false);
    expect(isTextEntry(null)).toBe(false);
  });
});
