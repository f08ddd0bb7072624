/**
 * Write-path floor: what the server's send path costs with no game in it.
 *
 *   npx tsx bench/floor.ts [--steps 500,1000,1500,2000] [--bytes 85] [--tick-rate 20]
 *       [--inputs 2.6] [--hold 20] [--cores 0,1 | --no-pin]
 *
 * A writer process pinned to one core accepts N TCP connections through the server's own
 * transport (server/transport/tcp.ts: the same Connection, append buffer, commit and
 * FlushScheduler the server uses) and, every tick, appends one frame of --bytes bytes to each
 * connection and flushes them all: one socket write per client per tick, as the server does.
 * A reader process pinned to the other core holds the N connections, reads everything and
 * sends each connection --inputs small frames a second (the bots' movement rate), which the
 * writer reads and drops.
 *
 * The writer's CPU over --hold seconds is the floor under the server's CPU at that N on this
 * machine: the kernel's loopback send (which also runs the receiving side's TCP stack in the
 * sender's time slice) and node's stream write, per write, with no world, interest or
 * encoding. bench:load's server CPU less this floor is what the game itself costs.
 *
 * Writes bench/results/floor-<date>.{json,md}. Every connection is to 127.0.0.1; every child
 * is killed on exit, error or Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HEADER_SIZE } from '../shared/codec/frame.js';
import type { ConnectionInput } from '../server/transport/connection.js';
import { FlushScheduler } from '../server/transport/flush.js';
import { listenTcp } from '../server/transport/tcp.js';
import { IpcChild, killChildrenOnExit, pinned, sleep, TASKSET } from './load/children.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench/results');
const SELF = fileURLToPath(import.meta.url);
/** The opcode written: any server-to-client opcode; the reader never decodes. */
const OPCODE = 0x0201;

interface Measure {
  cpuMs: number;
  wallMs: number;
  bytes: number;
  writes: number;
  reads: number;
}

// ---------------------------------------------------------------------------------------------
// Writer child: the server's transport, one frame per connection per tick.

async function writer(bytes: number, tickRate: number): Promise<void> {
  const scheduler = new FlushScheduler();
  const conns = new Set<import('../server/transport/connection.js').Connection>();
  let reads = 0;
  const listening = await listenTcp({
    host: '127.0.0.1',
    port: 0,
    listener: {
      open(conn): ConnectionInput {
        conns.add(conn);
        return {
          data: () => void reads++,
          violation: () => {},
          slowConsumer: () => conn.close('slow'),
          closed: () => void conns.delete(conn),
        };
      },
    },
    connection: { limits: { softLimit: 64 * 1024, hardLimit: 1024 * 1024 }, scheduler },
  });
  const payload = new Uint8Array(Math.max(0, bytes - HEADER_SIZE)).fill(0x5a);
  let writes = 0;
  let sent = 0;
  const interval = 1000 / tickRate;
  let next = performance.now() + interval;
  const tick = () => {
    for (const conn of conns) {
      const out = conn.out;
      out.u16(HEADER_SIZE + payload.length);
      out.u16(OPCODE);
      out.u16(0);
      out.raw(payload);
      if (conn.commit()) {
        writes++;
        sent += HEADER_SIZE + payload.length;
      }
    }
    scheduler.flushAll();
    next += interval;
    setTimeout(tick, Math.max(0, next - performance.now()));
  };
  setTimeout(tick, interval);

  let mark: { cpu: NodeJS.CpuUsage; wall: number; sent: number; writes: number; reads: number } | undefined;
  process.on('message', (msg: { id: number; op: string }) => {
    if (msg.op === 'port') process.send!({ id: msg.id, port: listening.port });
    else if (msg.op === 'count') process.send!({ id: msg.id, count: conns.size });
    else if (msg.op === 'mark') {
      mark = { cpu: process.cpuUsage(), wall: performance.now(), sent, writes, reads };
      process.send!({ id: msg.id });
    } else if (msg.op === 'measure' && mark) {
      const cpu = process.cpuUsage(mark.cpu);
      const m: Measure = {
        cpuMs: (cpu.user + cpu.system) / 1000,
        wallMs: performance.now() - mark.wall,
        bytes: sent - mark.sent,
        writes: writes - mark.writes,
        reads: reads - mark.reads,
      };
      process.send!({ id: msg.id, ...m });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Reader child: N connections that read everything and send a little.

async function reader(port: number, count: number, inputsPerSecond: number): Promise<void> {
  const sockets: net.Socket[] = [];
  let received = 0;
  const input = new Uint8Array(20).fill(0x11);
  for (let i = 0; i < count; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.setNoDelay(true);
    s.on('data', (b: Buffer) => void (received += b.length));
    s.on('error', () => {});
    sockets.push(s);
    await new Promise<void>((r) => s.once('connect', () => r()));
  }
  // Every 10 ms, the connections whose turn it is send one input: inputsPerSecond each on average.
  let credit = 0;
  let at = 0;
  const timer = setInterval(() => {
    credit += (sockets.length * inputsPerSecond) / 100;
    while (credit >= 1) {
      credit -= 1;
      sockets[at]!.write(input);
      at = (at + 1) % sockets.length;
    }
  }, 10);
  let mark: { cpu: NodeJS.CpuUsage; wall: number; received: number } | undefined;
  process.on('message', (msg: { id: number; op: string }) => {
    if (msg.op === 'ready') process.send!({ id: msg.id, count: sockets.length });
    else if (msg.op === 'mark') {
      mark = { cpu: process.cpuUsage(), wall: performance.now(), received };
      process.send!({ id: msg.id });
    } else if (msg.op === 'measure' && mark) {
      const cpu = process.cpuUsage(mark.cpu);
      process.send!({
        id: msg.id,
        cpuMs: (cpu.user + cpu.system) / 1000,
        wallMs: performance.now() - mark.wall,
        bytes: received - mark.received,
      });
    } else if (msg.op === 'stop') {
      clearInterval(timer);
      for (const s of sockets) s.destroy();
      process.send!({ id: msg.id });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Parent.

interface Step {
  n: number;
  writerCpuPercent: number;
  writerCpuPercentPerClient: number;
  microsPerWrite: number;
  writesPerSecond: number;
  bytesPerClientPerSecond: number;
  readerCpuPercent: number;
  readerBytesPerSecond: number;
}

function child(core: number | undefined, args: string[]): IpcChild {
  const [cmd, cmdArgs] = pinned(core, ['--import', 'tsx', SELF, ...args]);
  return new IpcChild(spawn(cmd, cmdArgs, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: '500,1000,1500,2000' },
      bytes: { type: 'string', default: '85' },
      'tick-rate': { type: 'string', default: '20' },
      inputs: { type: 'string', default: '2.6' },
      hold: { type: 'string', default: '20' },
      cores: { type: 'string', default: '0,1' },
      'no-pin': { type: 'boolean', default: false },
      child: { type: 'string' },
      port: { type: 'string' },
      count: { type: 'string' },
    },
  });
  const bytes = Number(values.bytes);
  const tickRate = Number(values['tick-rate']);
  const inputs = Number(values.inputs);
  if (values.child === 'writer') return writer(bytes, tickRate);
  if (values.child === 'reader') return reader(Number(values.port), Number(values.count), inputs);

  killChildrenOnExit('bench:floor');
  const steps = values.steps.split(',').map(Number);
  const hold = Number(values.hold);
  const pin = !values['no-pin'] && existsSync(TASKSET) && cpus().length >= 2;
  const [writerCore, readerCore] = pin ? values.cores.split(',').map(Number) : [undefined, undefined];
  if (!(bytes >= HEADER_SIZE && bytes <= 65535) || !(tickRate > 0) || steps.some((n) => !(n > 0)))
    throw new Error('bad arguments: --bytes 6..65535, --tick-rate > 0, --steps positive counts');

  const results: Step[] = [];
  for (const n of steps) {
    const w = child(writerCore, [
      '--child',
      'writer',
      '--bytes',
      String(bytes),
      '--tick-rate',
      String(tickRate),
    ]);
    const { port } = await w.request<{ port: number }>({ op: 'port' }, 30_000);
    const r = child(readerCore, [
      '--child',
      'reader',
      '--port',
      String(port),
      '--count',
      String(n),
      '--inputs',
      String(inputs),
    ]);
    await r.request({ op: 'ready' }, 120_000);
    // The reader is connected once the kernel accepted; the writer's accept callbacks may lag.
    for (let tries = 0; ; tries++) {
      const { count } = await w.request<{ count: number }>({ op: 'count' }, 10_000);
      if (count === n) break;
      if (tries === 50) throw new Error(`the writer holds ${count} connections, not ${n}`);
      await sleep(100);
    }
    await sleep(3000);
    await Promise.all([w.request({ op: 'mark' }), r.request({ op: 'mark' })]);
    await sleep(hold * 1000);
    const [wm, rm] = await Promise.all([
      w.request<Measure>({ op: 'measure' }),
      r.request<{ cpuMs: number; wallMs: number; bytes: number }>({ op: 'measure' }),
    ]);
    await r.request({ op: 'stop' }, 30_000);
    await Promise.all([r.stop('SIGKILL', 5000), w.stop('SIGKILL', 5000)]);
    const s = wm.wallMs / 1000;
    const step: Step = {
      n,
      writerCpuPercent: (100 * wm.cpuMs) / wm.wallMs,
      writerCpuPercentPerClient: (100 * wm.cpuMs) / wm.wallMs / n,
      microsPerWrite: (wm.cpuMs * 1000) / Math.max(1, wm.writes),
      writesPerSecond: wm.writes / s,
      bytesPerClientPerSecond: wm.bytes / s / n,
      readerCpuPercent: (100 * rm.cpuMs) / rm.wallMs,
      readerBytesPerSecond: rm.bytes / (rm.wallMs / 1000),
    };
    results.push(step);
    console.log(
      `N=${n}: writer ${step.writerCpuPercent.toFixed(1)}% of a core (${step.microsPerWrite.toFixed(2)} µs per write, ` +
        `${step.writesPerSecond.toFixed(0)} writes/s, ${step.bytesPerClientPerSecond.toFixed(0)} B/s per client); ` +
        `reader ${step.readerCpuPercent.toFixed(1)}%` +
        (step.readerCpuPercent > 85 ? ' — the reader was the limit' : ''),
    );
  }

  const date = new Date().toISOString();
  const stamp = date.replace(/:/g, '-').replace(/\..*/, '');
  mkdirSync(RESULTS, { recursive: true });
  const base = join(RESULTS, `floor-${stamp}`);
  const setup = {
    date,
    cpu: cpus()[0]?.model,
    node: process.version,
    pinned: pin,
    bytes,
    tickRate,
    inputs,
    hold,
  };
  writeFileSync(`${base}.json`, JSON.stringify({ setup, results }, null, 2) + '\n');
  const rows = results.map(
    (r) =>
      `| ${r.n} | ${r.writerCpuPercent.toFixed(1)} | ${r.writerCpuPercentPerClient.toFixed(4)} | ${r.microsPerWrite.toFixed(2)} | ` +
      `${r.writesPerSecond.toFixed(0)} | ${r.bytesPerClientPerSecond.toFixed(0)} | ${r.readerCpuPercent.toFixed(1)}${r.readerCpuPercent > 85 ? ' (reader was the limit)' : ''} |`,
  );
  writeFileSync(
    `${base}.md`,
    [
      '# Wyvern write-path floor',
      '',
      `- date: ${date}`,
      `- machine: ${cpus().length} x ${setup.cpu}, node ${process.version}`,
      `- ${pin ? `writer pinned to core ${writerCore}, reader to core ${readerCore} (taskset)` : 'not pinned'}`,
      `- one ${bytes}-byte frame per connection per tick at ${tickRate} Hz through the server's TCP Connection and FlushScheduler; the reader sends ${inputs} 20-byte inputs per connection per second`,
      '',
      '| N | writer CPU % of core | per client | µs per write (CPU) | writes/s | B/s per client | reader CPU % |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
  console.log(`wrote ${base}.json, .md`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
