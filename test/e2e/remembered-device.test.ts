/**
 * The browser is a remembered device: after a login it keeps the account's device token in
 * localStorage, and while one wrong password from each of 12 addresses has the account
 * locked, the same browser logs in with the right password; another browser (another
 * profile, a device the account never logged in from) is told to wait. Needs /usr/bin/chromium.
 */
import net from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { WyvernError } from '../../shared/client/errors.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import {
  chromiumAvailable,
  ensureClientBuilt,
  launchBrowser,
  screen,
  type Browser,
} from '../helpers/browser.js';
import { startWorldServer, type WorldServer } from '../helpers/game-client.js';

const WAIT_MS = 30_000;
const ACCOUNT = 'devowner';
const PASSWORD = 'owner-of-this-device';

const skip = !chromiumAvailable();
if (skip)
  console.warn('remembered-device e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)');

/** One wrong password for ACCOUNT over TCP from `localAddress`: the refusal's code. */
async function guess(port: number, localAddress: string, i: number): Promise<string> {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress }, () => resolve(s));
    s.once('error', reject);
  });
  const client = new WyvernClient(new TcpTransport(socket), { requestTimeoutMs: 20_000 });
  try {
    await client.hello({ clientKind: 'bot', clientName: 'guesser' });
    await client.login(ACCOUNT, `guess number ${i}`);
    return 'OK';
  } catch (err) {
    if (!(err instanceof WyvernError)) throw err;
    return err.code;
  } finally {
    client.close();
  }
}

async function logIn(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('input[name=account]', { timeout: WAIT_MS });
  await page.fill('input[name=account]', ACCOUNT);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[name=login]');
}

describe.skipIf(skip)('a browser that logged in before', () => {
  let world: WorldServer;
  let owners: Browser;
  let stranger: Browser;

  beforeAll(async () => {
    const dist = await ensureClientBuilt();
    world = await startWorldServer({ WEB_ROOT: dist });
    owners = await launchBrowser();
    stranger = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await owners?.close();
    await stranger?.close();
    await world?.stop();
  });

  it('keeps its device token and logs in while guessing from many addresses locks the account', async () => {
    const url = `http://127.0.0.1:${world.server.httpPort}/`;
    const first = await owners.newPage();
    await first.goto(url);
    await first.waitForSelector('input[name=account]', { timeout: WAIT_MS });
    await first.fill('input[name=account]', ACCOUNT);
    await first.fill('input[name=password]', PASSWORD);
    await first.click('button[name=register]');
    await first.waitForSelector('input[name=name]', { timeout: WAIT_MS });
    const kept = await first.evaluate((key) => localStorage.getItem(key), `wyvern.device.${ACCOUNT}`);
    expect(kept).toMatch(/^[0-9a-f]{64}$/);
    await first.close();

    const codes: string[] = [];
    for (let i = 0; i < 12; i++) codes.push(await guess(world.server.tcpPort, `127.0.3.${i + 1}`, i));
    expect(codes.slice(0, 10)).toEqual(Array<string>(10).fill('ERR_BAD_LOGIN'));
    expect(codes.slice(10)).toEqual(['ERR_LOGIN_THROTTLED', 'ERR_LOGIN_THROTTLED']);

    // Another browser, with the right password, is a new device: it waits.
    const strange = await stranger.newPage();
    await logIn(strange, url);
    await strange.waitForSelector('p.status:has-text("Too many failed logins")', { timeout: WAIT_MS });
    expect(await screen(strange)).toBe('login');

    // The owner's browser (a new tab: no session to resume) logs in.
    const again = await owners.newPage();
    await logIn(again, url);
    await again.waitForSelector('input[name=name]', { timeout: WAIT_MS });
    expect(await screen(again)).toBe('characters');
    // The token was renewed by that login.
    const renewed = await again.evaluate((key) => localStorage.getItem(key), `wyvern.device.${ACCOUNT}`);
    expect(renewed).toMatch(/^[0-9a-f]{64}$/);
    expect(renewed).not.toBe(kept);
  }, 120_000);
});
