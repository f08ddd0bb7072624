/**
 * Dying while a movement key is held, in headless Chromium against the real server with real
 * key events: the key goes down, the character walks, the server kills it (a test-only blow:
 * its whole health, dealt between two ticks), and the key stays down through the death and
 * the respawn. The page draws the corpse where the server has it, draws the character at the
 * graveyard once the respawn is shown (never at the corpse again), and the own corrections
 * are the death and the respawn, nothing after. Released, the drawn position and the
 * server's agree within half a unit. The test data is copied with a 2 s respawn delay.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDamage } from '../../server/world/combat.js';
import type { Player } from '../../server/world/index.js';
import {
  REPO_ROOT,
  chromiumAvailable,
  ensureClientBuilt,
  launchBrowser,
  registerAndPlay,
  self,
  until,
  type Browser,
  type WyvernWindow,
} from '../helpers/browser.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';

const WAIT_MS = 30_000;
const RESPAWN_DELAY_MS = 2000;

const skip = !chromiumAvailable();
if (skip) console.warn('death-while-moving e2e skipped: no Chromium at /usr/bin/chromium');

/** What the test reads of window.__wyvern each frame. */
interface Sample {
  t: number;
  alive: boolean;
  x: number;
  y: number;
}

type Wyvern = WyvernWindow & { __samples?: Sample[] };

const corrections = (page: Page) => page.evaluate(() => (window as unknown as Wyvern).__wyvern.corrections);

describe.skipIf(skip)('dying while a movement key is held', () => {
  let world: WorldServer;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    const dist = await ensureClientBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'wyvern-data-'));
    cpSync(join(REPO_ROOT, 'data/test'), dataDir, { recursive: true });
    const rules = JSON.parse(readFileSync(join(dataDir, 'rules.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      join(dataDir, 'rules.json'),
      JSON.stringify({ ...rules, playerRespawnDelay: RESPAWN_DELAY_MS }),
    );
    world = await startWorldServer({ WEB_ROOT: dist, DATA_DIR: dataDir });
    browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('respawns drawn at the graveyard, where the server has it, with no correction after the respawn', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${world.server.httpPort}/`);
    await registerAndPlay(page, 'e2e_fallen', 'Fallen', { timeoutMs: WAIT_MS });
    const start = await until('in the world', () => self(page), WAIT_MS);
    const zone = [...world.server.realm.zones.values()][0]!.world;
    const graveyard = zone.zone.graveyard;
    const server = (): Player => zone.players.get(start.id)!;

    // Every frame's drawn position and life, from here on.
    await page.evaluate(() => {
      const w = window as unknown as Wyvern;
      const samples: Sample[] = (w.__samples = []);
      const record = () => {
        const me = w.__wyvern.self;
        if (me) samples.push({ t: performance.now(), alive: me.alive, x: me.x, y: me.y });
        requestAnimationFrame(record);
      };
      requestAnimationFrame(record);
    });

    // South, away from the wall east of the spawn and from the mobs.
    await page.keyboard.down('KeyS');
    await until('walking', async () => ((await self(page))!.y - start.y > 60 ? true : undefined), WAIT_MS);
    expect(server().moving).toBe(true);
    const p = server();
    applyDamage(zone, null, p, 0, p.health, false);

    const dead = await until(
      'the death shown',
      async () => {
        const me = await self(page);
        return me && !me.alive ? me : undefined;
      },
      WAIT_MS,
    );
    const corpse = { x: server().x, y: server().y };
    expect(server().moving).toBe(false);
    expect(Math.hypot(dead.x - corpse.x, dead.y - corpse.y)).toBeLessThanOrEqual(0.5);

    // Still holding the key: the respawn comes, and the character walks on from the graveyard.
    await until('the respawn shown', async () => ((await self(page))!.alive ? true : undefined), WAIT_MS);
    await new Promise((ok) => setTimeout(ok, 1500));
    await page.keyboard.up('KeyS');
    await until(
      'the drawn position and the server agree',
      async () => {
        const me = (await self(page))!;
        const s = server();
        return !s.moving && Math.hypot(me.x - s.x, me.y - s.y) <= 0.5 ? true : undefined;
      },
      WAIT_MS,
    );
    await new Promise((ok) => setTimeout(ok, 500));
    const end = (await self(page))!;
    const s = server();
    const samples = await page.evaluate(() => (window as unknown as Wyvern).__samples!);
    const firstDead = samples.findIndex((x) => !x.alive);
    const firstAlive = samples.findIndex((x, i) => i > firstDead && x.alive);
    const dying = samples.slice(firstDead, firstAlive);
    const after = samples.slice(firstAlive);
    const fromCorpse = dying.map((x) => Math.hypot(x.x - corpse.x, x.y - corpse.y));
    const offPath = after.map((x) => Math.abs(x.x - graveyard.x) + Math.max(0, graveyard.y - x.y));
    const list = await corrections(page);
    console.log(
      `death while holding S: corpse at ${corpse.x.toFixed(2)},${corpse.y.toFixed(2)}, drawn dead ` +
        `${Math.max(...fromCorpse).toFixed(2)} units from it at most over ${dying.length} frames; ` +
        `respawn first drawn ${Math.hypot(after[0]!.x - graveyard.x, after[0]!.y - graveyard.y).toFixed(2)} ` +
        `units from the graveyard, ${after.length} frames after it off the graveyard's line by ` +
        `${Math.max(...offPath).toFixed(2)} at most; end drawn ${end.x},${end.y} server ${s.x.toFixed(2)},` +
        `${s.y.toFixed(2)}; corrections ${JSON.stringify(list.map((c) => c.reason))}`,
    );
    expect(Math.max(...fromCorpse)).toBeLessThanOrEqual(0.5);
    // The first frame after the respawn is drawn at the graveyard (a frame's walk at most).
    expect(Math.hypot(after[0]!.x - graveyard.x, after[0]!.y - graveyard.y)).toBeLessThanOrEqual(4);
    // Every frame after it on the way south from the graveyard: never back at the corpse.
    expect(Math.max(...offPath)).toBeLessThanOrEqual(0.5);
    expect(end.y - graveyard.y).toBeGreaterThan(100);
    expect(Math.hypot(end.x - s.x, end.y - s.y)).toBeLessThanOrEqual(0.5);
    expect(list.map((c) => c.reason)).toEqual(['dead', 'respawn']);
    expect(errors).toEqual([]);
  }, 120_000);
});
