/**
 * A page opened over plain http from another machine is not a secure context: the browser
 * hides crypto.subtle, which the SRP library hashes with. The client installs a digest in
 * its place, so register and login must still work there. The "other machine" is a host
 * name Chromium resolves to 127.0.0.1 (only localhost counts as secure over http).
 * Needs /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, ensureClientBuilt, launchBrowser, type Browser } from '../helpers/browser.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';

const HOST = 'wyvern-lan.test';
const WAIT_MS = 30_000;

const skip = !chromiumAvailable();
if (skip)
  console.warn('insecure-login e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');

describe.skipIf(skip)('logging in from a page served over plain http to another host', () => {
  let world: WorldServer;
  let browser: Browser;

  beforeAll(async () => {
    const dist = await ensureClientBuilt();
    world = await startWorldServer({ WEB_ROOT: dist });
    browser = await launchBrowser({ args: [`--host-resolver-rules=MAP ${HOST} 127.0.0.1`] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.stop();
  });

  it('registers, logs in with SRP and enters the world without crypto.subtle', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://${HOST}:${world.server.httpPort}/`);
    await page.waitForSelector('input[name=account]', { timeout: WAIT_MS });
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);

    await page.fill('input[name=account]', 'lanplayer');
    await page.fill('input[name=password]', 'over-plain-http');
    await page.click('button[name=register]');
    await page.waitForSelector('input[name=name]', { timeout: WAIT_MS });
    await page.fill('input[name=name]', 'Lanny');
    await page.click('button[name=create]');
    await page.click('li:has-text("Lanny") button[name=play]', { timeout: WAIT_MS });
    await page.waitForFunction(
      () => {
        const w = (window as unknown as { __wyvern: { screen: string; self?: unknown } }).__wyvern;
        return w.screen === 'world' && w.self !== undefined;
      },
      null,
      { timeout: WAIT_MS },
    );
    expect(errors).toEqual([]);
    // The server saw a real SRP login for that account, not a fallback.
    const account = await world.server.store.findAccount('lanplayer');
    expect(account?.name).toBe('lanplayer');
    await page.close();
  });
});
