import { describe, expect, it } from 'vitest';
import { parseChat } from '../../web-client/src/state/chat-command.js';
import { isMovementKey, movementFromKeys } from '../../web-client/src/state/input.js';

describe('chat box commands', () => {
  it('says plain text', () => expect(parseChat(' hello ')).toEqual({ kind: 'say', text: 'hello' }));
  it('sends /z to the zone', () =>
    expect(parseChat('/z lfg wolves')).toEqual({ kind: 'zone', text: 'lfg wolves' }));
  it('whispers with /w name text', () =>
    expect(parseChat('/w Borin meet at the bridge')).toEqual({
      kind: 'whisper',
      to: 'Borin',
      text: 'meet at the bridge',
    }));
  it('asks for a name after /w', () => expect(parseChat('/w Borin').kind).toBe('error'));
  it('knows /who', () => expect(parseChat('/who')).toEqual({ kind: 'who' }));
  it('refuses unknown commands in words', () => {
    const c = parseChat('/dance');
    expect(c.kind).toBe('error');
    expect(c.kind === 'error' && c.message).toContain('/dance');
  });
  it('refuses a message over 255 bytes', () => expect(parseChat('é'.repeat(200)).kind).toBe('error'));
  it('ignores empty lines', () => expect(parseChat('   ').kind).toBe('none'));
});

describe('movement keys', () => {
  it('adds WASD and arrows, opposite keys cancel', () => {
    expect(movementFromKeys(new Set(['KeyW', 'KeyD']))).toEqual({ x: 1, y: -1 });
    expect(movementFromKeys(new Set(['ArrowLeft', 'ArrowRight']))).toEqual({ x: 0, y: 0 });
    expect(isMovementKey('KeyS')).toBe(true);
    expect(isMovementKey('KeyQ')).toBe(false);
  });
});
