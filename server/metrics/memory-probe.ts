/**
 * The memory benchmark's probe (bench/memory.ts): off unless the process is started with
 * WYVERN_MEMORY_PROBE=1 *and* an IPC channel (a child spawned with 'ipc' in its stdio), so
 * nothing on the network can reach it. Orders arrive as IPC messages:
 *
 *   { id, type: 'memory' }                 -> { id, type: 'memory', gc, usage, spaces }
 *       a full GC first when node runs with --expose-gc (gc: true), then process.memoryUsage()
 *       and each V8 heap space's size and use (the young generation grows under load to
 *       tens of MB and stays: a fixed cost, not a per-player one)
 *   { id, type: 'heapsnapshot', path }     -> { id, type: 'heapsnapshot', path }
 *       v8.writeHeapSnapshot(path) (it runs a full GC itself); blocks the process for seconds
 *
 * /metrics reads memory without a GC, so garbage of any age is counted with what is live;
 * a GC before each reading is what makes readings at different N comparable.
 */
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

export type ProbeOrder = { id: number; type: 'memory' } | { id: number; type: 'heapsnapshot'; path: string };

export type ProbeReply =
  | { id: number; type: 'memory'; gc: boolean; usage: NodeJS.MemoryUsage; spaces: HeapSpace[] }
  | { id: number; type: 'heapsnapshot'; path: string }
  | { id: number; type: 'error'; message: string };

export interface HeapSpace {
  name: string;
  /** Bytes reserved for the space. */
  size: number;
  /** Bytes of live objects in it. */
  used: number;
}

/** A full collection, twice: the first may leave finalizers' garbage for the second. */
function collect(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

function answer(order: ProbeOrder): ProbeReply {
  switch (order.type) {
    case 'memory': {
      const gc = collect();
      const spaces = getHeapSpaceStatistics().map((x) => ({
        name: x.space_name,
        size: x.space_size,
        used: x.space_used_size,
      }));
      return { id: order.id, type: 'memory', gc, usage: process.memoryUsage(), spaces };
    }
    case 'heapsnapshot':
      return { id: order.id, type: 'heapsnapshot', path: writeHeapSnapshot(order.path) };
  }
}

/** Installs the probe when enabled (see above); true when it is listening. */
export function installMemoryProbe(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.WYVERN_MEMORY_PROBE !== '1' || !process.send) return false;
  process.on('message', (order: ProbeOrder) => {
    if (typeof order !== 'object' || order === null || typeof order.id !== 'number') return;
    let reply: ProbeReply;
    try {
      reply = answer(order);
    } catch (e) {
      reply = { id: order.id, type: 'error', message: (e as Error).message };
    }
    process.send?.(reply);
  });
  // The IPC channel must not keep the server alive once everything else has stopped.
  process.channel?.unref();
  return true;
}
