/**
 * The world's modules call one another in one direction only (step.ts orders the systems;
 * no system calls back into another that calls it), and the world speaks of what happened,
 * never of packets: which packet says it is the replication writer's business.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../server/world');
const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
const source = new Map(files.map((f) => [f.replace(/\.ts$/, ''), readFileSync(join(DIR, f), 'utf8')]));

/** Value imports (not `import type`) of sibling modules. */
function siblings(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^import (?!type )[^;]*? from '\.\/([\w-]+)\.js';/gms)) out.push(m[1]!);
  return out;
}

describe('server/world layering', () => {
  it('has no import cycle among its modules', () => {
    const graph = new Map([...source].map(([name, text]) => [name, siblings(text)]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (name: string, path: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'open') {
        cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '));
        return;
      }
      state.set(name, 'open');
      for (const next of graph.get(name) ?? []) visit(next, [...path, name]);
      state.set(name, 'done');
    };
    for (const name of graph.keys()) visit(name, []);
    expect(cycles).toEqual([]);
    // The systems the step orders: combat does not reach into mob AI, nor mobs into interest.
    expect(graph.get('combat')).not.toContain('mobs');
    expect(graph.get('mobs')).not.toContain('interest');
  });

  it('names no packet: events are the world’s own vocabulary', () => {
    for (const [name, text] of source) {
      expect(text, `${name}.ts`).not.toMatch(/packet: '/);
      expect(text, `${name}.ts`).not.toMatch(/\b(toPlayer|toObservers|toZone)\(/);
    }
  });
});
