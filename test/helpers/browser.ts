/**
 * Headless Chromium for end-to-end tests: Debian's /usr/bin/chromium driven by
 * playwright-core, a fresh profile in a temp dir per launch, a tiny static file server for
 * the built client (web-client/dist), and `ensureClientBuilt` for a checkout that has not
 * built it yet. WebGL runs on SwiftShader (software), so Pixi renders without a GPU.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLIENT_DIST = join(REPO_ROOT, 'web-client/dist');

export const CHROMIUM_PATH = process.env['WYVERN_CHROMIUM'] ?? '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** Flags that make Chromium run headless here and give it WebGL through SwiftShader. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Extra Chromium flags (for example --host-resolver-rules). */
  args?: string[];
  viewport?: { width: number; height: number };
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'wyvern-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
      viewport: options.viewport ?? { width: 1280, height: 800 },
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

export interface StaticServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `root` on 127.0.0.1 at an ephemeral port; unknown paths get index.html. */
export async function serveStatic(root: string): Promise<StaticServer> {
  const base = resolve(root);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      let file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      const s = await stat(file).catch(() => undefined);
      if (!s || s.isDirectory()) file = join(base, 'index.html');
      try {
        const body = await readFile(file);
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** A lock older than this is left over from a killed build and is taken over. */
const STALE_BUILD_LOCK_MS = 5 * 60_000;

/** The newest modification time (ms) of the files under `dir`. */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether the built client is older than what it is built from (a test run on its own after an edit). */
function staleBuild(index: string): boolean {
  const built = statSync(index).mtimeMs;
  return ['web-client/src', 'shared'].some((dir) => newestUnder(join(REPO_ROOT, dir)) > built);
}

/**
 * Makes sure web-client/dist holds a built client, built from the sources as they are. `npm
 * test` builds before the tests run, so this normally finds a fresh index.html and returns;
 * when a test file is run on its own in a fresh checkout, or after an edit, it builds once.
 * Test files run in parallel workers: a lock directory (mkdir is atomic) lets one of them
 * build while the others wait for it.
 */
export async function ensureClientBuilt(timeoutMs = 120_000): Promise<string> {
  const index = join(CLIENT_DIST, 'index.html');
  const lock = join(
    tmpdir(),
    `wyvern-client-build-${createHash('sha1').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`,
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(index) && !existsSync(lock) && !staleBuild(index)) return CLIENT_DIST;
    if (takeLock(lock)) {
      try {
        if (!existsSync(index) || staleBuild(index)) {
          execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], { cwd: REPO_ROOT, stdio: 'inherit' });
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      if (!existsSync(index)) throw new Error('vite build produced no web-client/dist/index.html');
      return CLIENT_DIST;
    }
    if (Date.now() > deadline) throw new Error(`gave up waiting for another build of the client (${lock})`);
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_BUILD_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Distinct colours among sampled pixels of a PNG screenshot, decoded by the page itself. */
export async function distinctColours(page: Page, png: Buffer): Promise<number> {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d') as CanvasRenderingContext2D;
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < data.length; i += 4 * 97) {
      seen.add(((data[i] as number) << 16) | ((data[i + 1] as number) << 8) | (data[i + 2] as number));
    }
    return seen.size;
  }, png.toString('base64'));
}

/** Polls `check` every `everyMs` until it returns a value (not undefined); fails with `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((ok) => setTimeout(ok, everyMs));
  }
}

// ---- the page's test hook -------------------------------------------------------------

export interface HookBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** An entity as window.__wyvern.entities has it: drawn where x, y; the newest server state at serverX, serverY. */
export interface HookEntity {
  id: number;
  kind: 'player' | 'mob';
  name: string;
  level: number;
  x: number;
  y: number;
  serverX: number;
  serverY: number;
  health: number;
  maxHealth: number;
  alive: boolean;
}

/** The own character as window.__wyvern.self has it (drawn position). */
export interface HookSelf {
  id: number;
  name: string;
  x: number;
  y: number;
  health: number;
  maxHealth: number;
  alive: boolean;
  level: number;
  experience: number;
  experienceNeeded: number;
}

/** window.__wyvern: what the page exposes to tests (web-client/src/app/test-view.ts, exposeForTests). */
export interface WyvernHook {
  screen: string;
  selfId: number | undefined;
  self: HookSelf | undefined;
  levelUps: { entityId: number; level: number }[];
  entities: HookEntity[];
  targetId: number | undefined;
  castBars: { casterId: number; spellId: number; targetId: number; progress: number }[];
  combatTexts: { targetId: number; amount: number; kind: string; crit: boolean }[];
  chat: { channel: string; from: string; to: string; text: string }[];
  notices: string[];
  sounds: string[];
  muted: boolean;
  clearBox: HookBox;
  zoom: number;
  corrections: { reason: string; x: number; y: number }[];
  stats: Record<string, number>;
  framesRendered: number;
  renderer: string;
  screenPosition(id: number): { x: number; y: number } | undefined;
  labelBoxes: (HookBox & { id: number; text: string })[];
  minimapBox: HookBox | undefined;
  respawnIn: number | undefined;
}

/** The page's window as tests see it (`window as unknown as WyvernWindow` in page.evaluate). */
export interface WyvernWindow {
  __wyvern: WyvernHook;
}

/** The own character as the page draws it now (undefined out of the world). */
export function self(page: Page): Promise<HookSelf | undefined> {
  return page.evaluate(() => (window as unknown as WyvernWindow).__wyvern.self);
}

/** The screen the page shows: 'login', 'characters', 'world', ... */
export function screen(page: Page): Promise<string> {
  return page.evaluate(() => (window as unknown as WyvernWindow).__wyvern.screen);
}

/** Until the page is in the world with its own character drawn (also after a reload). */
export async function inWorld(page: Page, timeoutMs: number): Promise<void> {
  await page.waitForFunction(
    () => {
      // Undefined until the (re)loaded page's script has run.
      const w = (window as unknown as Partial<WyvernWindow>).__wyvern;
      return w?.screen === 'world' && w.self !== undefined;
    },
    null,
    { timeout: timeoutMs },
  );
}

/** Until the own character has stood still for half a second: its position then. */
export async function standing(page: Page): Promise<{ x: number; y: number }> {
  let last = (await self(page))!;
  for (let still = 0; still < 5;) {
    await new Promise((ok) => setTimeout(ok, 100));
    const now = (await self(page))!;
    still = now.x === last.x && now.y === last.y ? still + 1 : 0;
    last = now;
  }
  return { x: last.x, y: last.y };
}

// ---- playing as a person does ---------------------------------------------------------

/**
 * On the login screen: registers `account` (password `<account>-password`; registration, then
 * an SRP login, both computed in the page) and waits for the character screen.
 */
export async function register(page: Page, account: string, timeoutMs: number): Promise<void> {
  await page.waitForSelector('input[name=account]', { timeout: timeoutMs });
  await page.fill('input[name=account]', account);
  await page.fill('input[name=password]', `${account}-password`);
  await page.click('button[name=register]');
  await page.waitForSelector('input[name=name]', { timeout: timeoutMs });
}

/**
 * On the character screen: creates `character` (with `appearance` when given) and presses
 * its Play button. The caller waits for the world as it needs (inWorld).
 */
export async function createAndPlay(
  page: Page,
  character: string,
  options: { appearance?: number; timeoutMs: number },
): Promise<void> {
  await page.fill('input[name=name]', character);
  if (options.appearance !== undefined) {
    await page.selectOption('select[name=appearance]', String(options.appearance));
  }
  await page.click('button[name=create]');
  await page.click(`li:has-text("${character}") button[name=play]`, { timeout: options.timeoutMs });
}

/** register, then createAndPlay. The caller waits for the world as it needs (inWorld). */
export async function registerAndPlay(
  page: Page,
  account: string,
  character: string,
  options: { appearance?: number; timeoutMs: number },
): Promise<void> {
  await register(page, account, options.timeoutMs);
  await createAndPlay(page, character, options);
}

/** Opens `url`, registers `account`, plays a new `character` and waits until it is in the world. */
export async function enterWorld(
  page: Page,
  url: string,
  account: string,
  character: string,
  options: { appearance?: number; timeoutMs: number },
): Promise<void> {
  await page.goto(url);
  await registerAndPlay(page, account, character, options);
  await inWorld(page, options.timeoutMs);
}

/** Holds `key` down for `ms`, as a player walks. */
export async function holdKey(page: Page, key: string, ms: number): Promise<void> {
  await page.keyboard.down(key);
  await new Promise((ok) => setTimeout(ok, ms));
  await page.keyboard.up(key);
}

/** Types a line into the chat box with the keyboard and sends it. */
export async function say(page: Page, line: string): Promise<void> {
  await page.keyboard.press('Enter');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

/** Holds the arrow keys that point from `from` toward `to` (axes within `slack` are let go). */
export async function steer(
  page: Page,
  held: Set<string>,
  from: { x: number; y: number } | undefined,
  to: { x: number; y: number },
  slack = 12,
): Promise<void> {
  const want = new Set<string>();
  if (from) {
    if (to.x - from.x > slack) want.add('ArrowRight');
    if (from.x - to.x > slack) want.add('ArrowLeft');
    if (to.y - from.y > slack) want.add('ArrowDown');
    if (from.y - to.y > slack) want.add('ArrowUp');
  }
  for (const k of held) if (!want.has(k)) await page.keyboard.up(k);
  for (const k of want) if (!held.has(k)) await page.keyboard.down(k);
  held.clear();
  for (const k of want) held.add(k);
}
