/**
 * The rooms stay small: no class over 300 lines and no function over 60 in the cluster
 * layer, the two roles' rooms, the outbox, the session handlers and the browser app's rooms,
 * measured by the same code as `npm run shape`.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS, measureSource, measureTree, report } from '../../tools/shape/measure.js';

const ROOT = resolve(import.meta.dirname, '../..');

const ROOMS = [
  'server/zone',
  'server/gateway',
  'server/cluster',
  'server/roles',
  'server/outbox',
  'server/session',
  'web-client/src/app.ts',
  'web-client/src/app',
];

/**
 * Spans let over the limits, each with why: `file:name` as the report prints them, e.g.
 * `['server/zone/x.ts:Big.method', 'why it cannot be split yet']`. An entry that no longer
 * needs to be here fails the test too, so the list only shrinks. Empty: every room keeps to
 * its size.
 */
const ALLOWED: ReadonlyMap<string, string> = new Map<string, string>([]);

describe('shape measurement', () => {
  const source = [
    '/** A doc comment is not counted. */',
    'export class Box {',
    '  constructor(readonly n: number) {}',
    '  get double() {',
    '    return this.n * 2;',
    '  }',
    '  each(xs: number[]) {',
    '    return xs.map((x) => {',
    '      return x + this.n;',
    '    });',
    '  }',
    '}',
    'const handlers = {',
    '  hello: () => 1,',
    '  bye() {',
    '    return 2;',
    '  },',
    '};',
    'export function outer() {',
    '  function inner() {}',
    '  return inner;',
    '}',
  ].join('\n');

  it('names each class and function and counts its lines from its first token to its last', () => {
    const shape = measureSource('box.ts', source);
    expect(shape.lines).toBe(22);
    expect(shape.classes).toEqual([{ name: 'Box', file: 'box.ts', line: 2, lines: 11 }]);
    expect(shape.functions.map((f) => [f.name, f.line, f.lines])).toEqual([
      ['Box.constructor', 3, 1],
      ['Box.get double', 4, 3],
      ['Box.each', 7, 5],
      ['Box.each.map(…) callback', 8, 3],
      ['handlers.hello', 14, 1],
      ['handlers.bye', 15, 3],
      ['outer', 19, 4],
      ['outer.inner', 20, 1],
    ]);
  });

  it('reports what is over the limits, largest first', () => {
    const shape = measureSource('box.ts', source);
    const r = report([shape], { fileLines: 20, classLines: 10, functionLines: 3 });
    expect(r.bigFiles).toEqual([{ file: 'box.ts', lines: 22 }]);
    expect(r.bigClasses.map((c) => c.name)).toEqual(['Box']);
    expect(r.bigFunctions.map((f) => f.name)).toEqual(['Box.each', 'outer']);
    expect(r.largestFunction?.name).toBe('Box.each');
  });
});

describe('the rooms keep to their size', () => {
  const shape = report(measureTree(ROOT, ROOMS));
  const over = [...shape.bigClasses, ...shape.bigFunctions].map(
    (s) => `${s.file}:${s.name} (${s.lines} lines, line ${s.line})`,
  );
  const key = (entry: string) => entry.replace(/ \(.*$/, '');

  it('measures the rooms', () => {
    expect(shape.files).toBeGreaterThan(50);
  });

  it(`has no class over ${LIMITS.classLines} lines and no function over ${LIMITS.functionLines}`, () => {
    expect(over.filter((entry) => !ALLOWED.has(key(entry)))).toEqual([]);
  });

  it('allows only what is still over', () => {
    const still = new Set(over.map(key));
    expect([...ALLOWED.keys()].filter((k) => !still.has(k))).toEqual([]);
  });
});
