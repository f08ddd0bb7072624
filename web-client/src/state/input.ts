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
