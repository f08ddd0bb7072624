/**
 * Compares two V8 heap snapshots (e.g. bench/memory.ts --snapshots 250,1000): objects
 * grouped by kind and constructor (closures by function name, strings and arrays by kind),
 * with the growth in count and in self size, largest first, and per player when the number
 * of players added is given.
 *
 *   npx tsx bench/memory/heapdiff.ts A.heapsnapshot B.heapsnapshot [--players 750] [--top 40]
 *
 * Self size only (what the object itself holds, not what it keeps alive): a Map's table is
 * its own "system / OrderedHashMap" entry, a Buffer's bytes are off the heap (external).
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface Group {
  count: number;
  size: number;
}

/** Count and self size by "kind name" over every node of a snapshot. */
export function groups(path: string): Map<string, Group> {
  const s = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const fType = fields.indexOf('type');
  const fName = fields.indexOf('name');
  const fSize = fields.indexOf('self_size');
  const out = new Map<string, Group>();
  const nodes = s.nodes;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + fType]!] ?? '?';
    let name = s.strings[nodes[i + fName]!] ?? '?';
    // Strings and numbers are named by their value: group them by kind alone.
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'number')
      name = '';
    else if (name.length > 60) name = `${name.slice(0, 57)}...`;
    const key = `${type} ${name}`;
    const g = out.get(key);
    const size = nodes[i + fSize]!;
    if (g) {
      g.count++;
      g.size += size;
    } else out.set(key, { count: 1, size });
  }
  return out;
}

function main(argv: readonly string[]): void {
  const files: string[] = [];
  let players = 0;
  let top = 40;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--players') players = Number(argv[++i]);
    else if (a === '--top') top = Number(argv[++i]);
    else files.push(a);
  }
  if (files.length !== 2) {
    process.stderr.write('usage: heapdiff A.heapsnapshot B.heapsnapshot [--players N] [--top 40]\n');
    process.exit(2);
  }
  const a = groups(files[0]!);
  const b = groups(files[1]!);
  const rows: { key: string; count: number; size: number }[] = [];
  for (const [key, g] of b) {
    const was = a.get(key) ?? { count: 0, size: 0 };
    rows.push({ key, count: g.count - was.count, size: g.size - was.size });
  }
  for (const [key, g] of a) if (!b.has(key)) rows.push({ key, count: -g.count, size: -g.size });
  rows.sort((x, y) => y.size - x.size);
  const total = rows.reduce((s, r) => s + r.size, 0);
  const per = (v: number) => (players > 0 ? (v / players).toFixed(1) : '');
  process.stdout.write(
    `self size growth ${(total / 1024).toFixed(0)} KB${players > 0 ? `, ${(total / players / 1024).toFixed(2)} KB per player` : ''}\n\n`,
  );
  process.stdout.write(
    `${'Δ KB'.padStart(10)} ${'Δ count'.padStart(9)} ${'B/player'.padStart(9)} ${'n/player'.padStart(9)}  kind name\n`,
  );
  for (const r of rows.slice(0, top)) {
    process.stdout.write(
      `${(r.size / 1024).toFixed(0).padStart(10)} ${String(r.count).padStart(9)} ${per(r.size).padStart(9)} ${per(r.count).padStart(9)}  ${r.key}\n`,
    );
  }
}

main(process.argv.slice(2));
