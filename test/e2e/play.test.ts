/**
 * Two players in headless Chromium against the real server (in-process, ephemeral ports,
 * a fresh SQLite database, the short-timer test data): each page registers its own account,
 * creates a character and enters the world near the spawn. A walks and B sees A arrive where
 * A says it stands; A walks up to a mob, targets it and casts a damage spell with a cast
 * time, and B shows A's cast bar and the damage. B's screenshot goes to
 * test-results/e2e-observer.png. Every wait is on a condition, with room for a slow machine.
 * Needs /usr/bin/chromium (apt-get install chromium).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  steer,
  REPO_ROOT,
  chromiumAvailable,
  distinctColours,
  ensureClientBuilt,
  launchBrowser,
  registerAndPlay,
  until as waitUntil,
  type Browser,
} from '../helpers/browser.js';
import { segmentBlocked } from '../../shared/game/movement.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';

const results = join(REPO_ROOT, 'test-results');
const WAIT_MS = 30_000;
/** A spell's reach in data/test/spells.json is 220-240; stay well inside it. */
const CAST_DISTANCE = 170;

const skip = !chromiumAvailable();
if (skip) console.warn('play e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');

/** The part of window.__wyvern these tests read. */
interface View {
  screen: string;
  self: { id: number; x: number; y: number; alive: boolean } | undefined;
  entities: {
    id: number;
    kind: 'player' | 'mob';
    name: string;
    x: number;
    y: number;
    serverX: number;
    serverY: number;
    alive: boolean;
  }[];
  targetId: number | undefined;
  castBars: { casterId: number; spellId: number; targetId: number }[];
  combatTexts: { targetId: number; amount: number; kind: 'damage' | 'heal' }[];
  notices: string[];
  framesRendered: number;
  stats: { correctedMoves: number };
}

function view(page: Page): Promise<View> {
  return page.evaluate(() => {
    const w = (window as unknown as { __wyvern: View }).__wyvern;
    return {
      screen: w.screen,
      self: w.self,
      entities: w.entities,
      targetId: w.targetId,
      castBars: w.castBars,
      combatTexts: w.combatTexts,
      notices: w.notices,
      framesRendered: w.framesRendered,
      stats: { correctedMoves: w.stats.correctedMoves },
    };
  });
}

const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = WAIT_MS) =>
  waitUntil(what, check, timeoutMs);

interface Player {
  page: Page;
  /** Console errors and uncaught exceptions on the page. */
  errors: string[];
}

/** Opens the game, registers `account`, creates `character` and plays it. */
async function enterWorld(
  browser: Browser,
  url: string,
  account: string,
  character: string,
): Promise<Player> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url);
  await registerAndPlay(page, account, character, { timeoutMs: WAIT_MS });
  await page.waitForFunction(
    () => {
      const w = (window as unknown as { __wyvern: View }).__wyvern;
      return w.screen === 'world' && w.self !== undefined;
    },
    null,
    { timeout: WAIT_MS },
  );
  return { page, errors };
}

const distance = (a: { x: number; y: number }, b: { x: number; y: number }) =>
  Math.hypot(a.x - b.x, a.y - b.y);

describe.skipIf(skip)('two players in the browser against the live server', () => {
  let world: WorldServer;
  let browser: Browser;
  let url: string;
  let a: Player;
  let b: Player;

  beforeAll(async () => {
    const dist = await ensureClientBuilt();
    mkdirSync(results, { recursive: true });
    // A wide interest radius keeps A and B in each other's view wherever A walks to fight.
    world = await startWorldServer({ WEB_ROOT: dist, INTEREST_RADIUS: '600' });
    url = `http://127.0.0.1:${world.server.httpPort}/`;
    browser = await launchBrowser();
    [a, b] = await Promise.all([
      enterWorld(browser, url, 'e2e_alice', 'Ayla'),
      enterWorld(browser, url, 'e2e_bob', 'Bram'),
    ]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.stop();
  });

  it('shows each player the other, and the mobs where the server has them', async () => {
    const [va, vb] = await Promise.all([view(a.page), view(b.page)]);
    expect(vb.entities.some((e) => e.id === va.self?.id && e.kind === 'player')).toBe(true);
    expect(va.entities.some((e) => e.id === vb.self?.id && e.kind === 'player')).toBe(true);
    const zone = [...world.server.realm.zones.values()][0]!.world;
    // Mobs walk path records: B's idea of where each one is now agrees with the world's.
    await until('every mob on B stands where the server has it', async () => {
      const seen = (await view(b.page)).entities.filter((e) => e.kind === 'mob');
      const observed = [...zone.mobs.values()].filter((m) => m.observers.has(vb.self!.id));
      const ok =
        observed.length > 0 &&
        seen.length === observed.length &&
        seen.every((e) => {
          const m = zone.mobs.get(e.id);
          return !!m && distance({ x: e.serverX, y: e.serverY }, m) < 20;
        });
      return ok ? true : undefined;
    });
  }, 60_000);

  it("moves A and B's view follows A to where A stands", async () => {
    const start = (await view(a.page)).self!;
    await a.page.keyboard.down('KeyD');
    await a.page.keyboard.down('KeyS');
    await until('A has walked 80 units', async () => {
      const me = (await view(a.page)).self!;
      return distance(me, start) > 80 ? true : undefined;
    });
    await a.page.keyboard.up('KeyD');
    await a.page.keyboard.up('KeyS');
    const seen = await until("B draws A where A's page has it", async () => {
      const [va, vb] = await Promise.all([view(a.page), view(b.page)]);
      const me = va.self!;
      const there = vb.entities.find((e) => e.id === me.id);
      return there && distance(there, me) < 2 ? { me, there } : undefined;
    });
    expect(distance(seen.me, start)).toBeGreaterThan(80);
    // On a clean link the server agrees with every predicted step: nothing is corrected.
    expect((await view(a.page)).stats.correctedMoves).toBe(0);
  }, 60_000);

  it("A casts a damage spell at a mob; B shows A's cast bar and the damage", async () => {
    const aId = (await view(a.page)).self!.id;
    // Walk up to the nearest living mob in sight (spells need a clear line past the walls;
    // mobs wander, so steer again on every look).
    const obstacles = [...world.server.realm.zones.values()][0]!.world.zone.obstacles;
    const inSight = (from: { x: number; y: number }, to: { x: number; y: number }) =>
      !segmentBlocked(from, to, obstacles, 0);
    const held = new Set<string>();
    /** Walks A into casting distance and sight of the mob (or the nearest one) and stops. */
    const approach = (wanted?: number) =>
      until(
        'A stands within casting distance of a mob in sight',
        async () => {
          const v = await view(a.page);
          const mobs = v.entities.filter((e) => e.kind === 'mob' && e.alive);
          mobs.sort((m, n) => distance(m, v.self!) - distance(n, v.self!));
          const mob = mobs.find((m) => m.id === wanted) ?? mobs.find((m) => inSight(v.self!, m)) ?? mobs[0];
          if (mob && distance(mob, v.self!) < CAST_DISTANCE && inSight(v.self!, mob)) {
            await steer(a.page, held, undefined, v.self!);
            return mob.id;
          }
          if (mob) await steer(a.page, held, v.self, mob);
          return undefined;
        },
        45_000,
      );

    // Fireball (key 1): a cast time, then a projectile. A wandering mob may leave range or
    // step behind a wall before the cast ends: then walk up to it again and cast again.
    let mobId = 0;
    const cast = await until(
      'B shows A casting and the mob taking damage',
      async () => {
        const before = await view(b.page);
        if (!before.castBars.some((c) => c.casterId === aId)) {
          mobId = await approach(mobId || undefined);
          // Tab cycles the mobs in view, nearest first (B, a player, only when no mob is in view).
          await until('A targets the mob', async () => {
            if ((await view(a.page)).targetId === mobId) return true;
            await a.page.keyboard.press('Tab');
            return undefined;
          });
          await a.page.keyboard.press('Digit1');
        }
        const bar = await until(
          "B shows A's cast bar",
          async () => (await view(b.page)).castBars.find((c) => c.casterId === aId),
          5_000,
        ).catch(() => undefined);
        if (!bar) return undefined;
        const hit = await until(
          'B shows damage on the mob',
          async () =>
            (await view(b.page)).combatTexts.find((c) => c.targetId === bar.targetId && c.kind === 'damage'),
          6_000,
        ).catch(() => undefined);
        return hit ? { bar, hit } : undefined;
      },
      60_000,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}; A's notices: ${JSON.stringify((await view(a.page)).notices.slice(-8))}`);
    });
    expect(cast.bar.spellId).toBe(1);
    expect(cast.bar.targetId).toBe(mobId);
    expect(cast.hit.amount).toBeGreaterThan(0);

    const png = await b.page.screenshot({ path: join(results, 'e2e-observer.png') });
    expect(await distinctColours(b.page, png)).toBeGreaterThan(20);
    const frames = (await view(b.page)).framesRendered;
    await until('B keeps drawing frames', async () =>
      (await view(b.page)).framesRendered > frames + 5 ? true : undefined,
    );
  }, 180_000);

  it('logs no errors in either page', () => {
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });
});
