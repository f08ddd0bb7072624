/**
 * The terminal client walks across the border of two zones in one process: `move` to a spot
 * in the zone beside goes on over the line, the client says the zone changed, and the
 * character stands in the other zone where it was sent, never corrected.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { twoZoneData } from '../helpers/border.js';
import { sleep, startWorldServer } from '../helpers/game-client.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the terminal client at a border', () => {
  it('walks into the zone beside with move, and says so', async () => {
    const dataDir = twoZoneData();
    const world = await startWorldServer({ DATA_DIR: dataDir });
    try {
      const args = [
        '--port',
        String(world.server.tcpPort),
        '--user',
        'crosser',
        '--password',
        'pw-crosser-1',
      ];
      const child = spawn(process.execPath, ['--import', 'tsx', 'tools/client.ts', ...args, '--register'], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      try {
        // Westmark's players start at 560,300; Eastmark begins at x 600.
        child.stdin.write('move 700 300\n');
        for (let i = 0; !stdout.includes('Arrived at 700,300'); i++) {
          if (i > 500) throw new Error(`the client never arrived:\n${stdout}`);
          await sleep(20);
        }
        child.stdin.write('where\n');
        child.stdin.end();
        expect(await exited, stdout).toBe(0);
        expect(stdout).toContain('You are in Eastmark now.');
        expect(stdout).toContain('You are at 700,300 in Eastmark');
        expect(stdout).not.toMatch(/corrected|Blocked/i);
      } finally {
        clearTimeout(timer);
        child.kill('SIGKILL');
      }
    } finally {
      await world.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
