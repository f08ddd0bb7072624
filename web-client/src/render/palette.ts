/**
 * Entity colours, shared by the Pixi scene, the minimap and the character screen's swatches.
 * No Pixi here, so the DOM screens and node tests can use it.
 */

/** A player's body colour by appearance (the character screen's choice). */
export const PLAYER_COLOURS = [
  0x4aa3ff, 0x7fdc6b, 0xf2c14e, 0xc77dff, 0x4ee6d6, 0xff8fab, 0xffffff, 0xa0a0ff,
];
export const MOB_COLOURS = [0xd9534f, 0xe07b39, 0xb5651d, 0x9c3d54];
/** Marks the player's own character (a ring round its body, its minimap dot), never its body. */
export const SELF_MARK = 0x3dd6ff;

export interface BodyStyle {
  fill: number;
  /** A ring round the body, or undefined for none. */
  ring: number | undefined;
}

/** How a living entity's body is drawn: its own colour always, a ring when it is yours. */
export function bodyStyle(
  e: { kind: 'player' | 'mob'; appearance: number; template: number },
  isSelf: boolean,
): BodyStyle {
  const palette = e.kind === 'mob' ? MOB_COLOURS : PLAYER_COLOURS;
  const index = e.kind === 'mob' ? e.template : e.appearance;
  return {
    fill: palette[index % palette.length] ?? 0xffffff,
    ring: isSelf ? SELF_MARK : undefined,
  };
}

export function cssColour(c: number): string {
  return `#${c.toString(16).padStart(6, '0')}`;
}
