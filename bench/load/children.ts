/**
 * The child processes of the benchmarks (a server, a bot swarm): started on free loopback
 * ports, waited for until /healthz answers, asked over IPC, and never left behind: every
 * adopted child is killed when the benchmark exits, fails or is interrupted.
 */
import type { ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const TASKSET = '/usr/bin/taskset';

/** The command that runs node on `core` (taskset execs node: the child's pid is node's). */
export function pinned(core: number | undefined, nodeArgs: string[]): [string, string[]] {
  if (core === undefined) return [process.execPath, nodeArgs];
  return [TASKSET, ['-c', String(core), process.execPath, ...nodeArgs]];
}

/** Kills the child with the benchmark (see killChildrenOnExit). */
export function adopt(proc: ChildProcess): ChildProcess {
  children.add(proc);
  return proc;
}

export function killChildren(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/** Exit, SIGINT and SIGTERM kill every adopted child; `label` names the benchmark on stderr. */
export function killChildrenOnExit(label: string): void {
  process.on('exit', killChildren);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      process.stderr.write(`${label}: ${sig}, stopping\n`);
      killChildren();
      process.exit(130);
    });
  }
}

export { freePort } from '../../tools/net/free-port.js';

/** Sends `signal`, waits up to `waitMs` for the exit, then SIGKILL. */
export async function stopChild(
  proc: ChildProcess,
  signal: NodeJS.Signals = 'SIGINT',
  waitMs = 15_000,
): Promise<void> {
  if (proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill(signal);
    await Promise.race([exited, sleep(waitMs)]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
  children.delete(proc);
}

/** Polls a server child's /healthz until it answers (its JSON), for up to `timeoutMs`. */
export async function untilHealthy(
  proc: ChildProcess,
  httpPort: number,
  logHint = '',
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode})${logHint}`);
    try {
      const r = await fetch(`http://127.0.0.1:${httpPort}/healthz`);
      if (r.ok) return (await r.json()) as Record<string, unknown>;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not come up in ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/** An adopted child with a request/reply channel over its IPC (replies carry the request's id). */
export class IpcChild {
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: unknown) => void>();

  constructor(readonly proc: ChildProcess) {
    adopt(proc);
    proc.on('message', (msg: { id?: number }) => {
      if (msg.id === undefined) return;
      this.waiting.get(msg.id)?.(msg);
      this.waiting.delete(msg.id);
    });
  }

  request<T>(order: object, timeoutMs = 30 * 60_000): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(order)}`)), timeoutMs);
      const onExit = () => reject(new Error('the child exited'));
      this.proc.once('exit', onExit);
      this.waiting.set(id, (msg) => {
        clearTimeout(timer);
        this.proc.off('exit', onExit);
        resolve(msg as T);
      });
      this.proc.send({ ...order, id });
    });
  }

  stop(signal: NodeJS.Signals, waitMs: number): Promise<void> {
    return stopChild(this.proc, signal, waitMs);
  }
}
