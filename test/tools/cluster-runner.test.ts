/**
 * `npm run cluster` (tools/cluster.ts) as a user runs it, with a small world: it starts from
 * an absolute DATA_DIR, prints for each role a command line that starts it again (the secret
 * included), says "up" only once its gateways answer, and whichever process is signalled (the
 * runner, or npm alone, as a process manager or a closed terminal does) leaves no role and no
 * nats-server of its own running.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS_SKIP_MESSAGE, natsServerAvailable } from '../helpers/nats.js';
import { ROOT, TEST_DATA } from '../cluster/roles.js';

const SECRET = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

/** A base port with `n` free ports from it (127.0.0.1). */
async function freeRange(n: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = await free(base + i);
    if (ok) return base;
  }
}

/**
 * TCP and HTTP bases from one free range: the runner gives gateway k TCP_PORT + k and
 * HTTP_PORT + k, and zone host j HTTP_PORT + gateways + j. Two ranges found apart could
 * overlap (a gateway's TCP port was a zone host's HTTP port: EADDRINUSE).
 */
function portsFor(base: number, gateways: number): { tcp: number; http: number } {
  return { tcp: base, http: base + gateways };
}

/** Whether the process is gone (a zombie nobody reaped yet counts as gone). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false;
  } catch {
    return true;
  }
}

/** Every process below `pid` (by parent pid), as `ps` lists them now. */
function descendants(pid: number): number[] {
  const ps = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  const children = new Map<number, number[]>();
  for (const line of ps.stdout.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const out: number[] = [];
  for (let at = [pid]; at.length > 0;) {
    at = at.flatMap((p) => children.get(p) ?? []);
    out.push(...at);
  }
  return out;
}

/** Every process a test saw below the runner, killed at the end should a test fail. */
const seen = new Set<number>();

async function allGone(pids: number[], timeoutMs: number): Promise<number[]> {
  for (const pid of pids) seen.add(pid);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter((p) => !gone(p));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Started {
  proc: ChildProcess;
  lines: string[];
  /** Resolves with the "[cluster] up" line's index in `lines`. */
  up: Promise<number>;
  /** Whether every gateway's /healthz and TCP port answered right at "up". */
  upAnswered: Promise<boolean>;
  /** The pids the runner says it started: the nats-server and every role. */
  pids(): number[];
}

/**
 * Starts the runner (`npm run cluster`, or the runner itself) over `dir`; at its "up" line,
 * asks every gateway's /healthz and TCP port at once.
 */
function startCluster(
  how: 'npm' | 'runner',
  dir: string,
  ports: { tcp: number; http: number },
  args: string[],
  gateways: number,
): Started {
  const env = {
    ...process.env,
    DATA_DIR: TEST_DATA,
    WEB_ROOT: join(dir, 'web'),
    DATABASE_URL: `sqlite:${join(dir, 'cluster.db')}`,
    WYVERN_SECRET: SECRET,
    TCP_PORT: String(ports.tcp),
    HTTP_PORT: String(ports.http),
    LOG_LEVEL: 'warn',
  };
  delete (env as Record<string, string | undefined>)['NATS_URL'];
  const [cmd, argv] =
    how === 'npm'
      ? ['npm', ['run', '--silent', 'cluster', '--', ...args]]
      : [process.execPath, ['--import', 'tsx', join(ROOT, 'tools/cluster.ts'), ...args]];
  // A process group of its own: only the process the test signals gets the signal.
  const proc = spawn(cmd, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const lines: string[] = [];
  let answered: (ok: boolean) => void;
  const upAnswered = new Promise<boolean>((resolve) => (answered = resolve));
  const up = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "up" within 90 s:\n${lines.join('\n')}`)), 90_000);
    let partial = '';
    const onData = (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (!line.startsWith('[cluster] up')) continue;
        clearTimeout(timer);
        for (const pid of descendants(proc.pid!)) seen.add(pid);
        resolve(lines.length - 1);
        // Every gateway answers now, not a moment later.
        void Promise.all(
          Array.from({ length: gateways }, async (_, k) => {
            const res = await fetch(`http://127.0.0.1:${ports.http + k}/healthz`).catch(() => undefined);
            const tcp = await new Promise<boolean>((ok) => {
              const s = connect(ports.tcp + k, '127.0.0.1');
              s.once('connect', () => {
                s.destroy();
                ok(true);
              });
              s.once('error', () => ok(false));
            });
            return res?.status === 200 && tcp;
          }),
        ).then((all) => answered(all.every(Boolean)));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n')));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the runner exited (${code}) before "up":\n${lines.join('\n')}`));
    });
  });
  up.catch(() => {});
  const pids = () =>
    lines.flatMap((l) => {
      const m = /^\[cluster\] \S+ \(pid (\d+)\)/.exec(l);
      return m ? [Number(m[1])] : [];
    });
  return { proc, lines, up, upAnswered, pids };
}

const exited = (proc: ChildProcess): Promise<void> =>
  proc.exitCode !== null || proc.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => proc.once('exit', () => resolve()));

if (!natsServerAvailable()) {
  console.log(NATS_SKIP_MESSAGE);
  describe('npm run cluster', () => {
    it.skip('runs only where nats-server is installed', () => {});
  });
} else {
  describe('npm run cluster', () => {
    let dir: string;
    const started: Started[] = [];

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'wyvern-cluster-runner-'));
      // An empty browser client: the runner builds web-client/dist only when WEB_ROOT is unset.
      mkdirSync(join(dir, 'web'));
    });

    afterAll(async () => {
      // Whatever a failed test left running.
      for (const s of started) {
        for (const pid of [s.proc.pid!, ...s.pids(), ...seen]) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone.
          }
        }
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('starts from an absolute DATA_DIR, prints restart lines with the secret, is up once its gateways answer, and SIGTERM stops every role and its nats-server', async () => {
      const ports = portsFor(await freeRange(5), 2);
      const s = startCluster('runner', dir, ports, ['--gateways', '2', '--zone-hosts', '1'], 2);
      started.push(s);
      await s.up;
      expect(await s.upAnswered).toBe(true);
      const roles = s.lines.filter((l) => /^\[cluster\] (zh|gw)-\S+ \(pid \d+\): /.test(l));
      expect(roles.map((l) => l.split(' ')[1])).toEqual(['zh-0', 'gw-0', 'gw-1']);
      for (const line of roles) {
        expect(line).toContain(`WYVERN_SECRET=${SECRET}`);
        expect(line).toContain(`DATA_DIR=${TEST_DATA}`);
        expect(line).toMatch(/ npx tsx server\/main\.ts$/);
      }
      // Its nats-server's whole command line too, to start it again by hand on the same port
      // and store (a bus outage tried by hand).
      expect(s.lines).toContainEqual(
        expect.stringMatching(
          /^\[cluster\] nats-server \(pid \d+\) on nats:\/\/127\.0\.0\.1:(\d+) .*: \/\S*nats-server -a 127\.0\.0\.1 -p \1 -js -sd \/\S+$/,
        ),
      );
      // The nats-server and three roles, as it says and as they run (under tsx's own children).
      const pids = descendants(s.proc.pid!);
      expect(s.pids()).toHaveLength(4);
      expect(pids).toEqual(expect.arrayContaining(s.pids()));

      s.proc.kill('SIGTERM');
      await exited(s.proc);
      expect(await allGone(pids, 30_000)).toEqual([]);
      expect(s.lines).toContain('[cluster] SIGTERM');
    }, 120_000);

    for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
      it(`stops every role and its nats-server when npm alone gets ${signal}`, async () => {
        const ports = portsFor(await freeRange(3), 1);
        const s = startCluster('npm', dir, ports, ['--gateways', '1', '--zone-hosts', '1'], 1);
        started.push(s);
        await s.up;
        // Everything below npm: the runner, its nats-server and its two roles.
        const pids = descendants(s.proc.pid!);
        expect(pids.length).toBeGreaterThanOrEqual(4);
        // npm's pid only: as a process manager (SIGTERM) or a closed terminal (SIGHUP) sends it.
        process.kill(s.proc.pid!, signal);
        await exited(s.proc);
        expect(await allGone(pids, 30_000)).toEqual([]);
      }, 120_000);
    }
  });
}

it('refuses a DATA_DIR with no world in it, saying what DATA_DIR holds, before starting anything', () => {
  // As one might give it a fresh directory for the cluster's state: DATA_DIR is the world's data.
  const empty = mkdtempSync(join(tmpdir(), 'wyvern-cluster-empty-'));
  try {
    const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: empty };
    delete env['NATS_URL'];
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'tools/cluster.ts')], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`DATA_DIR=${empty}`);
    expect(run.stderr).toMatch(/is not the world data \(zones, mobs, spells/);
    expect(run.stdout).not.toMatch(/nats-server \(pid/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}, 90_000);
