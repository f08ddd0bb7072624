/**
 * The server's modules import in one direction: no cycle among them; the roles (server/roles)
 * are composed by main.ts alone; main.ts reads the configuration and starts a role, holding
 * no game or cluster policy of its own; the cluster layer knows nothing of the roles built
 * on it; and the world and the store stand on nothing else of the server's.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVER = resolve(import.meta.dirname, '../../server');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Each module's value imports and re-exports of the server's own modules, as paths under server/. */
const graph = new Map(
  files(SERVER).map((file) => {
    const text = readFileSync(file, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'(\.[^']+)'/gms)) {
      const target = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
      if (target.startsWith(SERVER)) deps.push(relative(SERVER, target));
    }
    return [relative(SERVER, file), deps] as const;
  }),
);

/** The first folder of a module's path (`main.ts` and the other top files stand for themselves). */
const layer = (path: string) => path.split('/')[0]!;

function importers(of: (path: string) => boolean): string[] {
  return [...graph].filter(([, deps]) => deps.some(of)).map(([from]) => from);
}

/**
 * The server's layers, lowest first: a module imports only from its own folder and from
 * layers below it. Folders on one layer know nothing of each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['config.ts', 'secret.ts', 'log.ts'],
  ['world', 'store', 'transport', 'cluster'],
  ['outbox', 'lab', 'metrics'],
  ['zone', 'session'],
  ['dispatch', 'gateway'],
  ['roles'],
  ['main.ts'],
];

describe('server layering', () => {
  it('imports only from layers below (world and store at the bottom, main.ts at the top)', () => {
    const rank = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as const)));
    const unplaced = [...new Set([...graph.keys()].map(layer))].filter((l) => !rank.has(l));
    expect(unplaced, 'every folder and top file has a layer').toEqual([]);
    const upward = [...graph].flatMap(([from, deps]) =>
      deps
        .filter((d) => layer(d) !== layer(from) && rank.get(layer(d))! >= rank.get(layer(from))!)
        .map((d) => `${from} -> ${d}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
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
  });

  it('composes the roles in main.ts alone, one module per role', () => {
    expect(importers((d) => layer(d) === 'roles').filter((f) => layer(f) !== 'roles')).toEqual(['main.ts']);
    expect([...graph.keys()].filter((f) => layer(f) === 'roles').sort()).toEqual(
      expect.arrayContaining(['roles/both.ts', 'roles/gateway.ts', 'roles/zone-host.ts']),
    );
  });

  it('keeps main.ts to configuration and starting a role', () => {
    const reached = new Set(graph.get('main.ts')!.map(layer));
    for (const policy of ['world', 'store', 'zone', 'gateway', 'session', 'dispatch', 'transport']) {
      expect(reached, `main.ts imports server/${policy}`).not.toContain(policy);
    }
  });

  it('builds the cluster layer, the world and the store on nothing above them', () => {
    const above = ['roles', 'main.ts', 'gateway', 'zone', 'session', 'dispatch'];
    for (const low of ['cluster', 'world', 'store']) {
      const wrong = [...graph]
        .filter(([from]) => layer(from) === low)
        .flatMap(([from, deps]) =>
          deps.filter((d) => above.includes(layer(d))).map((d) => `${from} -> ${d}`),
        );
      expect(wrong, low).toEqual([]);
    }
    for (const pure of ['world', 'store']) {
      const reach = [...graph]
        .filter(([from]) => layer(from) === pure)
        .flatMap(([, deps]) => deps.map(layer).filter((l) => l !== pure));
      expect(reach, pure).toEqual([]);
    }
  });
});
