/**
 * The browser client's layout, read from its sources: Pixi is imported only under render/,
 * the page's wiring (app.ts and app/) loads without Pixi (so it runs in node, where these
 * tests run), no module imports itself round a cycle, and the wiring keeps to small rooms.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../web-client/src');
const MAX_FUNCTION_LINES = 60;
const MAX_CLASS_LINES = 300;

interface Module {
  /** Path under web-client/src. */
  path: string;
  source: ts.SourceFile;
  /** Static imports: what they name (a path under web-client/src, or a package) and whether only types. */
  imports: { target: string; typeOnly: boolean }[];
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly);
}

function read(file: string): Module {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const imports: Module['imports'] = [];
  for (const node of source.statements) {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) || !node.moduleSpecifier) continue;
    const spec = (node.moduleSpecifier as ts.StringLiteral).text;
    const target = spec.startsWith('.')
      ? relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      : spec;
    imports.push({ target, typeOnly: typeOnly(node) });
  }
  return { path: relative(SRC, file), source, imports };
}

const modules = new Map(sources(SRC).map((f) => [relative(SRC, f), read(f)]));

/** Everything `path` loads when it is loaded (static value imports, followed through). */
function loads(path: string, seen = new Set<string>()): Set<string> {
  for (const i of modules.get(path)?.imports ?? []) {
    if (i.typeOnly || seen.has(i.target)) continue;
    seen.add(i.target);
    loads(i.target, seen);
  }
  return seen;
}

/** Functions and classes of `m` longer than the limits, as "file name lines". */
function oversized(m: Module): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const isClass = ts.isClassDeclaration(node);
    const isFunction = ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
    if (isClass || isFunction) {
      const first = m.source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = m.source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const named = (node as { name?: ts.Node }).name;
      if (lines > (isClass ? MAX_CLASS_LINES : MAX_FUNCTION_LINES))
        found.push(`${m.path} ${named ? named.getText() : `(line ${first + 1})`} ${lines}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(m.source);
  return found;
}

const wiring = [...modules.keys()].filter((p) => p === 'app.ts' || p.startsWith('app/'));

describe('the browser client’s layout', () => {
  it('imports Pixi only under render/', () => {
    const outside = [...modules.values()]
      .filter((m) => !m.path.startsWith('render/'))
      .filter((m) => m.imports.some((i) => i.target === 'pixi.js'))
      .map((m) => m.path);
    expect(outside).toEqual([]);
  });

  it('loads the page’s wiring without Pixi (the renderer comes in as a parameter)', () => {
    expect(wiring).toContain('app/connection-manager.ts');
    const reach = wiring.filter((p) => loads(p).has('pixi.js'));
    expect(reach).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (path: string, trail: string[]): void => {
      if (state.get(path) === 'done' || !modules.has(path)) return;
      if (state.get(path) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(path)), path].join(' -> '));
        return;
      }
      state.set(path, 'open');
      for (const i of modules.get(path)!.imports) walk(i.target, [...trail, path]);
      state.set(path, 'done');
    };
    for (const path of modules.keys()) walk(path, []);
    expect(cycles).toEqual([]);
  });

  it(`keeps the page’s wiring to functions of at most ${MAX_FUNCTION_LINES} lines and classes of ${MAX_CLASS_LINES}`, () => {
    expect(wiring.flatMap((p) => oversized(modules.get(p)!))).toEqual([]);
  });
});
