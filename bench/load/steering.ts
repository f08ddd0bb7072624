/**
 * Receive flow steering on the loopback device, for the load benchmark.
 *
 * On loopback a send does the receiver's TCP work too: the packet is handed to the receive
 * path on the sending CPU, in the sender's system call, so a server writing to 2,000 bots
 * pays for their receive processing as well as its own sends, which it would not on a real
 * network (there the clients' machines do it). Receive Flow Steering (RFS) hands each packet
 * to the CPU where the socket that reads it last ran: the bots' core for their sockets, the
 * server's for its own. Each side then pays for what it receives, as over a wire.
 *
 * Needs write access to /proc/sys/net/core and /sys/class/net/lo (root in the container);
 * the previous settings are put back afterwards.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const FILES = {
  flowEntries: '/proc/sys/net/core/rps_sock_flow_entries',
  flowCount: '/sys/class/net/lo/queues/rx-0/rps_flow_cnt',
  cpus: '/sys/class/net/lo/queues/rx-0/rps_cpus',
} as const;

type Settings = Record<keyof typeof FILES, string>;

function read(): Settings {
  return {
    flowEntries: readFileSync(FILES.flowEntries, 'utf8').trim(),
    flowCount: readFileSync(FILES.flowCount, 'utf8').trim(),
    cpus: readFileSync(FILES.cpus, 'utf8').trim(),
  };
}

function write(s: Settings): void {
  writeFileSync(FILES.flowEntries, s.flowEntries);
  writeFileSync(FILES.flowCount, s.flowCount);
  writeFileSync(FILES.cpus, s.cpus);
}

/**
 * Turns RFS on for loopback across `cores`; returns a function that restores what was
 * there, or throws with the reason it cannot.
 */
export function steerLoopbackReceives(cores: readonly number[]): () => void {
  const before = read();
  const mask = cores.reduce((m, c) => m | (1 << c), 0).toString(16);
  write({ flowEntries: '32768', flowCount: '32768', cpus: mask });
  const now = read();
  if (parseInt(now.cpus, 16) !== parseInt(mask, 16)) {
    write(before);
    throw new Error(`rps_cpus did not take ${mask} (reads ${now.cpus})`);
  }
  return () => write(before);
}
