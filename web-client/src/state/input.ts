/** Keys to a movement direction: WASD and the arrows, screen axes (y grows downward). */

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
