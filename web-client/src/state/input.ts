/**
 * Keys to what they do in the world: a movement direction (WASD and the arrows, screen axes,
 * y grows downward), Tab for the next target, 1-N for the action slots, Enter for the chat box,
 * Esc to drop the target, F3 for the netcode panel. The guide's own keys (H, ?, M, and Esc
 * while its overlay is open) are the guide's (ui/guide.ts).
 */

const DIRECTIONS: Record<string, [number, number]> = {
  KeyW: [0, -1],
  ArrowUp: [0, -1],
  KeyS: [0, 1],
  ArrowDown: [0, 1],
  KeyA: [-1, 0],
  ArrowLeft: [-1, 0],
  KeyD: [1, 0],
  ArrowRight: [1, 0],
};

export function isMovementKey(code: string): boolean {
  return code in DIRECTIONS;
}

/** The sum of the held keys' directions (opposite keys cancel); not normalised. */
export function movementFromKeys(held: ReadonlySet<string>): { x: number; y: number } {
  let x = 0;
  let y = 0;
  for (const code of held) {
    const d = DIRECTIONS[code];
    if (d) {
      x += d[0];
      y += d[1];
    }
  }
  return { x: Math.sign(x), y: Math.sign(y) };
}

/** What a key pressed in the world does; undefined for a key that is not the game's. */
export type KeyAction =
  /** Held for walking (movementFromKeys reads the held set). */
  | { kind: 'move' }
  | { kind: 'nextTarget' }
  /** Casts the spell of action slot `slot` (0-based). */
  | { kind: 'cast'; slot: number }
  /** Focuses the chat box. */
  | { kind: 'chat' }
  | { kind: 'clearTarget' }
  /** Opens or closes the netcode panel (the key is taken on every screen). */
  | { kind: 'panel' };

/** What the key with `code` (its place) and `key` (its meaning) does, with `slots` action slots. */
export function keyAction(code: string, key: string, slots: number): KeyAction | undefined {
  if (code === 'F3') return { kind: 'panel' };
  if (isMovementKey(code)) return { kind: 'move' };
  if (key === 'Tab') return { kind: 'nextTarget' };
  const digit = /^Digit([1-9])$/.exec(code);
  if (digit && Number(digit[1]) <= slots) return { kind: 'cast', slot: Number(digit[1]) - 1 };
  if (key === 'Enter') return { kind: 'chat' };
  if (key === 'Escape') return { kind: 'clearTarget' };
  return undefined;
}

/** Input types that take typed text; the rest (checkbox, range, button, ...) leave keys to the game. */
const TEXT_TYPES = new Set(['text', 'password', 'search', 'email', 'url', 'tel', 'number']);

/**
 * Whether keys pressed in `el` are typing rather than commands: text fields (chat, log in),
 * text areas, editable content. A focused checkbox or slider of the netcode panel is not.
 */
export function isTextEntry(
  el: { tagName: string; type?: string; isContentEditable?: boolean } | null | undefined,
): boolean {
  if (!el) return false;
  if (el.tagName === 'TEXTAREA' || el.isContentEditable === true) return true;
  return el.tagName === 'INPUT' && TEXT_TYPES.has((el.type ?? 'text').toLowerCase());
}
