import { describe, expect, it } from 'vitest';
import { clearArea, frameCamera, MIN_ZOOM, type Rect } from '../../web-client/src/render/framing.js';
import { layoutPlates, plateText, type Plate } from '../../web-client/src/render/label-layout.js';

/** 7 px a character, 15 px high: close to 12 px system-ui. */
const measure = (text: string) => ({ w: text.length * 7, h: 15 });
const overlap = (a: Rect, b: Rect) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('name plates in a crowd', () => {
  const boar = (id: number, x: number, y: number, level = 5): Plate => ({
    id,
    x,
    y,
    name: 'Ridge Boar',
    level,
    rank: 3,
  });

  it('leaves plates that do not touch where they are', () => {
    const out = layoutPlates([boar(1, 0, 0), boar(2, 200, 0)], measure);
    expect(out.every((p) => p.visible && p.lift === 0)).toBe(true);
  });

  it('lifts a plate one plate up at most, hides or counts the rest: never a column', () => {
    // 25 boars on one target, a few units apart.
    const crowd = Array.from({ length: 25 }, (_, i) =>
      boar(i + 1, (i % 5) * 6, Math.floor(i / 5) * 6, 4 + (i % 3)),
    );
    const out = layoutPlates(crowd, measure);
    const shown = out.filter((p) => p.visible);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThanOrEqual(4);
    for (const p of out) expect(p.lift).toBeLessThanOrEqual(16);
    for (let i = 0; i < shown.length; i++)
      for (let j = i + 1; j < shown.length; j++) expect(overlap(shown[i]!.box, shown[j]!.box)).toBe(false);
    // The pack is counted: the plates shown account for every boar.
    const counted = shown.reduce((n, p) => n + Number(/×(\d+)$/.exec(p.text)?.[1] ?? 1), 0);
    expect(counted).toBe(25);
    expect(shown.some((p) => /Ridge Boar {2}4–6 ×\d+/.test(p.text))).toBe(true);
  });

  it('keeps each plate over its own body', () => {
    const crowd = Array.from({ length: 10 }, (_, i) => boar(i + 1, i * 9, 0));
    for (const p of layoutPlates(crowd, measure)) {
      if (!p.visible) continue;
      const body = crowd.find((c) => c.id === p.id)!;
      expect(Math.abs(p.box.x + p.box.w / 2 - body.x)).toBeLessThan(0.01);
    }
  });

  it('places the own character and the target before the others, and hides what names someone else', () => {
    const plates: Plate[] = [
      { id: 1, x: 0, y: 0, name: 'Wolf', level: 2, rank: 3 },
      { id: 2, x: 2, y: 0, name: 'Ayla', level: 1, rank: 0 },
      { id: 3, x: 4, y: 0, name: 'Kobold', level: 3, rank: 1 },
      { id: 4, x: 6, y: 0, name: 'Bran', level: 1, rank: 2 },
    ];
    const out = new Map(layoutPlates(plates, measure).map((p) => [p.id, p]));
    expect(out.get(2)).toMatchObject({ visible: true, lift: 0 });
    expect(out.get(3)).toMatchObject({ visible: true });
    expect(out.get(3)!.lift).toBeGreaterThan(0);
    expect(out.get(4)!.visible).toBe(false);
    expect(out.get(1)!.visible).toBe(false);
  });

  it('writes a level range for a mixed pack', () => {
    expect(plateText('Ridge Boar', [5])).toBe('Ridge Boar  5');
    expect(plateText('Ridge Boar', [5, 5])).toBe('Ridge Boar  5 ×2');
    expect(plateText('Ridge Boar', [6, 4, 5])).toBe('Ridge Boar  4–6 ×3');
  });
});

describe('the clear area the camera centres on', () => {
  it('is the whole screen with no HUD', () =>
    expect(clearArea({ w: 800, h: 500 }, [])).toEqual({ x: 0, y: 0, w: 800, h: 500 }));

  it('is the band between the top and the bottom panels, left of a side panel', () => {
    const boxes = [
      { x: 12, y: 12, w: 220, h: 90 }, // own frame
      { x: 608, y: 12, w: 180, h: 120 }, // minimap
      { x: 540, y: 140, w: 248, h: 250 }, // side panel
      { x: 12, y: 380, w: 250, h: 108 }, // chat
      { x: 270, y: 420, w: 260, h: 66 }, // action bar
    ];
    const clear = clearArea({ w: 800, h: 500 }, boxes);
    for (const b of boxes) expect(overlap(clear, b)).toBe(false);
    expect(clear).toEqual({ x: 0, y: 102, w: 540, h: 278 });
  });
});

describe('the camera frames the own character and its target', () => {
  const clear = { x: 0, y: 100, w: 420, h: 400 };
  const room = { left: 30, right: 30, top: 45, bottom: 20 };
  const toScreen = (g: { x: number; y: number; zoom: number }, p: { x: number; y: number }) => ({
    x: (p.x - g.x) * g.zoom + clear.x + clear.w / 2,
    y: (p.y - g.y) * g.zoom + clear.y + clear.h / 2,
  });
  const within = (s: { x: number; y: number }) =>
    s.x >= clear.x + room.left - 1e-6 &&
    s.x <= clear.x + clear.w - room.right + 1e-6 &&
    s.y >= clear.y + room.top - 1e-6 &&
    s.y <= clear.y + clear.h - room.bottom + 1e-6;

  it('centres the own character when there is no target, or the target is already in the clear area', () => {
    const me = { x: 1000, y: 1000 };
    expect(frameCamera(clear, room, me)).toEqual({ x: 1000, y: 1000, zoom: 1 });
    expect(frameCamera(clear, room, me, { x: 1050, y: 1050 })).toEqual({ x: 1000, y: 1000, zoom: 1 });
  });

  it('slides to bring a target at spell range into the clear area at zoom 1', () => {
    const me = { x: 1000, y: 1000 };
    const wolf = { x: 760, y: 1000 }; // 240 to the left: off a centred 420 px screen's clear part
    const g = frameCamera(clear, room, me, wolf);
    expect(g.zoom).toBe(1);
    expect(within(toScreen(g, me))).toBe(true);
    expect(within(toScreen(g, wolf))).toBe(true);
  });

  it('zooms out, no further than MIN_ZOOM, when the two cannot both fit', () => {
    const me = { x: 1000, y: 1000 };
    const far = { x: 1000, y: 1500 };
    const g = frameCamera(clear, room, me, far);
    expect(g.zoom).toBeLessThan(1);
    expect(g.zoom).toBeGreaterThanOrEqual(MIN_ZOOM);
    expect(within(toScreen(g, me))).toBe(true);
    expect(within(toScreen(g, far))).toBe(true);
    const tooFar = frameCamera(clear, room, me, { x: 3000, y: 1000 });
    expect(tooFar.zoom).toBe(MIN_ZOOM);
    expect(within(toScreen(tooFar, me))).toBe(true);
  });
});
