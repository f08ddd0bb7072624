/**
 * The page teaches itself, in headless Chromium against the real server with real keys and
 * mouse: a first-time hint and the controls overlay (H, ?), the appearance previewed as the
 * world draws it, Tab taking a mob in sight before a nearer one behind a wall, the HUD keeping
 * off the character, its target and itself at 1280×800, 800×500 and 420×800 (netcode panel
 * open), WebAudio effects (an AudioContext spy installed before the page loads) for cast, hit,
 * whisper and death, mute kept across a reload, `/r` and timestamped chat, and name plates in
 * a pack of twelve boars staying over their bodies without overlapping.
 *
 * The zone is made for it: the player stands at (150, 100); a Meadow Wolf 180 units east stands
 * behind a wall, a Kobold 210 units south in the open (in spell range), twelve Ridge Boars in a
 * pack 500 units south. Mobs neither wander nor notice anyone until struck.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDamage } from '../../server/world/combat.js';
import { inSight } from '../../shared/game/sight.js';
import { PLAYER_COLOURS, SELF_MARK } from '../../web-client/src/render/palette.js';
import {
  REPO_ROOT,
  chromiumAvailable,
  ensureClientBuilt,
  createAndPlay,
  holdKey,
  inWorld,
  launchBrowser,
  register,
  say,
  until as waitUntil,
  type Browser,
  type HookBox as Box,
  type WyvernHook,
  type WyvernWindow,
} from '../helpers/browser.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';

const results = join(REPO_ROOT, 'test-results');
const WAIT_MS = 30_000;
const SPAWN = { x: 150, y: 100 };
const WALL = { x: 300, y: 0, w: 20, h: 300 };
const HIDDEN_WOLF = { x: 330, y: 100 };
const OPEN_KOBOLD = { x: 150, y: 310 };
const PACK = [
  { x: 150, y: 600 },
  { x: 160, y: 604 },
  { x: 142, y: 610 },
  { x: 156, y: 614 },
];

const skip = !chromiumAvailable();
if (skip) console.warn('page-guide e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');

type Wyvern = WyvernWindow & { __audio: { contexts: number; oscillators: number; started: number } };

function view(
  page: Page,
): Promise<
  Pick<WyvernHook, 'screen' | 'self' | 'entities' | 'targetId' | 'chat' | 'sounds' | 'muted' | 'zoom'>
> {
  return page.evaluate(() => {
    const w = (window as unknown as Wyvern).__wyvern;
    return {
      screen: w.screen,
      self: w.self,
      entities: w.entities,
      targetId: w.targetId,
      chat: w.chat,
      sounds: w.sounds,
      muted: w.muted,
      zoom: w.zoom,
    };
  });
}

const audio = (page: Page) => page.evaluate(() => ({ ...(window as unknown as Wyvern).__audio }));

const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = WAIT_MS) =>
  waitUntil(what, check, timeoutMs);

const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Counts every AudioContext, oscillator and oscillator start the page makes. */
function installAudioSpy(): void {
  const spy = { contexts: 0, oscillators: 0, started: 0 };
  (window as unknown as { __audio: typeof spy }).__audio = spy;
  const Original = window.AudioContext;
  window.AudioContext = class extends Original {
    constructor(options?: AudioContextOptions) {
      super(options);
      spy.contexts++;
    }
    override createOscillator(): OscillatorNode {
      spy.oscillators++;
      const osc = super.createOscillator();
      const start = osc.start.bind(osc);
      osc.start = (when?: number) => {
        spy.started++;
        start(when);
      };
      return osc;
    }
  };
}

/** The HUD's panels and the minimap, in page pixels. */
async function hudBoxes(page: Page): Promise<Record<string, Box>> {
  const dom = await page.evaluate(() => {
    const out: Record<string, { x: number; y: number; w: number; h: number }> = {};
    for (const sel of [
      '.self-frame',
      '.target-frame',
      '.menu',
      '.first-hint',
      '.net-panel',
      '.action-bar',
      '.chat',
    ]) {
      const el = document.querySelector(sel);
      if (!el) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      out[sel] = { x: r.x, y: r.y, w: r.width, h: r.height };
    }
    return out;
  });
  const minimap = await page.evaluate(() => (window as unknown as Wyvern).__wyvern.minimapBox);
  return minimap ? { ...dom, minimap } : dom;
}

/** A body as drawn (the target ring is 16 px round its centre) and its name plate, if shown. */
async function bodyBoxes(page: Page, id: number): Promise<Box[]> {
  return page.evaluate((i) => {
    const w = (window as unknown as Wyvern).__wyvern;
    const at = w.screenPosition(i);
    if (!at) return [];
    const r = 16 * w.zoom;
    const boxes = [{ x: at.x - r, y: at.y - r, w: 2 * r, h: 2 * r }];
    const plate = w.labelBoxes.find((l) => l.id === i);
    if (plate) boxes.push(plate);
    return boxes;
  }, id);
}

/** The preview's pixel at (dx, dy) from its centre, as 0xRRGGBB. */
function previewPixel(page: Page, dx: number, dy: number): Promise<number> {
  return page.evaluate(
    ({ dx, dy }) => {
      const src = document.querySelector('.preview canvas') as HTMLCanvasElement;
      const c = document.createElement('canvas');
      c.width = src.width;
      c.height = src.height;
      const ctx = c.getContext('2d') as CanvasRenderingContext2D;
      ctx.drawImage(src, 0, 0);
      const s = src.width / 72;
      const d = ctx.getImageData(
        Math.round(src.width / 2 + dx * s),
        Math.round(src.height / 2 + dy * s),
        1,
        1,
      ).data;
      return ((d[0] as number) << 16) | ((d[1] as number) << 8) | (d[2] as number);
    },
    { dx, dy },
  );
}

function colourDistance(a: number, b: number): number {
  return Math.max(
    Math.abs(((a >> 16) & 255) - ((b >> 16) & 255)),
    Math.abs(((a >> 8) & 255) - ((b >> 8) & 255)),
    Math.abs((a & 255) - (b & 255)),
  );
}

describe.skipIf(skip)('the page teaches itself', () => {
  let world: WorldServer;
  let browser: Browser;
  let url: string;
  let dataDir: string;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    const dist = await ensureClientBuilt();
    mkdirSync(results, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'wyvern-guide-data-'));
    cpSync(join(REPO_ROOT, 'data/test'), dataDir, { recursive: true });
    const mobsFile = join(dataDir, 'mobs.json');
    const mobs = JSON.parse(readFileSync(mobsFile, 'utf8')) as { templates: Record<string, unknown>[] };
    for (const t of mobs.templates) Object.assign(t, { wanderRadius: 0, aggroRadius: 0 });
    writeFileSync(mobsFile, JSON.stringify(mobs));
    const zoneFile = join(dataDir, 'zones/testvale.json');
    const zone = JSON.parse(readFileSync(zoneFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      zoneFile,
      JSON.stringify({
        ...zone,
        playerSpawn: SPAWN,
        graveyard: { x: 60, y: 120 },
        obstacles: [WALL],
        spawns: [
          { template: 1, ...HIDDEN_WOLF, count: 1 },
          { template: 2, ...OPEN_KOBOLD, count: 1 },
          ...PACK.map((p) => ({ template: 4, ...p, count: 3 })),
        ],
      }),
    );
    world = await startWorldServer({ WEB_ROOT: dist, INTEREST_RADIUS: '600', DATA_DIR: dataDir });
    url = `http://127.0.0.1:${world.server.httpPort}/`;
    browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
    await browser.context.addInitScript(installAudioSpy);
    page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('previews the new character as the world draws it, in the colour chosen', async () => {
    await register(page, 'e2e_guide', WAIT_MS);
    for (const appearance of [2, 4]) {
      await page.selectOption('select[name=appearance]', String(appearance));
      await page.waitForSelector(`.preview[data-appearance="${appearance}"] canvas`);
      // Drawn twice the world's size: the body (radius 10) in its colour, the own ring (13) round it.
      expect(colourDistance(await previewPixel(page, -8, 0), PLAYER_COLOURS[appearance]!)).toBeLessThan(24);
      expect(colourDistance(await previewPixel(page, 0, -26), SELF_MARK)).toBeLessThan(60);
    }
    await page.screenshot({ path: join(results, 'page-guide-preview.png') });
    await createAndPlay(page, 'Guida', { appearance: 2, timeoutMs: WAIT_MS });
    await inWorld(page, WAIT_MS);
  }, 60_000);

  it('shows a first-time hint; H opens the controls, ? closes them; the hint stays gone after a reload', async () => {
    await page.waitForSelector('.first-hint:not([hidden])', { timeout: WAIT_MS });
    expect(await page.textContent('.first-hint')).toMatch(/Press\s*H\s*for the controls/);
    expect(await page.isHidden('.controls-overlay')).toBe(true);
    await page.keyboard.press('KeyH');
    await page.waitForSelector('.controls-overlay:not([hidden])');
    const text = (await page.textContent('.controls-overlay')) ?? '';
    for (const word of ['walk', 'Tab', '/r reply', 'sound']) expect(text).toContain(word);
    expect(await page.isHidden('.first-hint')).toBe(true);
    await page.screenshot({ path: join(results, 'page-guide-controls.png') });
    await page.keyboard.press('Shift+Slash');
    await page.waitForSelector('.controls-overlay', { state: 'hidden' });
    await page.reload();
    await page.waitForFunction(() => (window as unknown as Wyvern).__wyvern?.screen === 'world', null, {
      timeout: WAIT_MS,
    });
    await new Promise((ok) => setTimeout(ok, 300));
    expect(await page.isHidden('.first-hint')).toBe(true);
  }, 60_000);

  it('takes the mob in sight with Tab before a nearer one behind a wall, which comes last', async () => {
    const v = await until('the mobs are in view', async () => {
      const v = await view(page);
      return v.entities.filter((e) => e.kind === 'mob').length === 14 ? v : undefined;
    });
    const me = v.self!;
    const mobs = v.entities.filter((e) => e.kind === 'mob');
    const wolf = mobs.find((m) => m.name === 'Meadow Wolf')!;
    const kobold = mobs.find((m) => m.name === 'Kobold Digger')!;
    // The wolf is nearer, but behind the wall.
    expect(Math.hypot(wolf.x - me.x, wolf.y - me.y)).toBeLessThan(
      Math.hypot(kobold.x - me.x, kobold.y - me.y),
    );
    expect(inSight(me, wolf, [WALL])).toBe(false);
    expect(inSight(me, kobold, [WALL])).toBe(true);
    await page.keyboard.press('Tab');
    expect((await view(page)).targetId).toBe(kobold.id);
    const order = [kobold.id];
    for (let i = 1; i < mobs.length; i++) {
      await page.keyboard.press('Tab');
      order.push((await view(page)).targetId!);
    }
    expect(new Set(order).size).toBe(mobs.length);
    expect(order.at(-1)).toBe(wolf.id);
    await page.keyboard.press('Tab');
    expect((await view(page)).targetId).toBe(kobold.id);
  }, 60_000);

  for (const [width, height] of [
    [1280, 800],
    [800, 500],
    [420, 800],
  ] as const) {
    it(`keeps the panels off the character, its target and each other at ${width}×${height}, the netcode panel open`, async () => {
      await page.setViewportSize({ width, height });
      await page.click('button.net-button');
      await page.waitForSelector('.net-panel:not([hidden])');
      const v = await view(page);
      const target = v.targetId!;
      expect(v.entities.find((e) => e.id === target)?.name).toBe('Kobold Digger');
      // The camera eases onto its framing in a few tenths of a second.
      await new Promise((ok) => setTimeout(ok, 900));
      const boxes = await hudBoxes(page);
      await page.screenshot({ path: join(results, `page-guide-${width}x${height}.png`) });
      expect(Object.keys(boxes)).toEqual(
        expect.arrayContaining([
          '.self-frame',
          '.target-frame',
          '.menu',
          '.net-panel',
          '.action-bar',
          'minimap',
        ]),
      );
      if (width > 640) expect(Object.keys(boxes)).toContain('.chat');
      const names = Object.keys(boxes);
      const clashes: string[] = [];
      for (let i = 0; i < names.length; i++)
        for (let j = i + 1; j < names.length; j++)
          if (overlap(boxes[names[i]!]!, boxes[names[j]!]!)) clashes.push(`${names[i]} × ${names[j]}`);
      for (const [who, id] of [
        ['character', v.self!.id],
        ['target', target],
      ] as const) {
        const drawn = await bodyBoxes(page, id);
        expect(drawn.length).toBeGreaterThan(0);
        for (const b of drawn) {
          expect(b.x).toBeGreaterThanOrEqual(0);
          expect(b.y).toBeGreaterThanOrEqual(0);
          expect(b.x + b.w).toBeLessThanOrEqual(width);
          expect(b.y + b.h).toBeLessThanOrEqual(height);
          for (const [name, box] of Object.entries(boxes))
            if (overlap(b, box)) clashes.push(`${who} × ${name}`);
        }
      }
      expect(clashes).toEqual([]);
      for (const b of Object.values(boxes)) {
        expect(b.x).toBeGreaterThanOrEqual(0);
        expect(b.x + b.w).toBeLessThanOrEqual(width);
        expect(b.y + b.h).toBeLessThanOrEqual(height);
      }
      await page.click('button.net-button');
      await page.waitForSelector('.net-panel', { state: 'hidden' });
    }, 60_000);
  }

  it('plays synthesized effects for a cast, a hit, a whisper and a death; /r answers; lines carry the time', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const before = await audio(page);
    expect((await view(page)).muted).toBe(false);
    await page.keyboard.press('Digit1');
    await until('the Fireball left and landed', async () => {
      const s = (await view(page)).sounds;
      return s.includes('cast') && s.includes('hit') ? true : undefined;
    });
    const after = await audio(page);
    expect(after.contexts).toBe(1);
    expect(after.started).toBeGreaterThan(before.started);

    const other = await browser.newPage();
    await other.goto(url);
    await register(other, 'e2e_whisperer', WAIT_MS);
    await createAndPlay(other, 'Wispa', { appearance: 0, timeoutMs: WAIT_MS });
    await inWorld(other, WAIT_MS);
    const heard = (await audio(page)).started;
    await say(other, '/w Guida are you there?');
    await until('the whisper is heard', async () =>
      (await view(page)).sounds.includes('whisper') ? true : undefined,
    );
    expect((await audio(page)).started).toBeGreaterThan(heard);
    await say(page, '/r right here');
    await until('the reply reached the whisperer', async () =>
      (await view(other)).chat.some(
        (c) => c.channel === 'whisper' && c.from === 'Guida' && c.text === 'right here',
      )
        ? true
        : undefined,
    );
    await other.close();
    // A tab behind another draws no frames (nor updates its HUD): this one is in front again.
    await page.bringToFront();
    const stamps = await until('the whisper and the reply are in the chat box', async () => {
      const t = await page.$$eval('.chat-log .line.whisper time', (ts) => ts.map((e) => e.textContent));
      return t.length >= 2 ? t : undefined;
    });
    for (const s of stamps) expect(s).toMatch(/^\d\d:\d\d$/);

    const me = (await view(page)).self!;
    const zone = [...world.server.realm.zones.values()][0]!.world;
    const p = zone.players.get(me.id)!;
    applyDamage(zone, null, p, 0, p.health, false);
    await until('the death is heard', async () =>
      (await view(page)).sounds.includes('death') ? true : undefined,
    );
    await until('back on its feet', async () => ((await view(page)).self?.alive ? true : undefined));
  }, 90_000);

  it('mutes with M, and stays muted after a reload', async () => {
    await page.keyboard.press('KeyM');
    expect((await view(page)).muted).toBe(true);
    expect(await page.textContent('button[name=mute]')).toBe('sound off');
    await page.reload();
    await page.waitForFunction(
      () => {
        const w = (window as unknown as Wyvern).__wyvern;
        return w?.screen === 'world' && w.self !== undefined && w.entities.length > 5;
      },
      null,
      { timeout: WAIT_MS },
    );
    expect((await view(page)).muted).toBe(true);
    expect(await page.textContent('button[name=mute]')).toBe('sound off');
    // A cast now makes no sound at all.
    await until('a target', async () => {
      if ((await view(page)).targetId !== undefined) return true;
      await page.keyboard.press('Tab');
      return undefined;
    });
    await page.keyboard.press('Digit2');
    await new Promise((ok) => setTimeout(ok, 2500));
    expect((await audio(page)).started).toBe(0);
    expect((await view(page)).sounds).toEqual([]);
    // And the button turns it back on.
    await page.click('button[name=mute]');
    expect((await view(page)).muted).toBe(false);
  }, 60_000);

  it('keeps the names in a pack of twelve boars over their bodies, never overlapping, the rest counted', async () => {
    await page.keyboard.press('Escape');
    const start = (await view(page)).self!;
    await holdKey(page, 'KeyS', 2600);
    await until('walked south toward the pack', async () => {
      const me = (await view(page)).self!;
      return me.y - start.y > 200 ? true : undefined;
    });
    await new Promise((ok) => setTimeout(ok, 600));
    const v = await view(page);
    const boars = v.entities.filter((e) => e.name === 'Ridge Boar');
    expect(boars).toHaveLength(12);
    const labels = await page.evaluate(() => (window as unknown as Wyvern).__wyvern.labelBoxes);
    const shown = labels.filter((l) => boars.some((b) => b.id === l.id));
    await page.screenshot({ path: join(results, 'page-guide-pack.png') });
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(12);
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++) expect(overlap(labels[i]!, labels[j]!)).toBe(false);
    for (const l of shown) {
      const at = (await page.evaluate(
        (i) => (window as unknown as Wyvern).__wyvern.screenPosition(i),
        l.id,
      ))!;
      // Centred over its body, its bottom no more than one plate above the health bar.
      expect(Math.abs(l.x + l.w / 2 - at.x)).toBeLessThan(2);
      expect(at.y - (l.y + l.h)).toBeGreaterThan(0);
      expect(at.y - (l.y + l.h)).toBeLessThan(24 + l.h + 4);
    }
    const counted = shown.reduce((n, l) => n + Number(/×(\d+)$/.exec(l.text)?.[1] ?? 1), 0);
    expect(counted).toBe(12);
  }, 60_000);

  it('logs no errors in the page', () => {
    expect(errors).toEqual([]);
  });
});
