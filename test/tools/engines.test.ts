/**
 * The Node.js the README asks for is the one package.json declares, and every package the
 * lockfile installs accepts it: `npm install` on that Node warns of no unsupported engine.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface Lock {
  packages: Record<string, { version?: string; engines?: Record<string, string> | string[] }>;
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;

/** "Node.js 20.19 or newer" in the quick start, as a full version. */
function readmeNode(): string {
  const m = /Node\.js (\d+)\.(\d+)(?:\.(\d+))? or newer/.exec(readme);
  if (!m) throw new Error('README names no "Node.js X.Y or newer"');
  return `${m[1]}.${m[2]}.${m[3] ?? 0}`;
}

describe('the supported Node.js', () => {
  it('is the same in README and package.json', () => {
    expect(semver.minVersion(pkg.engines.node)?.version).toBe(readmeNode());
  });

  it('is accepted by every package in package-lock.json', () => {
    const node = readmeNode();
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const range = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
        return range && !semver.satisfies(node, range) ? [`${path}@${entry.version}: node ${range}`] : [];
      });
    expect(refused).toEqual([]);
  });
});
