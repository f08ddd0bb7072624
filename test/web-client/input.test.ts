import { describe, expect, it } from 'vitest';
import { isMovementKey, isTextEntry, keyAction, movementFromKeys } from '../../web-client/src/state/input.js';

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

describe('keyAction: what a key does in the world', () => {
  it('casts slots 1 to N by the digit keys, and no slot past N', () => {
    expect(keyAction('Digit1', '1', 5)).toEqual({ kind: 'cast', slot: 0 });
    expect(keyAction('Digit5', '5', 5)).toEqual({ kind: 'cast', slot: 4 });
    expect(keyAction('Digit6', '6', 5)).toBeUndefined();
    expect(keyAction('Digit0', '0', 5)).toBeUndefined();
    expect(keyAction('Numpad1', '1', 5)).toBeUndefined();
  });

  it('walks by the place of WASD and the arrows, whatever the layout calls them', () => {
    expect(keyAction('KeyW', 'z', 5)).toEqual({ kind: 'move' });
    expect(keyAction('ArrowLeft', 'ArrowLeft', 5)).toEqual({ kind: 'move' });
    expect(keyAction('KeyQ', 'a', 5)).toBeUndefined();
  });

  it('Tab for the next target, Enter for the chat box, Esc to drop the target, F3 for the panel', () => {
    expect(keyAction('Tab', 'Tab', 5)).toEqual({ kind: 'nextTarget' });
    expect(keyAction('Enter', 'Enter', 5)).toEqual({ kind: 'chat' });
    expect(keyAction('NumpadEnter', 'Enter', 5)).toEqual({ kind: 'chat' });
    expect(keyAction('Escape', 'Escape', 5)).toEqual({ kind: 'clearTarget' });
    expect(keyAction('F3', 'F3', 5)).toEqual({ kind: 'panel' });
  });

  it('leaves the guide’s keys (H, ?, M) to the guide', () => {
    expect(keyAction('KeyH', 'h', 5)).toBeUndefined();
    expect(keyAction('Slash', '?', 5)).toBeUndefined();
    expect(keyAction('KeyM', 'm', 5)).toBeUndefined();
  });
});
