/**
 * Reloading the page mid-game, in headless Chromium against the real server: the tab resumes
 * its session with the token it kept in sessionStorage and is back in the world where it stood,
 * with its target, without the password; a second page watching never saw the character
 * leave. A token the server refuses sends the tab to the login screen with the reason.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  ensureClientBuilt,
  enterWorld as enter,
  inWorld,
  launchBrowser,
  standing,
  type Browser,
  type WyvernWindow,
} from '../helpers/browser.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';

const WAIT_MS = 30_000;

const skip = !chromiumAvailable();
if (skip) console.warn('resume e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');

type Wyvern = WyvernWindow & { __missing?: number; __watch?: number };

const enterWorld = (page: Page, url: string, account: string, character: string) =>
  enter(page, url, account, character, { timeoutMs: WAIT_MS });

const view = (page: Page) =>
  page.evaluate(() => {
    const w = (window as unknown as Wyvern).__wyvern;
    return { screen: w.screen, self: w.self, entities: w.entities, targetId: w.targetId };
  });

describe.skipIf(skip)('reloading the page mid-game', () => {
  let world: WorldServer;
  let browser: Browser;
  /** The watcher's own browser: a page in a background tab of the same one is throttled. */
  let other: Browser;
  let url: string;

  beforeAll(async () => {
    const dist = await ensureClientBuilt();
    world = await startWorldServer({ WEB_ROOT: dist, LINGER_MS: '5000' });
    url = `http://127.0.0.1:${world.server.httpPort}/`;
    browser = await launchBrowser();
    other = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await other?.close();
    await world?.stop();
  });

  it('comes back in the world at the same place without the password; a watcher never saw it leave', async () => {
    const a = await browser.newPage();
    const b = await other.newPage();
    const errors: string[] = [];
    a.on('pageerror', (e) => errors.push(e.message));
    await enterWorld(a, url, 'reloader', 'Reloader');
    await enterWorld(b, url, 'watcher', 'Watcher');
    const aId = (await view(a)).self!.id;
    await b.waitForFunction(
      (id) => (window as unknown as Wyvern).__wyvern.entities.some((e) => e.id === id),
      aId,
      { timeout: WAIT_MS },
    );
    // B counts every sample in which A is missing from its view.
    await b.evaluate((id) => {
      const w = window as unknown as Wyvern;
      w.__missing = 0;
      w.__watch = window.setInterval(() => {
        if (!w.__wyvern.entities.some((e) => e.id === id)) w.__missing!++;
      }, 10);
    }, aId);

    // A walks east a little, stops and picks a target (Tab: the nearest in view).
    await a.keyboard.down('KeyD');
    await new Promise((ok) => setTimeout(ok, 500));
    await a.keyboard.up('KeyD');
    const before = await standing(a);
    expect(before.x).toBeGreaterThan(105);
    await a.keyboard.press('Tab');
    const target = (await view(a)).targetId;
    expect(target).toBeDefined();

    const started = performance.now();
    await a.reload();
    await inWorld(a, WAIT_MS);
    const ms = performance.now() - started;
    console.log(`browser reload -> back in the world: ${ms.toFixed(0)} ms`);

    const after = await view(a);
    expect(after.self!.id).toBe(aId);
    expect(Math.abs(after.self!.x - before.x)).toBeLessThan(1);
    expect(Math.abs(after.self!.y - before.y)).toBeLessThan(1);
    // Its view is whole again (the watcher in it), and the target is selected again.
    await a.waitForFunction(
      (id) => (window as unknown as Wyvern).__wyvern.entities.some((e) => e.id === id),
      (await view(b)).self!.id,
      { timeout: WAIT_MS },
    );
    expect((await view(a)).targetId).toBe(target);
    expect(await a.$('input[name=password]')).toBeNull();

    const missing = await b.evaluate(() => {
      const w = window as unknown as Wyvern;
      window.clearInterval(w.__watch);
      return w.__missing;
    });
    expect(missing).toBe(0);
    expect((await view(b)).entities.some((e) => e.id === aId)).toBe(true);
    expect(errors).toEqual([]);
    await b.close();
  }, 120_000);

  it('falls back to the login screen with the reason when the token is refused', async () => {
    const c = await browser.newPage();
    await enterWorld(c, url, 'refused', 'Refused');
    await c.evaluate(() => {
      const saved = JSON.parse(sessionStorage.getItem('wyvern.session')!) as { token: string };
      sessionStorage.setItem('wyvern.session', JSON.stringify({ ...saved, token: '00'.repeat(32) }));
    });
    await c.reload();
    await c.waitForSelector('input[name=password]', { timeout: WAIT_MS });
    expect(await c.textContent('p.status')).toContain('could not be resumed');
    expect(await c.evaluate(() => sessionStorage.getItem('wyvern.session'))).toBeNull();
    await c.close();
  }, 60_000);
});
