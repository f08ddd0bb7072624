/**
 * The fuzz and soak scripts' command lines: --help prints the usage and exits 0; an unknown
 * option or an unusable value says what is wrong, prints the usage and exits 2. Neither
 * starts a run (nothing here would end within the test's time if one did).
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

function run(script: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A stack frame line, as node prints an uncaught error. */
const STACK = /^\s+at /m;

describe.each([
  ['fuzz', 'tools/fuzz.ts', '--concurrency', '0'],
  ['soak', 'tools/soak.ts', '--bots', '0'],
])('npm run %s', (tool, script, option, badValue) => {
  it('prints its usage and exits 0 on --help', () => {
    for (const flag of ['--help', '-h']) {
      const r = run(script, flag);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`Usage: npm run ${tool} --`);
      expect(r.stdout).toContain(option);
      expect(r.stderr).not.toMatch(STACK);
    }
  });

  it('names an unknown option, prints the usage and exits 2', () => {
    const r = run(script, '--no-such-option');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${tool}: `);
    expect(r.stderr).toContain('--no-such-option');
    expect(r.stderr).toContain(`Usage: npm run ${tool} --`);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).toBe('');
  });

  it('refuses an unusable value with the usage and exit 2', () => {
    const r = run(script, option, badValue);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${option} "${badValue}"`);
    expect(r.stderr).toContain(`Usage: npm run ${tool} --`);
    expect(r.stderr).not.toMatch(STACK);
  });
});
