/**
 * The built client in headless Chromium: the demo world (canned packets through the real
 * decode -> state -> render path) is drawn on the canvas, with canvas 2D and with WebGL, and
 * a page on an insecure origin gets the crypto.subtle.digest polyfill SRP needs.
 * Screenshots land in test-results/. Needs /usr/bin/chromium (apt-get install chromium).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  chromiumAvailable,
  distinctColours,
  ensureClientBuilt,
  launchBrowser,
  serveStatic,
  type Browser,
  type StaticServer,
} from '../helpers/browser.js';

const results = join(REPO_ROOT, 'test-results');
const INSECURE_HOST = 'wyvern.test';

const skip = !chromiumAvailable();
if (skip) console.warn('render e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');

interface PageView {
  framesRendered: number;
  renderer: string;
  entities: { id: number; alive: boolean }[];
  screen: string;
}

async function view(page: Page): Promise<PageView> {
  return page.evaluate(() => {
    const w = (window as unknown as { __wyvern: PageView }).__wyvern;
    return { framesRendered: w.framesRendered, renderer: w.renderer, entities: w.entities, screen: w.screen };
  });
}

describe.skipIf(skip)('browser client in headless Chromium', () => {
  let server: StaticServer;
  let browser: Browser;

  beforeAll(async () => {
    // `npm test` has just built the client; run alone, this builds it if it was never built.
    const dist = await ensureClientBuilt();
    mkdirSync(results, { recursive: true });
    server = await serveStatic(dist);
    browser = await launchBrowser({ args: [`--host-resolver-rules=MAP ${INSECURE_HOST} 127.0.0.1`] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('draws the demo world: zone, entities, HUD (canvas 2D on a software GPU)', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/?demo&net`);
    await page.waitForFunction(
      () => {
        const w = (window as unknown as { __wyvern?: PageView }).__wyvern;
        return !!w && w.framesRendered > 20 && w.entities.length >= 6;
      },
      null,
      { timeout: 20_000 },
    );
    const v = await view(page);
    expect(v.screen).toBe('world');
    expect(v.entities.some((e) => !e.alive)).toBe(true);
    const png = await page.screenshot({ path: join(results, 'render-demo.png') });
    expect(await distinctColours(page, png)).toBeGreaterThan(20);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('renders the same scene with WebGL through SwiftShader', async () => {
    const page = await browser.newPage();
    // Software WebGL's cost grows with the pixels filled: a small window keeps this quick.
    await page.setViewportSize({ width: 480, height: 300 });
    await page.goto(`${server.url}/?demo&renderer=webgl&aa=0`);
    // Software WebGL draws only a few frames a second: a handful proves the pipeline.
    await page.waitForFunction(
      () => ((window as unknown as { __wyvern?: PageView }).__wyvern?.framesRendered ?? 0) >= 3,
      null,
      { timeout: 30_000 },
    );
    expect((await view(page)).renderer).toBe('webgl');
    const png = await page.screenshot({ path: join(results, 'render-demo-webgl.png') });
    expect(await distinctColours(page, png)).toBeGreaterThan(20);
    await page.close();
  });

  it('gives an insecure page a crypto.subtle.digest that hashes like Web Crypto', async () => {
    const page = await browser.newPage();
    const url = new URL(server.url);
    await page.goto(`http://${INSECURE_HOST}:${url.port}/?demo`);
    await page.waitForFunction(() => !!(window as unknown as { __wyvern?: unknown }).__wyvern, null, {
      timeout: 20_000,
    });
    const result = await page.evaluate(async () => {
      const hex = (b: ArrayBuffer) =>
        [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
      const abc = new TextEncoder().encode('abc');
      return {
        secure: window.isSecureContext,
        sha1: hex(await crypto.subtle.digest('SHA-1', abc)),
        sha256: hex(await crypto.subtle.digest('SHA-256', abc.buffer)),
        sha512: hex(await crypto.subtle.digest({ name: 'SHA-512' }, abc)).slice(0, 32),
      };
    });
    expect(result.secure).toBe(false);
    expect(result.sha1).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(result.sha256).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(result.sha512).toBe('ddaf35a193617abacc417349ae204131');
    await page.close();
  });
});
