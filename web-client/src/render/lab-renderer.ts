/**
 * One pane of the netcode lab in Pixi: draws a PaneScene (state/lab.ts) and nothing else.
 * The camera is the scene's centre; the scale fits PANE_SPAN_UNITS across the pane's smaller
 * side. Layers, bottom to top: ground and walls, the watched entity's trail (one dot per
 * frame, so a jump shows as a gap), drawn errors over 2 units (a magenta ring where an entity
 * was drawn, a line to where the server had it), corrections (where the character was, an
 * arrow to where the server put it, the snap distance), entities, the own character's
 * server-confirmed ghost, then the note. Labels are placed so that none covers another (the
 * players' names first, then the corrections, newest first). The page renders every pane
 * from one frame loop (no Pixi ticker).
 */
import { Application, Container, Graphics, Text } from 'pixi.js';
import { PANE_SPAN_UNITS, placeLabels, type PaneScene, type Role } from '../state/lab.js';
import { softwareWebGL } from './renderer.js';

export const ROLE_COLOURS: Record<Role, number> = {
  A: 0x3dd6ff,
  B: 0xffb347,
  player: 0xe8f4ff,
  mob: 0xff5a4a,
};

const GROUND = 0x25331f;
const ERROR_COLOUR = 0xff6bff;
const BODY = 9;

export class LabRenderer {
  readonly app = new Application();
  private readonly world = new Container();
  private readonly ground = new Graphics();
  private readonly marks = new Graphics();
  private readonly bodies = new Graphics();
  private readonly labels = new Container();
  private readonly note = new Text({
    text: '',
    style: {
      fontFamily: 'system-ui, sans-serif',
      fontSize: 13,
      fill: 0xffe066,
      stroke: { color: 0, width: 3 },
    },
  });
  private readonly texts: Text[] = [];
  private drawnZone: PaneScene['zone'];
  framesRendered = 0;

  async init(parent: HTMLElement): Promise<void> {
    const params = new URLSearchParams(location.search);
    await this.app.init({
      resizeTo: parent,
      background: 0x0e140c,
      antialias: params.get('aa') !== '0',
      preference: softwareWebGL() ? 'canvas' : 'webgl',
      failIfMajorPerformanceCaveat: false,
      autoStart: false,
    });
    this.app.ticker.stop();
    parent.appendChild(this.app.canvas);
    this.world.addChild(this.ground, this.marks, this.bodies, this.labels);
    this.note.x = 8;
    this.note.y = 6;
    this.app.stage.addChild(this.world, this.note);
  }

  get canvas(): HTMLCanvasElement {
    return this.app.canvas;
  }

  get rendererName(): string {
    return this.app.renderer.name;
  }

  draw(scene: PaneScene): void {
    const w = this.app.screen.width;
    const h = this.app.screen.height;
    const scale = Math.max(0.2, Math.min(w, h) / PANE_SPAN_UNITS);
    this.world.scale.set(scale);
    this.world.x = Math.round(w / 2 - scene.center.x * scale);
    this.world.y = Math.round(h / 2 - scene.center.y * scale);
    if (scene.zone !== this.drawnZone) {
      this.drawGround(scene.zone);
      this.drawnZone = scene.zone;
    }
    let text = 0;
    const label = (s: string, x: number, y: number, colour: number, size = 11): Text => {
      let t = this.texts[text];
      if (!t) {
        t = new Text({
          text: '',
          style: {
            fontFamily: 'system-ui, sans-serif',
            fontSize: 11,
            fill: 0xffffff,
            stroke: { color: 0, width: 3 },
          },
        });
        t.anchor.set(0.5, 1);
        this.texts.push(t);
        this.labels.addChild(t);
      }
      text++;
      if (t.text !== s) t.text = s;
      t.style.fill = colour;
      t.style.fontSize = size;
      t.scale.set(1 / scale);
      t.x = x;
      t.y = y;
      t.visible = true;
      return t;
    };

    const m = this.marks;
    m.clear();
    const trailColour = ROLE_COLOURS[scene.trailRole];
    for (const p of scene.trail) m.circle(p.x, p.y, 1.6 / scale);
    if (scene.trail.length > 0) m.fill({ color: trailColour, alpha: 0.55 });
    for (const e of scene.errors) {
      const alpha = Math.max(0, 1 - e.age) * 0.8;
      m.moveTo(e.x, e.y)
        .lineTo(e.trueX, e.trueY)
        .stroke({ width: 1.5 / scale, color: ERROR_COLOUR, alpha })
        .circle(e.x, e.y, BODY + 3)
        .stroke({ width: 1.5 / scale, color: ERROR_COLOUR, alpha });
    }
    const names: Text[] = [];
    const notes: Text[] = [];
    for (const c of scene.corrections) {
      const alpha = Math.max(0, 1 - c.age);
      const r = 5 / scale;
      m.moveTo(c.fromX - r, c.fromY - r)
        .lineTo(c.fromX + r, c.fromY + r)
        .moveTo(c.fromX + r, c.fromY - r)
        .lineTo(c.fromX - r, c.fromY + r)
        .moveTo(c.fromX, c.fromY)
        .lineTo(c.x, c.y)
        .stroke({ width: 2 / scale, color: 0xff4d6d, alpha });
      m.circle(c.x, c.y, 3 / scale).fill({ color: 0xff4d6d, alpha });
      notes.push(label(`${c.distance.toFixed(1)} u ${c.reason}`, c.fromX, c.fromY - 8 / scale, 0xff8fa3));
    }

    const b = this.bodies;
    b.clear();
    for (const e of scene.entities) {
      const colour = ROLE_COLOURS[e.role];
      const alpha = e.alive ? 1 : 0.35;
      if (e.kind === 'mob') b.rect(e.x - BODY * 0.8, e.y - BODY * 0.8, BODY * 1.6, BODY * 1.6);
      else b.circle(e.x, e.y, BODY);
      b.fill({ color: colour, alpha }).stroke({ width: 1.5 / scale, color: 0x0b0f0a });
      if (e.alive) {
        const nx = e.x + Math.cos(e.facing) * (BODY + 4);
        const ny = e.y + Math.sin(e.facing) * (BODY + 4);
        b.circle(nx, ny, 2.2).fill(0xffffff);
      }
      if (e.role === 'A' || e.role === 'B') names.push(label(e.name, e.x, e.y - BODY - 3, colour));
    }
    this.spreadLabels([...names, ...notes.reverse()], scale);
    const g = scene.ghost;
    if (g) {
      b.moveTo(g.selfX, g.selfY)
        .lineTo(g.x, g.y)
        .stroke({ width: 1 / scale, color: 0xffffff, alpha: 0.5 })
        .circle(g.x, g.y, BODY + 2)
        .stroke({ width: 1.5 / scale, color: 0xffffff, alpha: 0.8 });
    }
    for (let i = text; i < this.texts.length; i++) (this.texts[i] as Text).visible = false;
    this.note.text = scene.note ?? '';
    this.app.render();
    this.framesRendered++;
  }

  /** Moves labels apart by whole rows (screen pixels) so that none covers another. */
  private spreadLabels(texts: readonly Text[], scale: number): void {
    const at = placeLabels(
      texts.map((t) => ({ x: t.x * scale, y: t.y * scale, w: t.width * scale + 4, h: t.height * scale })),
    );
    texts.forEach((t, i) => {
      const p = at[i];
      if (p) t.y = p.y / scale;
      else t.visible = false;
    });
  }

  private drawGround(zone: PaneScene['zone']): void {
    const g = this.ground;
    g.clear();
    if (!zone) return;
    // Zones lie side by side in one plane: the ground is drawn where the zone is.
    const { x: x0, y: y0, width, height } = zone;
    g.rect(x0, y0, width, height).fill(GROUND);
    // Lines every 64 units so motion reads against the ground (cheap on the canvas renderer).
    const tile = 64;
    for (let x = 0; x <= width; x += tile) g.moveTo(x0 + x, y0).lineTo(x0 + x, y0 + height);
    for (let y = 0; y <= height; y += tile) g.moveTo(x0, y0 + y).lineTo(x0 + width, y0 + y);
    g.stroke({ width: 1, color: 0x3a4d31, alpha: 0.8 });
    for (const o of zone.obstacles) g.rect(o.x, o.y, o.w, o.h).fill(0x5a5f66);
  }
}
