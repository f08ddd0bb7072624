/**
 * Where the name plates go when bodies crowd (no Pixi here: the renderer measures, this
 * decides). A plate sits above its body, or one plate higher when that spot is taken, never
 * further: a plate far from its body names nobody. A plate with no free spot is hidden; when
 * the plate in its way names the same kind of thing ("Ridge Boar"), that one counts it
 * instead ("Ridge Boar 5 ×3"), so a pack reads as a pack. Plates are placed in rank order
 * (the caller's: the own character, the target, players, the living, the dead), so the ones
 * that matter keep their spot.
 */
export interface PlateBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Plate {
  id: number;
  /** The plate's bottom centre at its home spot, in screen pixels. */
  x: number;
  y: number;
  /** What merges with what (the name), and the level shown beside it. */
  name: string;
  level: number;
  /** Lower goes first. */
  rank: number;
}

export interface PlacedPlate {
  id: number;
  visible: boolean;
  text: string;
  /** The plate's box (meaningless when hidden). */
  box: PlateBox;
  /** How far above its home spot it sits (0 or one plate's height and a pixel). */
  lift: number;
}

export type Measure = (text: string) => { w: number; h: number };

function overlaps(a: PlateBox, b: PlateBox): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

export function plateText(name: string, levels: readonly number[]): string {
  const lo = Math.min(...levels);
  const hi = Math.max(...levels);
  const level = lo === hi ? `${lo}` : `${lo}–${hi}`;
  return levels.length > 1 ? `${name}  ${level} ×${levels.length}` : `${name}  ${level}`;
}

export function layoutPlates(plates: readonly Plate[], measure: Measure): PlacedPlate[] {
  const order = [...plates].sort((a, b) => a.rank - b.rank || b.y - a.y || a.id - b.id);
  const shown: { placed: PlacedPlate; name: string; levels: number[]; x: number; y: number }[] = [];
  const out = new Map<number, PlacedPlate>();
  const boxAt = (x: number, bottom: number, size: { w: number; h: number }): PlateBox => ({
    x: x - size.w / 2,
    y: bottom - size.h,
    w: size.w,
    h: size.h,
  });
  const free = (box: PlateBox, except?: PlacedPlate) =>
    shown.every((s) => s.placed === except || !overlaps(box, s.placed.box));
  for (const p of order) {
    const text = plateText(p.name, [p.level]);
    const size = measure(text);
    const home = boxAt(p.x, p.y, size);
    const lifted = boxAt(p.x, p.y - size.h - 1, size);
    const spot = free(home) ? home : free(lifted) ? lifted : undefined;
    if (spot) {
      const placed = { id: p.id, visible: true, text, box: spot, lift: p.y - (spot.y + spot.h) };
      shown.push({ placed, name: p.name, levels: [p.level], x: p.x, y: p.y });
      out.set(p.id, placed);
      continue;
    }
    out.set(p.id, { id: p.id, visible: false, text, box: home, lift: 0 });
    // The same kind in the way counts this one, if its longer plate still fits where it is.
    const same = shown.find((s) => s.name === p.name && overlaps(home, s.placed.box));
    if (!same) continue;
    const levels = [...same.levels, p.level];
    const merged = plateText(p.name, levels);
    const grown = measure(merged);
    const box = boxAt(same.x, same.placed.box.y + same.placed.box.h, grown);
    if (!free(box, same.placed)) continue;
    same.levels = levels;
    same.placed.text = merged;
    same.placed.box = box;
  }
  return plates.map((p) => out.get(p.id)!);
}
