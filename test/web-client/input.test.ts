import { describe, expect, it } from 'vitest';
import { isMovementKey, isTextEntry, movementFromKeys } from '../../web-client/src/state/input.js';

describe('movement keys', () => {
  it('adds WASD and arrows, opposite keys cancel', () => {
    expect(movementFromKeys(new Set(['KeyW', 'KeyD']))).toEqual({ x: 1, y: -1 });
    expect(movementFromKeys(new Set(['ArrowLeft', 'ArrowRight']))).toEqual({ x: 0, y: 0 });
    expect(isMovementKey('KeyS')).toBe(true);
    expect(isMovementKey('KeyQ')).toBe(false);
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
