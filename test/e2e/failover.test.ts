/**
 * The browser client when its gateway is killed, in headless Chromium against a real cluster
 * (a nats-server, one zone host and two gateway processes): the page, served by gateway a,
 * says the connection is lost, resumes with its token on gateway b (from the gateway list a's
 * /healthz gave while it was up) and is back in the world where it stood. It walks again with
 * the keyboard and chats; a player on gateway b sees all of it and never saw it leave.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatMessage } from '../../shared/protocol/index.js';
import {
  chromiumAvailable,
  ensureClientBuilt,
  holdKey as walk,
  launchBrowser,
  registerAndPlay,
  standing,
  until as waitUntil,
  type Browser,
  type WyvernWindow,
} from '../helpers/browser.js';
import { startGameClient, type GameClient } from '../helpers/game-client.js';
import { natsServerAvailable, startNatsServer, type NatsServer } from '../helpers/nats.js';
import {
  GATEWAY_UP,
  spawnRole,
  startRole,
  TEST_DATA,
  zoneHostUp,
  type RoleProcess,
} from '../cluster/roles.js';

const WAIT_MS = 30_000;
const skip = !chromiumAvailable() || !natsServerAvailable();
if (skip) console.warn('failover e2e skipped: it needs Chromium at /usr/bin/chromium and nats-server');

const view = (page: Page) =>
  page.evaluate(() => {
    const w = (window as unknown as WyvernWindow).__wyvern;
    return { screen: w.screen, self: w.self, notices: w.notices, chat: w.chat };
  });

/** Polls `check` every 50 ms until it gives a value; fails with `what` after WAIT_MS. */
const until = <T>(what: string, check: () => Promise<T | undefined>) => waitUntil(what, check, WAIT_MS, 50);

describe.skipIf(skip)('the browser client when its gateway is killed', () => {
  let nats: NatsServer;
  let dir: string;
  const roles: RoleProcess[] = [];
  let gatewayA: RoleProcess;
  let urlA: string;
  let watcher: GameClient;
  let browser: Browser;

  beforeAll(async () => {
    await ensureClientBuilt();
    nats = await startNatsServer();
    dir = mkdtempSync(join(tmpdir(), 'wyvern-failover-'));
    const common = {
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'cluster.db')}`,
      DATA_DIR: TEST_DATA,
      LOG_LEVEL: 'warn',
      SRP_WORKERS: '1',
      SHUTDOWN_TIMEOUT_MS: '2000',
      WYVERN_SECRET: '00112233445566778899aabbccddeeff',
      NATS_URL: nats.url,
      LEASE_TTL_MS: '3000',
      LINGER_MS: '10000',
    };
    const host = spawnRole({ ...common, ROLE: 'zone-host', NODE_ID: 'zh-a' }, zoneHostUp('zh-a'));
    roles.push(host);
    await host.up;
    const [a, b] = await Promise.all(
      ['a', 'b'].map((id) => startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: id }, GATEWAY_UP)),
    );
    roles.push(a!, b!);
    gatewayA = a!;
    urlA = `http://127.0.0.1:${a!.ready[1]}/`;
    watcher = await startGameClient(
      { httpPort: Number(b!.ready[1]), tcpPort: Number(b!.ready[2]) },
      { transport: 'tcp', name: 'Watcher' },
    );
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    watcher?.close();
    await browser?.close();
    await Promise.all(roles.map((r) => r.stop()));
    await nats?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('resumes on the other gateway where it stood, walks and chats there; the watcher never sees it leave', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(urlA);
    await registerAndPlay(page, 'runner', 'Runner', { timeoutMs: WAIT_MS });
    const id = await until('in the world', async () => {
      const v = await view(page);
      return v.screen === 'world' ? v.self?.id : undefined;
    });
    // The page has asked its gateway for the cluster's gateways by now (on connecting).
    await walk(page, 'ArrowRight', 500);
    const stood = await standing(page);
    await until('the watcher sees the runner', async () => watcher.client.world.get(id));
    const since = watcher.log.mark();

    const killed = performance.now();
    await gatewayA.kill();
    await until('the loss said on the page', async () =>
      (await view(page)).notices.some((n) => n.startsWith('Connection lost')) ? true : undefined,
    );
    // Back in the world: the own character where it stood, the page's own gateway gone, and
    // the page says so (no "Reconnecting" left standing).
    await until('back in the world through gateway b', async () => {
      const v = await view(page);
      return v.screen === 'world' && v.self && v.notices.includes('Reconnected.') ? true : undefined;
    });
    expect((await view(page)).notices.filter((n) => /Connection lost|Reconnecting/.test(n))).toEqual([]);
    const backMs = Math.round(performance.now() - killed);
    const back = (await view(page)).self!;
    expect(back.id).toBe(id);
    expect(Math.hypot(back.x - stood.x, back.y - stood.y)).toBeLessThan(1);

    // It walks with the keyboard again, and the watcher on b sees it move.
    await walk(page, 'ArrowDown', 500);
    const moved = await standing(page);
    expect(moved.y).toBeGreaterThan(stood.y + 20);
    await until('the watcher sees the walk', async () => {
      const e = watcher.client.world.get(id);
      return e && Math.abs(e.y - moved.y) < 1 ? true : undefined;
    });
    // Chat both ways.
    await page.keyboard.press('Enter');
    await page.keyboard.type('still here');
    await page.keyboard.press('Enter');
    await watcher.log.expect(ChatMessage, { since, predicate: (m) => m.text === 'still here' });
    watcher.client.say('welcome back');
    await until('the page hears the watcher', async () =>
      (await view(page)).chat.some((c) => c.text === 'welcome back') ? true : undefined,
    );
    // The watcher never saw the runner leave.
    expect(watcher.log.records('despawn', (r) => r.id === id, since)).toEqual([]);
    expect(errors).toEqual([]);
    console.log(`failover: gateway killed -> page back in the world in ${backMs} ms`);
  }, 90_000);
});
