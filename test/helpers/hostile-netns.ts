/**
 * A narrow link for tests, where the kernel lets us make one: a network namespace joined to
 * this one by a veth pair whose ends have a small MTU and a tbf bandwidth cap (this kernel
 * has no netem, so no loss or delay of its own). Private /30 addresses on the pair only; the
 * namespace and the pair are deleted by stop().
 *
 *   test process (host side, hostAddress) <== veth, MTU, tbf ==> namespace (innerAddress)
 *
 * relay(port) runs a TCP relay inside the namespace that listens on innerAddress and connects
 * back to hostAddress:port: a client of the relay crosses the link twice, both ways.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

let made = 0;

function run(args: string[]): void {
  execFileSync(args[0]!, args.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface NetnsOptions {
  readonly mtu: number;
  /** tbf rate, as tc says it (256kbit). */
  readonly rate: string;
}

export interface Relay {
  readonly host: string;
  readonly port: number;
  stop(): void;
}

export class Netns {
  readonly name: string;
  readonly outer: string;
  readonly inner: string;
  readonly hostAddress: string;
  readonly innerAddress: string;
  private readonly relays: ChildProcess[] = [];

  /** Why a namespace cannot be made here, or undefined when it can. */
  static unavailable(): string | undefined {
    if (process.platform !== 'linux') return 'not Linux';
    if (process.getuid?.() !== 0) return 'not running as root';
    const probe = `wyvprobe${process.pid}`;
    try {
      run(['ip', 'netns', 'add', probe]);
      run(['ip', 'netns', 'del', probe]);
      run(['tc', 'qdisc', 'show']);
    } catch (e) {
      const err = (e as { stderr?: Buffer }).stderr?.toString().trim();
      return `ip netns or tc does not work here (${err || (e as Error).message})`;
    }
    return undefined;
  }

  constructor(options: NetnsOptions) {
    const n = made++;
    const tag = `${process.pid % 100_000}${n}`;
    this.name = `wyvern-hl-${tag}`;
    this.outer = `wyh${tag}a`;
    this.inner = `wyh${tag}b`;
    const subnet = `10.213.${process.pid % 250}.${(n % 60) * 4}`.split('.');
    const base = Number(subnet[3]);
    this.hostAddress = `${subnet.slice(0, 3).join('.')}.${base + 1}`;
    this.innerAddress = `${subnet.slice(0, 3).join('.')}.${base + 2}`;
    const inNs = (args: string[]) => run(['ip', 'netns', 'exec', this.name, ...args]);
    const tbf = ['root', 'tbf', 'rate', options.rate, 'burst', '4kb', 'latency', '400ms'];
    try {
      run(['ip', 'netns', 'add', this.name]);
      run(['ip', 'link', 'add', this.outer, 'type', 'veth', 'peer', 'name', this.inner]);
      run(['ip', 'link', 'set', this.inner, 'netns', this.name]);
      run(['ip', 'addr', 'add', `${this.hostAddress}/30`, 'dev', this.outer]);
      run(['ip', 'link', 'set', this.outer, 'mtu', String(options.mtu), 'up']);
      run(['tc', 'qdisc', 'add', 'dev', this.outer, ...tbf]);
      inNs(['ip', 'addr', 'add', `${this.innerAddress}/30`, 'dev', this.inner]);
      inNs(['ip', 'link', 'set', this.inner, 'mtu', String(options.mtu), 'up']);
      inNs(['ip', 'link', 'set', 'lo', 'up']);
      inNs(['tc', 'qdisc', 'add', 'dev', this.inner, ...tbf]);
    } catch (e) {
      this.stop();
      throw e;
    }
  }

  /** A TCP relay in the namespace: innerAddress:(a free port) -> hostAddress:port. */
  async relay(port: number): Promise<Relay> {
    const script = `
      const net = require('node:net');
      const [target, host] = [Number(process.argv[1]), process.argv[2]];
      const server = net.createServer((c) => {
        const u = net.connect({ host, port: target });
        c.pipe(u); u.pipe(c);
        c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
        c.on('close', () => u.destroy()); u.on('close', () => c.destroy());
      });
      server.listen(0, process.argv[3], () => console.log(server.address().port));
      process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
    `;
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        this.name,
        process.execPath,
        '-e',
        script,
        String(port),
        this.hostAddress,
        this.innerAddress,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    this.relays.push(child);
    const relayPort = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the relay exited (${code})`)));
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(Number(line)));
    });
    return {
      host: this.innerAddress,
      port: relayPort,
      stop: () => child.kill('SIGKILL'),
    };
  }

  stop(): void {
    for (const r of this.relays.splice(0)) r.kill('SIGKILL');
    try {
      // Deleting the namespace deletes its end of the pair, and with it the other end.
      run(['ip', 'netns', 'del', this.name]);
    } catch {
      // never made
    }
    try {
      run(['ip', 'link', 'del', this.outer]);
    } catch {
      // already gone with the namespace
    }
  }
}

export function startNetns(options: NetnsOptions): Netns {
  return new Netns(options);
}
