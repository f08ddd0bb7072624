/**
 * The page's keys and pointer, turned into actions (state/input.ts says what each key does).
 * Keys act only in the world and not while typing in a text field (a focused checkbox or
 * slider of the netcode panel is no reason to stop walking); F3 is taken on every screen. The
 * walking keys are held: the frame loop reads their direction each frame, and a key released
 * outside the page (the window loses the focus) stops the walk.
 */
import { isTextEntry, keyAction, movementFromKeys } from '../state/input.js';
import type { Actions } from './actions.js';

/** The parts of a key event the controls read. */
export type KeyInput = Pick<KeyboardEvent, 'code' | 'key' | 'target' | 'preventDefault'>;

export interface ControlSide {
  actions: Pick<Actions, 'cast' | 'nextTarget' | 'clearTarget' | 'pick'>;
  /** How many action slots have keys (1 to N). */
  slots: number;
  inWorld(): boolean;
  /** The guide's own keys (H, ?, M, Esc over its overlay): true when it took the key. */
  guideKey(e: KeyInput): boolean;
  togglePanel(): void;
  focusChat(): void;
  /** Whether the chat box has the focus (then the walking keys type). */
  chatFocused(): boolean;
  /** Canvas pixels to world units. */
  toWorld(x: number, y: number): { x: number; y: number };
}

export class Controls {
  private readonly held = new Set<string>();

  constructor(private readonly side: ControlSide) {}

  /** Listens to the keys on `keys` (the window) and to clicks on `pointer` (the canvas). */
  bind(keys: EventTarget, pointer: EventTarget): void {
    keys.addEventListener('keydown', (e) => this.keyDown(e as KeyboardEvent));
    keys.addEventListener('keyup', (e) => this.keyUp(e as KeyboardEvent));
    keys.addEventListener('blur', () => this.blur());
    pointer.addEventListener('pointerdown', (e) => this.pointerDown(e as PointerEvent));
  }

  /** Where the held keys walk (undefined while the chat box has the focus). */
  direction(): { x: number; y: number } | undefined {
    return this.side.chatFocused() ? undefined : movementFromKeys(this.held);
  }

  keyDown(e: KeyInput): void {
    const { side } = this;
    const action = keyAction(e.code, e.key, side.slots);
    if (action?.kind === 'panel') {
      e.preventDefault();
      if (side.inWorld()) side.togglePanel();
      return;
    }
    if (!side.inWorld() || typing(e) || side.guideKey(e) || !action) return;
    switch (action.kind) {
      case 'move':
        this.held.add(e.code);
        // Also keeps the arrows from moving a focused slider.
        e.preventDefault();
        break;
      case 'nextTarget':
        e.preventDefault();
        side.actions.nextTarget();
        break;
      case 'cast':
        side.actions.cast(action.slot);
        break;
      case 'chat':
        e.preventDefault();
        side.focusChat();
        break;
      case 'clearTarget':
        side.actions.clearTarget();
        break;
    }
  }

  keyUp(e: Pick<KeyboardEvent, 'code'>): void {
    this.held.delete(e.code);
  }

  /** The window lost the focus: its key-ups will not come. */
  blur(): void {
    this.held.clear();
  }

  pointerDown(e: Pick<PointerEvent, 'offsetX' | 'offsetY'>): void {
    if (!this.side.inWorld()) return;
    const p = this.side.toWorld(e.offsetX, e.offsetY);
    this.side.actions.pick(p.x, p.y);
  }
}

/** Keys pressed in a text field type; anywhere else they play. */
function typing(e: KeyInput): boolean {
  return isTextEntry(e.target as HTMLInputElement | null);
}
