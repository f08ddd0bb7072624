/**
 * npm run shape [-- PATH ...]
 *
 * Prints the source's shape against the targets the rooms are kept to (no class over about
 * 300 lines, no function over about 60): the files over 300 lines, every class over 300
 * lines and every function, method or arrow over 60 (name, file:line, lines), and the
 * largest class and function overall. It reads server/, shared/, web-client/src/, tools/ and
 * clients/sdk (when present) by default, or the paths given; tests and benchmarks are not
 * measured. Parse only, no type check (tools/shape/measure.ts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { LIMITS, measureTree, report, type Span } from './shape/measure.js';

const ROOT = resolve(import.meta.dirname, '..');
const DEFAULT_PATHS = ['server', 'shared', 'web-client/src', 'tools', 'clients/sdk'];

const args = process.argv.slice(2);
const paths = (args.length > 0 ? args : DEFAULT_PATHS).filter((p) => {
  if (existsSync(resolve(ROOT, p))) return true;
  if (args.length > 0) {
    console.error(`shape: no such path: ${p}`);
    process.exit(2);
  }
  return false;
});

const shape = report(measureTree(ROOT, paths));
const at = (s: Span) => `${s.file}:${s.line}`;
const table = (rows: readonly (readonly [string, string, number])[]) => {
  const w0 = Math.max(0, ...rows.map((r) => r[0].length));
  const w1 = Math.max(0, ...rows.map((r) => r[1].length));
  for (const [a, b, n] of rows) console.log(`  ${a.padEnd(w0)}  ${b.padEnd(w1)}  ${String(n).padStart(5)}`);
};

console.log(`measured ${shape.files} files under ${paths.join(', ')}`);
console.log(`\nfiles over ${LIMITS.fileLines} lines: ${shape.bigFiles.length}`);
table(shape.bigFiles.map((f) => [f.file, '', f.lines] as const));
console.log(`\nclasses over ${LIMITS.classLines} lines: ${shape.bigClasses.length}`);
table(shape.bigClasses.map((c) => [c.name, at(c), c.lines] as const));
console.log(`\nfunctions over ${LIMITS.functionLines} lines: ${shape.bigFunctions.length}`);
table(shape.bigFunctions.map((f) => [f.name, at(f), f.lines] as const));
console.log('');
for (const [what, s] of [
  ['largest class', shape.largestClass],
  ['largest function', shape.largestFunction],
] as const) {
  console.log(s ? `${what}: ${s.name} (${at(s)}), ${s.lines} lines` : `${what}: none`);
}
