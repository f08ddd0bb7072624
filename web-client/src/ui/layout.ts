/**
 * The HUD's panels that cover the world, as boxes in page pixels: the renderer keeps the own
 * character and its target out from under them (render/framing.ts). Notices and the cast bar
 * come and go over the clear part and are not counted; the controls overlay covers all on purpose.
 */
export const COVERING = [
  '.self-frame',
  '.target-frame',
  '.menu',
  '.first-hint',
  '.net-panel',
  '.action-bar',
  '.chat',
] as const;

export function coveringBoxes(root: ParentNode): { x: number; y: number; w: number; h: number }[] {
  const out: { x: number; y: number; w: number; h: number }[] = [];
  for (const el of root.querySelectorAll(COVERING.join(','))) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    out.push({ x: r.x, y: r.y, w: r.width, h: r.height });
  }
  return out;
}
