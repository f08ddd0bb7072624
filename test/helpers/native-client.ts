/**
 * For tests that run a native client (clients/c, clients/python) as a child process on a live
 * server: a TCP proxy whose connections the test can cut, as a network failure would, and the
 * child's output as lines a test can wait on.
 */
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface CuttableProxy {
  port: number;
  /** Destroys every connection through it, both ways, without a goodbye. */
  cut(): void;
  close(): Promise<void>;
}

export async function cuttableProxy(targetPort: number): Promise<CuttableProxy> {
  const open = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(targetPort, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {});
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => open.forEach((s) => s.destroy()),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A child process's stdout as lines, kept from its start, that a test waits on. */
export class ChildLines {
  readonly lines: string[] = [];
  private readonly waiters = new Set<{ re: RegExp; from: number; resolve: (m: RegExpMatchArray) => void }>();
  readonly exited: Promise<number | null>;
  private stderr = '';

  constructor(readonly child: ChildProcess) {
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      const parts = (partial + d).split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        this.lines.push(line);
        for (const w of this.waiters) {
          const m = line.match(w.re);
          if (m && this.lines.length - 1 >= w.from) {
            this.waiters.delete(w);
            w.resolve(m);
          }
        }
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.on('close', resolve));
  }

  mark(): number {
    return this.lines.length;
  }

  send(command: string): void {
    this.child.stdin!.write(`${command}\n`);
  }

  /** Closes its stdin: the end of its input. */
  endInput(): void {
    this.child.stdin!.end();
  }

  /** Everything it printed so far, stdout then stderr (for failure messages). */
  output(): string {
    return `${this.lines.join('\n')}\n${this.stderr}`;
  }

  /** The first line (at or after `from`) matching `re`, printed already or later. */
  expect(re: RegExp, from = 0, timeoutMs = 15_000): Promise<RegExpMatchArray> {
    for (let i = from; i < this.lines.length; i++) {
      const m = this.lines[i]!.match(re);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const waiter = { re, from, resolve: (m: RegExpMatchArray) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no line matching ${re} within ${timeoutMs} ms; output:\n${this.output()}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
