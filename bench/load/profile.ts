/** The functions that took the most self time in a V8 .cpuprofile (node --cpu-prof). */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

export interface HotFunction {
  name: string;
  where: string;
  selfPercent: number;
}

/**
 * The `limit` functions with the most self time in a profile. With `busyOnly`, shares are of
 * the time the thread was busy ((idle) left out): the profile covers the whole run, waits
 * between ticks included.
 */
export function topFunctions(file: string, limit = 20, busyOnly = false): HotFunction[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples?: number[] };
  const hits = new Map<number, number>();
  for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byFunction = new Map<string, { name: string; where: string; hits: number }>();
  let all = 0;
  for (const node of profile.nodes) {
    const h = hits.get(node.id) ?? node.hitCount ?? 0;
    if (h === 0 || (busyOnly && node.callFrame.functionName === '(idle)')) continue;
    all += h;
    const cf = node.callFrame;
    const where = cf.url
      ? `${cf.url.replace(/^file:\/\/.*?\/(server|shared|node_modules)\//, '$1/')}:${cf.lineNumber + 1}`
      : '';
    const key = `${cf.functionName}@${where}`;
    const entry = byFunction.get(key) ?? { name: cf.functionName || '(anonymous)', where, hits: 0 };
    entry.hits += h;
    byFunction.set(key, entry);
  }
  return [...byFunction.values()]
    .sort((a, b) => b.hits - a.hits)
    .slice(0, limit)
    .map((e) => ({
      name: e.name,
      where: e.where,
      selfPercent: Math.round((e.hits / Math.max(1, all)) * 1000) / 10,
    }));
}
