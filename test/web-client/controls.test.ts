/**
 * The page's keys and pointer: what each key does, where it does nothing (out of the world,
 * typing in a text field, a key the guide takes), which keys the page keeps from the browser,
 * and the held walking keys' direction.
 */
import { describe, expect, it } from 'vitest';
import { Controls, type ControlSide, type KeyInput } from '../../web-client/src/app/controls.js';

/** Controls over a side that records what they asked for. */
function controls(over: Partial<ControlSide> = {}) {
  const did: string[] = [];
  const state = { inWorld: true, chatFocused: false };
  const side: ControlSide = {
    actions: {
      cast: (slot) => did.push(`cast ${slot}`),
      nextTarget: () => did.push('next target'),
      clearTarget: () => did.push('clear target'),
      pick: (x, y) => did.push(`pick ${x},${y}`),
    },
    slots: 5,
    inWorld: () => state.inWorld,
    guideKey: () => false,
    togglePanel: () => did.push('panel'),
    focusChat: () => did.push('focus chat'),
    chatFocused: () => state.chatFocused,
    toWorld: (x, y) => ({ x: x * 2, y: y * 2 }),
    ...over,
  };
  return { c: new Controls(side), did, state };
}

/** A key press; `kept` tells whether the page kept it from the browser (preventDefault). */
function key(code: string, keyName = code, target: unknown = null): KeyInput & { kept: boolean } {
  const e = {
    code,
    key: keyName,
    target: target as EventTarget | null,
    kept: false,
    preventDefault: () => {
      e.kept = true;
    },
  };
  return e;
}

describe('controls', () => {
  it('walk while the keys are held: opposite keys cancel, a released key stops its part', () => {
    const { c } = controls();
    const w = key('KeyW', 'w');
    c.keyDown(w);
    c.keyDown(key('KeyD', 'd'));
    expect(c.direction()).toEqual({ x: 1, y: -1 });
    c.keyDown(key('KeyA', 'a'));
    expect(c.direction()).toEqual({ x: 0, y: -1 });
    c.keyUp({ code: 'KeyW' });
    expect(c.direction()).toEqual({ x: 0, y: 0 });
    expect(w.kept).toBe(true);
  });

  it('stop every walk when the window loses the focus (its key-ups will not come)', () => {
    const { c } = controls();
    c.keyDown(key('ArrowUp'));
    c.keyDown(key('ArrowRight'));
    c.blur();
    expect(c.direction()).toEqual({ x: 0, y: 0 });
  });

  it('do not walk while the chat box has the focus', () => {
    const { c, state } = controls();
    c.keyDown(key('KeyW', 'w'));
    state.chatFocused = true;
    expect(c.direction()).toBeUndefined();
  });

  it('cast, target, and focus the chat box; keep Tab and Enter from the browser, not the digits', () => {
    const { c, did } = controls();
    const presses = [
      key('Digit1', '1'),
      key('Digit3', '3'),
      key('Tab'),
      key('Enter'),
      key('Escape'),
      key('Digit9', '9'),
    ];
    for (const e of presses) c.keyDown(e);
    expect(did).toEqual(['cast 0', 'cast 2', 'next target', 'focus chat', 'clear target']);
    expect(presses.map((e) => e.kept)).toEqual([false, false, true, true, false, false]);
  });

  it('do nothing out of the world but keep F3, which opens the panel only in the world', () => {
    const { c, did, state } = controls();
    state.inWorld = false;
    const f3 = key('F3');
    for (const e of [key('KeyW', 'w'), key('Digit1', '1'), key('Tab'), f3]) c.keyDown(e);
    c.pointerDown({ offsetX: 10, offsetY: 20 });
    expect(c.direction()).toEqual({ x: 0, y: 0 });
    expect(did).toEqual([]);
    expect(f3.kept).toBe(true);
    state.inWorld = true;
    c.keyDown(key('F3'));
    expect(did).toEqual(['panel']);
  });

  it('leave keys typed in a text field to it, not those on a slider or checkbox of the panel', () => {
    const { c, did } = controls();
    c.keyDown(key('Digit1', '1', { tagName: 'INPUT', type: 'text' }));
    c.keyDown(key('KeyW', 'w', { tagName: 'INPUT', type: 'password' }));
    expect(did).toEqual([]);
    expect(c.direction()).toEqual({ x: 0, y: 0 });
    const arrow = key('ArrowRight', 'ArrowRight', { tagName: 'INPUT', type: 'range' });
    c.keyDown(arrow);
    expect(c.direction()).toEqual({ x: 1, y: 0 });
    expect(arrow.kept).toBe(true);
  });

  it('give the guide its keys first: Esc closes its overlay rather than dropping the target', () => {
    let open = true;
    const { c, did } = controls({ guideKey: (e) => open && e.key === 'Escape' });
    c.keyDown(key('Escape'));
    expect(did).toEqual([]);
    open = false;
    c.keyDown(key('Escape'));
    expect(did).toEqual(['clear target']);
  });

  it('pick the entity under a click, in world units', () => {
    const { c, did } = controls();
    c.pointerDown({ offsetX: 10, offsetY: 20 });
    expect(did).toEqual(['pick 20,40']);
  });
});
