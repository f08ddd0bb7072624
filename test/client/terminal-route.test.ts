/**
 * The terminal client against a real server: it finds its way round a wall to a mob it cannot
 * see from where it stands, its cast lands, and what it prints reads right (health after a
 * hit, a cooldown only when a cast is refused for it, a whisper to itself once, an empty /say
 * explained).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, startWorldServer, type WorldServer } from '../helpers/game-client.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TEST_DATA = fileURLToPath(new URL('../../data/test', import.meta.url));

/**
 * One zone: the player starts at 150,400; a wall from y 280 to 520 at x 250-270 stands
 * between it and a lone Meadow Wolf that wanders about 360,400.
 */
function walledData(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wyvern-route-'));
  cpSync(TEST_DATA, dir, { recursive: true });
  rmSync(join(dir, 'zones'), { recursive: true });
  mkdirSync(join(dir, 'zones'));
  writeFileSync(
    join(dir, 'zones', 'walled.json'),
    JSON.stringify({
      name: 'Walled',
      number: 1,
      x: 0,
      y: 0,
      width: 800,
      height: 800,
      playerSpawn: { x: 150, y: 400 },
      graveyard: { x: 100, y: 700 },
      obstacles: [{ x: 250, y: 280, w: 20, h: 240 }],
      spawns: [{ template: 1, x: 360, y: 400, count: 1 }],
    }),
  );
  return dir;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Runs the client with `args`, feeding it `steps` one by one, each once its `after` line is out. */
async function play(
  world: WorldServer,
  user: string,
  steps: { after?: RegExp; send: string }[],
  extra: string[] = [],
): Promise<string> {
  const args = [
    '--port',
    String(world.server.tcpPort),
    '--user',
    user,
    '--password',
    `pw-${user}-1`,
    ...extra,
  ];
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/client.ts', ...args, '--register'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  cleanups.push(() => {
    clearTimeout(timer);
    child.kill('SIGKILL');
  });
  for (const step of steps) {
    for (let i = 0; step.after && !step.after.test(stdout); i++) {
      if (i > 1000 || child.exitCode !== null) throw new Error(`never saw ${step.after}:\n${stdout}`);
      await sleep(20);
    }
    child.stdin.write(`${step.send}\n`);
  }
  child.stdin.end();
  expect(await exited, stdout).toBe(0);
  return stdout;
}

describe('the terminal client finding its way', () => {
  it('walks round a wall to a mob behind it, and its cast lands', async () => {
    const dir = walledData();
    const world = await startWorldServer({ DATA_DIR: dir });
    cleanups.push(async () => {
      await world.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const out = await play(world, 'router', [
      { after: /Meadow Wolf \(lvl \d, mob #\d+\) appears at/, send: 'target nearest' },
      { after: /^Target: /m, send: 'move target' },
      { after: /^Arrived at /m, send: 'cast 1' },
      { after: /^Your Fireball (hits|failed)/m, send: 'where' },
    ]);
    // Picked though behind the wall (the only one), with the walk round it.
    expect(out).toMatch(/^Target: Meadow Wolf .* away \(behind a wall: a \d+-unit walk\)$/m);
    // Round the wall's end, never into it.
    expect(out).toMatch(/^Walking to \d+,\d+ around a wall \(\d turns?, \d+ units\)$/m);
    expect(out).not.toMatch(/Blocked|corrected|out of sight|out of range/);
    expect(out).toMatch(/^You begin casting Fireball at Meadow Wolf \(1\.5 s\)$/m);
    expect(out).toMatch(/^Your Fireball hits Meadow Wolf for \d+/m);
    // It stands past an end of the wall (rounded), where it could see the wolf.
    const [, x, y] = /^You are at (\d+),(\d+) in Walled/m.exec(out)!;
    expect(Number(y) <= 280 - 8 || Number(y) >= 520 + 8 || Number(x) >= 270 + 8, out).toBe(true);
  });

  it('says health after a hit, a cooldown only when refused for it, a self-whisper once, and why an empty /say was not sent', async () => {
    const dir = walledData();
    const world = await startWorldServer({ DATA_DIR: dir });
    cleanups.push(async () => {
      await world.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const out = await play(world, 'speaker', [
      { after: /^Entered Walled as Speaker/m, send: '/say' },
      { send: '/say   ' },
      { send: '/w Speaker a note to self' },
      { after: /Meadow Wolf \(lvl \d, mob #\d+\) appears at/, send: 'target nearest' },
      { after: /^Target: /m, send: 'move target' },
      // Arcane Shot: instant, 6 s cooldown. The second is refused for it.
      { after: /^Arrived at /m, send: 'cast 3' },
      { after: /^You cast Arcane Shot/m, send: 'cast 3' },
      // The wolf, hit, comes to bite.
      { after: /^Meadow Wolf hits you for/m, send: 'where' },
    ]);
    expect(out).toContain('Nothing sent: /say needs something to say (/say TEXT).\n');
    expect(out.match(/Nothing sent: \/say/g)).toHaveLength(2);
    expect(out.match(/a note to self/g)).toEqual(['a note to self']);
    expect(out).toContain('[whisper to yourself] a note to self\n');
    expect(out).toMatch(/^You cast Arcane Shot at Meadow Wolf$/m);
    expect(out).not.toContain('on cooldown');
    expect(out).toMatch(/^Arcane Shot is not ready yet: ready again in [56]\.\d s$/m);
    const [, hp, max] = /^Meadow Wolf hits you for \d+ \((\d+)\/(\d+) hp\)$/m.exec(out)!;
    expect(Number(max)).toBe(200);
    expect(Number(hp)).toBeLessThan(200);
    // `where` says the same health the last hit did.
    expect(out).toMatch(new RegExp(`^You are at \\d+,\\d+ in Walled \\(${hp}/200 hp`, 'm'));
  });
});
