/**
 * The Pixi scene: reads ClientWorld each frame and draws it. Nothing here changes the world.
 *
 * Layers, bottom to top: ground and obstacles (redrawn when the zone changes), the grid and
 * interest circle overlays and the selected spell's range ring, corpses and living entities
 * (body, name plate with level, health bar, cast bar), ghosts of the raw server positions,
 * projectiles, level-up bursts, floating combat texts (damage, healing, experience earned);
 * then, in screen space, the minimap. The camera keeps the own character at the centre of the
 * part of the screen the HUD leaves clear, and its target in that part too (framing.ts); name
 * plates in a crowd are placed by label-layout.ts.
 */
import { Application, CanvasTextMetrics, Container, Graphics, Rectangle, Text, TextStyle } from 'pixi.js';
import {
  COMBAT_TEXT_MS,
  type ClientWorld,
  type EntityState,
  type Zone,
  type ZoneArea,
} from '../state/world.js';
import { clearArea, frameCamera, type BodyRoom, type Rect } from './framing.js';
import { layoutPlates, type Plate } from './label-layout.js';
import { LevelUpLayer } from './level-up.js';
import { bodyStyle, SELF_MARK } from './palette.js';

export interface Overlays {
  interest: boolean;
  ghosts: boolean;
  grid: boolean;
}

const GROUND = 0x25331f;
/** The ground of the zones beside the player's own: the same land, a shade darker. */
const NEIGHBOUR_GROUND = 0x1f2b1a;
const BODY_RADIUS = 10;
const MINIMAP_SIZE = 180;
/** On a narrow or short screen the minimap takes at most these shares of the width and height. */
const MINIMAP_MAX_SHARE = 0.28;
const MINIMAP_MAX_HEIGHT_SHARE = 0.26;
const LABEL_Y = -BODY_RADIUS - 14;
/** Room round a body's centre for it to be seen whole: the name plate and bars above it. */
const BODY_ROOM: BodyRoom = { left: 48, right: 48, top: 46, bottom: 22 };
/** How fast the camera's framing follows a new goal (ms to cover ~63% of the way). */
const FRAMING_MS = 110;
const LABEL_STYLE = {
  fontFamily: 'system-ui, sans-serif',
  fontSize: 12,
  stroke: { color: 0x000000, width: 3 },
};

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface EntitySprite {
  root: Container;
  body: Graphics;
  bars: Graphics;
  label: Text;
  labelText: string;
  bodyKey: string;
  name: string;
  level: number;
  rank: number;
}

export class WorldRenderer {
  readonly app = new Application();
  private readonly camera = new Container();
  private readonly ground = new Graphics();
  private readonly grid = new Graphics();
  private readonly interest = new Graphics();
  private readonly corpses = new Container();
  private readonly living = new Container();
  private readonly ghosts = new Graphics();
  private readonly projectiles = new Graphics();
  private readonly texts = new Container();
  private readonly minimap = new Graphics();
  private readonly sprites = new Map<number, EntitySprite>();
  private readonly combatTexts = new Map<object, Text>();
  private readonly levelUps = new LevelUpLayer();
  private drawnZone: Zone | undefined;
  private gridFor: string | undefined;
  /** The interest ring is a netcode overlay (the panel turns it on): in play it reads as spell range. */
  readonly overlays: Overlays = { interest: false, ghosts: true, grid: false };
  framesRendered = 0;
  rendererName = '';
  private cameraX = 0;
  private cameraY = 0;
  /** Where the minimap was last drawn, in canvas pixels (the HUD keeps clear of it). */
  minimapBox: Box | undefined;
  /** The page's panels over the canvas, in canvas pixels: the camera frames the fight clear of them. */
  hudBoxes: readonly Box[] = [];
  /** The part of the screen no panel covers (last frame). */
  clearBox: Box = { x: 0, y: 0, w: 0, h: 0 };
  private clearKey = '';
  /** The camera's framing now: its offset from the own character (world units) and zoom. */
  private frameX = 0;
  private frameY = 0;
  zoom = 1;
  private lastDraw: number | undefined;
  private readonly measureStyle = new TextStyle(LABEL_STYLE);
  private readonly measured = new Map<string, { w: number; h: number }>();

  /**
   * `?renderer=canvas|webgl|webgpu` picks Pixi's renderer (default WebGL, falling back to
   * canvas 2D); `?aa=0` turns antialiasing off, which software WebGL renders much faster.
   */
  async init(parent: HTMLElement): Promise<void> {
    const params = new URLSearchParams(location.search);
    const wanted = params.get('renderer');
    const preference =
      wanted === 'canvas' || wanted === 'webgpu' || wanted === 'webgl'
        ? wanted
        : softwareWebGL()
          ? 'canvas'
          : 'webgl';
    await this.app.init({
      resizeTo: window,
      background: 0x0e140c,
      antialias: params.get('aa') !== '0',
      preference,
      // Headless browsers and old GPUs may refuse a WebGL context; Pixi then uses canvas 2D.
      failIfMajorPerformanceCaveat: false,
    });
    this.rendererName = this.app.renderer.name;
    parent.appendChild(this.app.canvas);
    this.camera.addChild(
      this.ground,
      this.grid,
      this.interest,
      this.corpses,
      this.living,
      this.ghosts,
      this.projectiles,
      this.levelUps.root,
      this.texts,
    );
    this.app.stage.addChild(this.camera, this.minimap);
  }

  /** Screen pixel to world units. */
  toWorld(screenX: number, screenY: number): { x: number; y: number } {
    return { x: (screenX - this.camera.x) / this.zoom, y: (screenY - this.camera.y) / this.zoom };
  }

  /** World units to canvas pixels, with the camera of the last frame drawn. */
  toScreen(x: number, y: number): { x: number; y: number } {
    return { x: x * this.zoom + this.camera.x, y: y * this.zoom + this.camera.y };
  }

  /** Name plates shown last frame, in canvas pixels (a hidden one is not listed). */
  labelBoxes(): (Box & { id: number; text: string })[] {
    return [...this.sprites]
      .filter(([, s]) => s.label.visible)
      .map(([id, s]) => {
        const b = s.label.getBounds();
        return { id, text: s.label.text, x: b.x, y: b.y, w: b.width, h: b.height };
      });
  }

  get canvas(): HTMLCanvasElement {
    return this.app.canvas;
  }

  /** Draws one frame of the world as of page time `now`. */
  draw(world: ClientWorld, now: number): void {
    const zone = world.zone;
    if (zone !== this.drawnZone) {
      this.drawZone(zone);
      this.drawnZone = zone;
    }
    const me = world.selfEntity();
    const mePos = me ? world.drawnPosition(me, now) : undefined;
    const w = this.app.screen.width;
    const h = this.app.screen.height;
    const clear = this.clearArea(w, h);
    this.frame(world, mePos, clear, now);
    if (mePos) {
      this.cameraX = mePos.x + this.frameX;
      this.cameraY = mePos.y + this.frameY;
    } else if (zone) {
      this.cameraX = zone.x + zone.width / 2;
      this.cameraY = zone.y + zone.height / 2;
    }
    this.camera.scale.set(this.zoom);
    this.camera.x = Math.round(clear.x + clear.w / 2 - this.cameraX * this.zoom);
    this.camera.y = Math.round(clear.y + clear.h / 2 - this.cameraY * this.zoom);

    this.drawGrid(zone, w, h);
    this.interest.clear();
    if (this.overlays.interest && world.self && mePos) {
      this.interest
        .circle(mePos.x, mePos.y, world.self.interestRadius)
        .fill({ color: 0x3dd6ff, alpha: 0.04 })
        .stroke({ width: 1.5, color: 0x3dd6ff, alpha: 0.45 });
    }
    const ring = world.rangeRing(now);
    if (ring && mePos) {
      // Out of range shows before the key is pressed: the ring turns the warning colour.
      // Faint with nothing targeted, plainer with a target in reach.
      const colour = ring.inRange === false ? 0xff6b5b : ring.colour;
      const alpha = ring.inRange === undefined ? 0.22 : ring.inRange ? 0.45 : 0.7;
      this.interest
        .circle(mePos.x, mePos.y, ring.radius)
        .stroke({ width: 2 / this.zoom, color: colour, alpha });
    }

    this.drawEntities(world, now);
    this.drawProjectiles(world, now);
    this.levelUps.draw(world, now, BODY_RADIUS);
    this.drawCombatTexts(world, now);
    this.drawMinimap(world, now, w, h);
    this.framesRendered++;
  }

  /** The part of the screen the HUD leaves clear, recomputed when the panels or the screen change. */
  private clearArea(w: number, h: number): Rect {
    const boxes = this.minimapBox ? [...this.hudBoxes, this.minimapBox] : [...this.hudBoxes];
    const key = `${w}x${h}:${boxes.map((b) => `${b.x},${b.y},${b.w},${b.h}`).join(';')}`;
    if (key !== this.clearKey) {
      this.clearKey = key;
      this.clearBox = clearArea({ w, h }, boxes);
      // A screen covered all over still draws the world somewhere.
      if (this.clearBox.w < 2 * BODY_ROOM.left || this.clearBox.h < BODY_ROOM.top + BODY_ROOM.bottom) {
        this.clearBox = { x: 0, y: 0, w, h };
      }
    }
    return this.clearBox;
  }

  /** Eases the camera's offset and zoom toward framing the own character and its target. */
  private frame(
    world: ClientWorld,
    mePos: { x: number; y: number } | undefined,
    clear: Rect,
    now: number,
  ): void {
    const dt = this.lastDraw === undefined ? 1000 : Math.max(0, now - this.lastDraw);
    this.lastDraw = now;
    if (!mePos) {
      this.frameX = this.frameY = 0;
      this.zoom = 1;
      return;
    }
    const t = world.targetId !== undefined ? world.entities.get(world.targetId) : undefined;
    const tPos = t && t.id !== world.self?.id ? world.drawnPosition(t, now) : undefined;
    const goal = frameCamera(clear, BODY_ROOM, mePos, tPos);
    const k = 1 - Math.exp(-dt / FRAMING_MS);
    this.frameX += (goal.x - mePos.x - this.frameX) * k;
    this.frameY += (goal.y - mePos.y - this.frameY) * k;
    this.zoom += (goal.zoom - this.zoom) * k;
    if (Math.abs(goal.zoom - this.zoom) < 0.002) this.zoom = goal.zoom;
  }

  private drawZone(zone: Zone | undefined): void {
    this.ground.clear();
    this.gridFor = undefined;
    if (!zone) return;
    // The zones beside this one first, a shade apart: a player near the border sees their ground.
    for (const n of zone.neighbours) this.drawGround(n, NEIGHBOUR_GROUND, 0x26331f);
    this.drawGround(zone, GROUND, 0x2b3a24);
    for (const o of zone.obstacles) {
      this.ground.rect(o.x, o.y, o.w, o.h).fill(0x5a5f66).stroke({ width: 2, color: 0x2e3238 });
    }
    for (const n of zone.neighbours) {
      this.ground.rect(n.x, n.y, n.width, n.height).stroke({ width: 4, color: 0x11170f });
    }
    this.ground.rect(zone.x, zone.y, zone.width, zone.height).stroke({ width: 4, color: 0x11170f });
  }

  /** One zone's ground: a fill and a faint checker so motion reads even on empty ground. */
  private drawGround(a: ZoneArea, fill: number, checker: number): void {
    this.ground.rect(a.x, a.y, a.width, a.height).fill(fill);
    const tile = 64;
    for (let y = 0; y < a.height; y += tile) {
      for (let x = (y / tile) % 2 === 0 ? 0 : tile; x < a.width; x += tile * 2) {
        this.ground.rect(a.x + x, a.y + y, Math.min(tile, a.width - x), Math.min(tile, a.height - y));
      }
    }
    this.ground.fill({ color: checker });
  }

  private drawGrid(zone: Zone | undefined, _w: number, _h: number): void {
    const key = this.overlays.grid && zone ? `${zone.name}:${zone.cellSize}` : undefined;
    if (key === this.gridFor) return;
    this.gridFor = key;
    this.grid.clear();
    if (!key || !zone || zone.cellSize <= 0) return;
    const { x: x0, y: y0 } = zone;
    for (let x = 0; x <= zone.width; x += zone.cellSize) {
      this.grid.moveTo(x0 + x, y0).lineTo(x0 + x, y0 + zone.height);
    }
    for (let y = 0; y <= zone.height; y += zone.cellSize) {
      this.grid.moveTo(x0, y0 + y).lineTo(x0 + zone.width, y0 + y);
    }
    this.grid.stroke({ width: 1, color: 0xffffff, alpha: 0.12 });
  }

  private drawEntities(world: ClientWorld, now: number): void {
    const seen = new Set<number>();
    this.ghosts.clear();
    for (const e of world.entities.values()) {
      seen.add(e.id);
      const sprite = this.spriteFor(e);
      const pos = world.drawnPosition(e, now);
      sprite.root.x = pos.x;
      sprite.root.y = pos.y;
      const isSelf = e.id === world.self?.id;
      // The view has no appearance for the own character (EnterWorld carries none): the page knows it.
      const appearance = isSelf ? (world.selfAppearance ?? e.appearance) : e.appearance;
      const bodyKey = `${e.kind}:${appearance}:${e.template}:${e.alive}:${isSelf}:${world.targetId === e.id}`;
      if (bodyKey !== sprite.bodyKey) {
        this.drawBody(sprite.body, { ...e, appearance }, isSelf, world.targetId === e.id);
        sprite.bodyKey = bodyKey;
        const parent = e.alive ? this.living : this.corpses;
        if (sprite.root.parent !== parent) parent.addChild(sprite.root);
      }
      sprite.body.rotation = e.alive ? pos.facing : 0;
      sprite.name = e.name;
      sprite.level = e.level;
      sprite.rank = isSelf ? 0 : world.targetId === e.id ? 1 : !e.alive ? 4 : e.kind === 'player' ? 2 : 3;
      sprite.label.alpha = e.alive ? 1 : 0.5;
      this.drawBars(sprite.bars, e, world, now);
      if (this.overlays.ghosts && !isSelf && e.alive) {
        const raw = world.serverPosition(e, now);
        this.ghosts
          .moveTo(pos.x, pos.y)
          .lineTo(raw.x, raw.y)
          .stroke({ width: 1, color: 0xffffff, alpha: 0.35 })
          .circle(raw.x, raw.y, BODY_RADIUS)
          .stroke({ width: 1.5, color: 0xffffff, alpha: 0.55 });
      }
    }
    for (const [id, s] of this.sprites) {
      if (!seen.has(id)) {
        s.root.destroy({ children: true });
        this.sprites.delete(id);
      }
    }
    this.placeLabels();
  }

  /**
   * Name plates, in world units (they keep their pixel size at any zoom): each over its body,
   * one plate higher when that spot is taken, hidden or counted into its neighbour's beyond
   * that (label-layout.ts), so a crowd never prints a column of names away from the bodies.
   */
  private placeLabels(): void {
    const scale = 1 / this.zoom;
    const plates: Plate[] = [];
    for (const [id, s] of this.sprites) {
      plates.push({
        id,
        x: s.root.x,
        y: s.root.y + LABEL_Y * scale,
        name: s.name,
        level: s.level,
        rank: s.rank,
      });
    }
    const measure = (text: string) => {
      let m = this.measured.get(text);
      if (!m) {
        const t = CanvasTextMetrics.measureText(text, this.measureStyle);
        m = { w: t.width, h: t.height };
        if (this.measured.size > 2000) this.measured.clear();
        this.measured.set(text, m);
      }
      return { w: m.w * scale, h: m.h * scale };
    };
    for (const p of layoutPlates(plates, measure)) {
      const s = this.sprites.get(p.id);
      if (!s) continue;
      s.label.visible = p.visible;
      if (!p.visible) continue;
      if (p.text !== s.labelText) {
        s.label.text = p.text;
        s.labelText = p.text;
      }
      s.label.scale.set(scale);
      s.label.y = p.box.y + p.box.h - s.root.y;
    }
  }

  private spriteFor(e: EntityState): EntitySprite {
    const existing = this.sprites.get(e.id);
    if (existing) return existing;
    const root = new Container();
    const body = new Graphics();
    const bars = new Graphics();
    const label = new Text({
      text: '',
      style: { ...LABEL_STYLE, fill: e.kind === 'mob' ? 0xffb3a7 : 0xe8f4ff },
    });
    label.anchor.set(0.5, 1);
    label.y = LABEL_Y;
    root.addChild(body, bars, label);
    const sprite: EntitySprite = {
      root,
      body,
      bars,
      label,
      labelText: '',
      bodyKey: '',
      name: e.name,
      level: e.level,
      rank: 3,
    };
    this.sprites.set(e.id, sprite);
    return sprite;
  }

  /**
   * A player's body as the world draws it (the same strokes, the own ring and the facing nose),
   * on a canvas of its own: the character screen shows it as the appearance is chosen.
   */
  previewBody(appearance: number, pixels = 72): HTMLCanvasElement | undefined {
    const g = new Graphics();
    const holder = new Container();
    holder.addChild(g);
    this.drawBody(g, { kind: 'player', appearance, template: 0, alive: true }, true, false);
    const half = BODY_RADIUS + 8;
    g.scale.set(pixels / (2 * half));
    g.position.set(pixels / 2, pixels / 2);
    try {
      return this.app.renderer.extract.canvas({
        target: holder,
        frame: new Rectangle(0, 0, pixels, pixels),
        clearColor: GROUND,
      }) as HTMLCanvasElement;
    } catch {
      return undefined;
    } finally {
      holder.destroy({ children: true });
    }
  }

  private drawBody(
    g: Graphics,
    e: Pick<EntityState, 'kind' | 'appearance' | 'template' | 'alive'>,
    isSelf: boolean,
    targeted: boolean,
  ): void {
    g.clear();
    const style = bodyStyle(e, isSelf);
    if (targeted) g.circle(0, 0, BODY_RADIUS + 6).stroke({ width: 2.5, color: 0xffe066 });
    if (!e.alive) {
      g.ellipse(0, 2, BODY_RADIUS + 2, BODY_RADIUS - 4).fill({ color: 0x6b6b6b, alpha: 0.7 });
      g.moveTo(-5, -2).lineTo(5, 6).moveTo(5, -2).lineTo(-5, 6).stroke({ width: 2, color: 0x333333 });
      return;
    }
    if (e.kind === 'mob') {
      g.roundRect(-BODY_RADIUS, -BODY_RADIUS, BODY_RADIUS * 2, BODY_RADIUS * 2, 4).fill(style.fill);
    } else {
      g.circle(0, 0, BODY_RADIUS).fill(style.fill);
    }
    g.stroke({ width: 2, color: 0x0b0f0a });
    if (style.ring !== undefined) g.circle(0, 0, BODY_RADIUS + 3).stroke({ width: 2, color: style.ring });
    // A nose showing facing (the body is rotated).
    g.poly([BODY_RADIUS - 2, -4, BODY_RADIUS + 5, 0, BODY_RADIUS - 2, 4]).fill(0xffffff);
  }

  private drawBars(g: Graphics, e: EntityState, world: ClientWorld, now: number): void {
    g.clear();
    if (!e.alive) return;
    const w = 34;
    const y = -BODY_RADIUS - 11;
    const frac = e.maxHealth > 0 ? Math.max(0, Math.min(1, e.health / e.maxHealth)) : 0;
    g.rect(-w / 2, y, w, 5).fill(0x1a0000);
    g.rect(-w / 2, y, w * frac, 5).fill(frac > 0.5 ? 0x3ccf4e : frac > 0.25 ? 0xf0c02f : 0xe0412f);
    const cast = world.casts.get(e.id);
    if (cast) {
      const f = cast.castTime > 0 ? Math.min(1, (now - cast.startedAt) / cast.castTime) : 1;
      const cy = BODY_RADIUS + 6;
      g.rect(-w / 2, cy, w, 5).fill(0x101020);
      g.rect(-w / 2, cy, w * f, 5).fill(world.spell(cast.spellId)?.colour ?? 0x9fb4ff);
      g.rect(-w / 2, cy, w, 5).stroke({ width: 1, color: 0x000000 });
    }
  }

  private entityPos(world: ClientWorld, id: number, now: number): { x: number; y: number } | undefined {
    const e = world.entities.get(id);
    return e ? world.drawnPosition(e, now) : undefined;
  }

  private drawProjectiles(world: ClientWorld, now: number): void {
    const g = this.projectiles;
    g.clear();
    for (const p of world.projectiles) {
      const from = this.entityPos(world, p.casterId, now);
      const to = this.entityPos(world, p.targetId, now);
      if (!from || !to) continue;
      const f = p.travelTime > 0 ? Math.min(1, (now - p.startedAt) / p.travelTime) : 1;
      const x = from.x + (to.x - from.x) * f;
      const y = from.y + (to.y - from.y) * f;
      const tx = from.x + (to.x - from.x) * Math.max(0, f - 0.08);
      const ty = from.y + (to.y - from.y) * Math.max(0, f - 0.08);
      g.moveTo(tx, ty).lineTo(x, y).stroke({ width: 3, color: p.colour, alpha: 0.5 });
      g.circle(x, y, 5).fill(p.colour).circle(x, y, 8).fill({ color: p.colour, alpha: 0.3 });
    }
  }

  private drawCombatTexts(world: ClientWorld, now: number): void {
    const live = new Set<object>();
    for (const c of world.combatTexts) {
      live.add(c);
      let t = this.combatTexts.get(c);
      if (!t) {
        t = new Text({
          text:
            c.kind === 'experience'
              ? `+${c.amount} XP`
              : `${c.kind === 'heal' ? '+' : '-'}${c.amount}${c.crit ? '!' : ''}`,
          style: {
            fontFamily: 'system-ui, sans-serif',
            fontWeight: 'bold',
            fontSize: c.crit ? 26 : 16,
            fill:
              c.kind === 'experience'
                ? 0xc89bff
                : c.kind === 'heal'
                  ? 0x6dff8a
                  : c.crit
                    ? 0xffd84a
                    : 0xffffff,
            stroke: { color: 0x000000, width: 4 },
          },
        });
        t.anchor.set(0.5, 1);
        this.texts.addChild(t);
        this.combatTexts.set(c, t);
      }
      const pos = this.entityPos(world, c.targetId, now);
      const age = (now - c.at) / COMBAT_TEXT_MS;
      if (pos) {
        t.x = pos.x + (c.crit ? 0 : 10);
        t.y = pos.y - BODY_RADIUS - 28 - age * 40;
      }
      t.alpha = Math.max(0, 1 - age * age);
    }
    for (const [c, t] of this.combatTexts) {
      if (!live.has(c)) {
        t.destroy();
        this.combatTexts.delete(c);
      }
    }
  }

  private drawMinimap(world: ClientWorld, now: number, screenW: number, screenH: number): void {
    const g = this.minimap;
    g.clear();
    const zone = world.zone;
    if (!zone) {
      this.minimapBox = undefined;
      return;
    }
    const size = Math.min(
      MINIMAP_SIZE,
      Math.floor(screenW * MINIMAP_MAX_SHARE),
      Math.floor(screenH * MINIMAP_MAX_HEIGHT_SHARE),
    );
    const scale = size / Math.max(zone.width, zone.height);
    const mw = zone.width * scale;
    const mh = zone.height * scale;
    const ox = screenW - mw - 12;
    const oy = 12;
    this.minimapBox = { x: ox - 2, y: oy - 2, w: mw + 4, h: mh + 4 };
    g.rect(ox - 2, oy - 2, mw + 4, mh + 4).fill({ color: 0x000000, alpha: 0.6 });
    g.rect(ox, oy, mw, mh).fill({ color: GROUND, alpha: 0.9 });
    // Positions are in the world plane: the minimap shows the zone from its corner.
    const mx = (x: number): number => ox + (x - zone.x) * scale;
    const my = (y: number): number => oy + (y - zone.y) * scale;
    for (const o of zone.obstacles) {
      if (!insideArea(o, zone)) continue;
      g.rect(mx(o.x), my(o.y), o.w * scale, o.h * scale);
    }
    g.fill(0x5a5f66);
    if (world.self && this.overlays.interest) {
      const me = world.selfEntity();
      const p = me ? world.drawnPosition(me, now) : undefined;
      if (p) {
        const box = { x: ox, y: oy, w: mw, h: mh };
        arcInside(g, mx(p.x), my(p.y), world.self.interestRadius * scale, box);
        g.stroke({ width: 1, color: 0x3dd6ff, alpha: 0.6 });
      }
    }
    for (const e of world.entities.values()) {
      const p = world.drawnPosition(e, now);
      const colour =
        e.id === world.self?.id ? SELF_MARK : !e.alive ? 0x777777 : e.kind === 'mob' ? 0xff5a4a : 0xe8f4ff;
      if (p.x < zone.x || p.y < zone.y || p.x > zone.x + zone.width || p.y > zone.y + zone.height) continue;
      g.circle(mx(p.x), my(p.y), e.id === world.self?.id ? 3 : 2).fill(colour);
    }
  }
}

/**
 * The parts of a circle that lie inside a box, as line segments (Pixi masks are costly on
 * the canvas renderer, and the minimap must not spill its interest ring over the world).
 */
/** Whether a wall lies (at least partly) within a zone's rectangle. */
function insideArea(o: { x: number; y: number; w: number; h: number }, a: ZoneArea): boolean {
  return o.x < a.x + a.width && a.x < o.x + o.w && o.y < a.y + a.height && a.y < o.y + o.h;
}

function arcInside(
  g: Graphics,
  cx: number,
  cy: number,
  r: number,
  box: { x: number; y: number; w: number; h: number },
): void {
  const inside = (x: number, y: number) =>
    x >= box.x && x <= box.x + box.w && y >= box.y && y <= box.y + box.h;
  const steps = 64;
  let penDown = false;
  for (let i = 0; i <= steps; i++) {
    const a = (i / steps) * Math.PI * 2;
    const x = cx + Math.cos(a) * r;
    const y = cy + Math.sin(a) * r;
    if (!inside(x, y)) {
      penDown = false;
    } else if (penDown) {
      g.lineTo(x, y);
    } else {
      g.moveTo(x, y);
      penDown = true;
    }
  }
}

/**
 * Whether WebGL here runs on a software rasteriser (SwiftShader, llvmpipe): there Pixi's
 * canvas 2D renderer is many times faster (60 fps against a few in headless Chromium).
 */
export function softwareWebGL(): boolean {
  try {
    const gl = document.createElement('canvas').getContext('webgl');
    if (!gl) return false;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|software/i.test(name);
  } catch {
    return false;
  }
}
