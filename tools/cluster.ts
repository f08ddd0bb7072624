/**
 * npm run cluster -- [--gateways 2] [--zone-hosts 1] [--standby 0] [--nats-url nats://HOST:PORT]
 *
 * One world as a cluster on this machine: a nats-server (Debian's `nats-server`, JetStream
 * on, in a temp dir, on a free 127.0.0.1 port; or the one --nats-url / NATS_URL names), the
 * zone hosts (`ROLE=zone-host`, ids zh-0, zh-1, ...; the world's zones dealt out among them
 * in turn; zone host j's /metrics and /healthz on HTTP_PORT + G + j, after the G gateways')
 * and the gateways (`ROLE=gateway`, ids gw-0, gw-1, ...; gateway k on TCP_PORT + k and
 * HTTP_PORT + k, from 7777 and 8080), each `tsx server/main.ts` with its lines prefixed
 * by its id. Every process gets the same DATA_DIR, DATABASE_URL and WYVERN_SECRET:
 * DATABASE_URL as set (postgres://... for processes on several machines), else the default
 * `npm start` uses (the SQLite file var/wyvern.db), so the accounts and characters of one are
 * those of the other. SQLite in WAL mode with a busy timeout (server/store/sqlite.ts) is
 * shared safely by processes on one machine.
 *
 * --standby N adds N standby zone hosts (zh-s0, ...; ZONE_STANDBY=on, every zone): each
 * waits and runs a zone whose host died once its claim lapses (docs/CLUSTER.md, "Faults").
 *
 * A relative DATA_DIR is taken from the project root, and given to every role resolved. "up"
 * is said once every gateway answers its /healthz.
 *
 * Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the gateways, then the zone hosts (which save
 * everyone), then the nats-server it started; a second signal kills them at once. So does the
 * death of the process that started this one (`npm run cluster` killed alone, a terminal
 * closed): the roles run in process groups of their own, out of reach of a terminal's
 * signals, and must not outlive the runner. A process that dies is reported and not
 * restarted, so a kill -9 can be tried by hand (its pid is printed); start it again with the
 * command line printed at start (the nats-server's too: the same port and store).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CONFIG_OPTIONS } from '../server/config.js';
import { loadWorldData } from '../server/world/index.js';
import { freePort } from './net/free-port.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

interface Role {
  readonly id: string;
  readonly env: Record<string, string>;
  proc?: ChildProcess;
}

/** Copies a child's lines to ours, each prefixed with `[id]`. */
function prefixed(id: string, proc: ChildProcess): void {
  for (const [from, to] of [
    [proc.stdout, process.stdout],
    [proc.stderr, process.stderr],
  ] as const) {
    if (!from) continue;
    createInterface({ input: from }).on('line', (line) => to.write(`[${id}] ${line}\n`));
  }
}

function positive(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${what} must be a whole number from 1: ${text}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      gateways: { type: 'string', default: '2' },
      'zone-hosts': { type: 'string', default: '1' },
      standby: { type: 'string', default: '0' },
      'nats-url': { type: 'string' },
    },
  });
  const gateways = positive(values.gateways, '--gateways');
  const zoneHosts = positive(values['zone-hosts'], '--zone-hosts');
  const standby = values.standby === '0' ? 0 : positive(values.standby, '--standby');
  const dataDir = resolve(ROOT, process.env['DATA_DIR'] ?? 'data');
  const zones = worldZones(dataDir);
  if (zoneHosts > zones.length) {
    throw new Error(
      `${zoneHosts} zone hosts for ${zones.length} zone${zones.length === 1 ? '' : 's'} (${zones.join(', ')}): ` +
        'a zone runs on one host at a time, so a host beyond the zones would have nothing to run',
    );
  }
  const tcpBase = Number(process.env['TCP_PORT'] ?? 7777);
  const httpBase = Number(process.env['HTTP_PORT'] ?? 8080);

  // The browser client the gateways serve, built once (as npm start does), unless WEB_ROOT
  // names another.
  if (process.env['WEB_ROOT'] === undefined && !existsSync(join(ROOT, 'web-client/dist/index.html'))) {
    console.log('[cluster] building the browser client');
    const built = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (built.status !== 0) throw new Error('the browser client did not build');
  }

  const children: ChildProcess[] = [];
  let stopping = false;
  let natsDir: string | undefined;
  let nats: ChildProcess | undefined;
  let natsLine: string | undefined;
  const roles: Role[] = [];
  let stopped: Promise<never> | undefined;
  const stop = (code: number): Promise<never> =>
    (stopped ??= (async () => {
      stopping = true;
      console.log('[cluster] stopping: gateways, then zone hosts (they save everyone), then nats-server');
      for (const kind of ['gw-', 'zh-']) {
        await Promise.all(
          roles.filter((r) => r.id.startsWith(kind) && r.proc).map((r) => stopChild(r.proc!, 15_000)),
        );
      }
      if (nats) await stopChild(nats, 5_000);
      if (natsDir) rmSync(natsDir, { recursive: true, force: true });
      process.exit(code);
    })());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      // Asked again while stopping: at once (the exit handler kills what is left).
      if (stopping) {
        console.log(`[cluster] ${signal} again: killing everything now`);
        process.exit(1);
      }
      console.log(`[cluster] ${signal}`);
      void stop(0);
    });
  }
  // Whatever way this process ends, no role or nats-server of its own outlives it.
  process.on('exit', () => {
    for (const c of [...children, ...(nats ? [nats] : [])]) {
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }
    if (natsDir) rmSync(natsDir, { recursive: true, force: true });
  });
  started = stop;
  let natsUrl = values['nats-url'] ?? process.env['NATS_URL'];
  if (!natsUrl) {
    const bin = NATS_SERVER.find((p) => existsSync(p));
    if (!bin) throw new Error('no nats-server here: apt-get install nats-server, or pass --nats-url');
    const port = await freePort();
    natsDir = mkdtempSync(join(tmpdir(), 'wyvern-nats-'));
    const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', natsDir];
    natsLine = [bin, ...args].join(' ');
    nats = spawn(bin, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C in the terminal reaches only this runner, which
      // stops the roles first and the nats-server they need for it last.
      detached: true,
    });
    prefixed('nats', nats);
    natsUrl = `nats://127.0.0.1:${port}`;
    await untilListening(port, nats);
    // Its whole command line, as for the roles: to start it again by hand on the same port and
    // store, as a bus outage is tried.
    console.log(
      `[cluster] nats-server (pid ${nats.pid}) on ${natsUrl} (JetStream in ${natsDir}): ${natsLine}`,
    );
  }

  let databaseUrl = process.env['DATABASE_URL'];
  if (!databaseUrl) {
    databaseUrl = CONFIG_OPTIONS.find((o) => o.env === 'DATABASE_URL')!.default!;
    console.log(
      `[cluster] DATABASE_URL is not set: every process shares ${databaseUrl}, as npm start does ` +
        '(one machine only; set DATABASE_URL=postgres://... to spread the roles over machines)',
    );
  }
  const secret = process.env['WYVERN_SECRET'] ?? readSecret() ?? randomBytes(32).toString('hex');
  const common = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, WYVERN_SECRET: secret, DATA_DIR: dataDir };
  for (let i = 0; i < zoneHosts; i++) {
    const mine = zones.filter((_, k) => k % zoneHosts === i);
    roles.push({
      id: `zh-${i}`,
      env: {
        ...common,
        ROLE: 'zone-host',
        NODE_ID: `zh-${i}`,
        ZONES: mine.join(','),
        // After the gateways' ports: /metrics and /healthz of the zone host.
        HTTP_PORT: String(httpBase + gateways + i),
      },
    });
  }
  for (let i = 0; i < standby; i++) {
    roles.push({
      id: `zh-s${i}`,
      env: {
        ...common,
        ROLE: 'zone-host',
        NODE_ID: `zh-s${i}`,
        ZONE_STANDBY: 'on',
        HTTP_PORT: String(httpBase + gateways + zoneHosts + i),
      },
    });
  }
  for (let k = 0; k < gateways; k++) {
    roles.push({
      id: `gw-${k}`,
      env: {
        ...common,
        ROLE: 'gateway',
        GATEWAY_ID: `gw-${k}`,
        TCP_PORT: String(tcpBase + k),
        HTTP_PORT: String(httpBase + k),
      },
    });
  }

  nats?.once('exit', (code) => {
    if (!stopping)
      console.log(
        `[cluster] nats-server exited (${code}); the roles keep reconnecting to ${natsUrl}` +
          (natsLine ? ` (start it again: ${natsLine})` : ''),
      );
  });

  for (const role of roles) {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...role.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    role.proc = proc;
    children.push(proc);
    prefixed(role.id, proc);
    proc.once('exit', (code, signal) => {
      if (!stopping) console.log(`[cluster] ${role.id} exited (${signal ?? code}); the others go on`);
    });
    // All it needs to be started again by hand, the secret included (without it a restarted
    // role would refuse the others' resume tokens).
    const shown = Object.entries(role.env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    console.log(`[cluster] ${role.id} (pid ${proc.pid}): ${shown} npx tsx server/main.ts`);
    // Zone hosts first, each with its zones claimed, before the gateways route to them.
    // A standby runs nothing until a host dies: it is not waited for.
    // Its start line, written whatever LOG_LEVEL says (the "world running" log line is info).
    if (role.id.startsWith('zh-') && role.env['ZONE_STANDBY'] === undefined)
      await untilLine(proc, /zone host \S+ is running/, 'a zone host');
  }
  // Up once every gateway answers: its start line, then its /healthz.
  await Promise.all(
    roles
      .filter((r) => r.id.startsWith('gw-'))
      .map(async (r) => {
        await untilLine(r.proc!, /gateway \S+ is running/, `gateway ${r.id}`);
        await untilAnswers(Number(r.env['HTTP_PORT']), r.proc!);
      }),
  );
  console.log(
    `[cluster] up: ${gateways} gateway${gateways === 1 ? '' : 's'} (browser on ` +
      roles
        .filter((r) => r.id.startsWith('gw-'))
        .map((r) => `http://localhost:${r.env['HTTP_PORT']}/`)
        .join(', ') +
      `), ${zoneHosts} zone host${zoneHosts === 1 ? '' : 's'}` +
      (standby > 0 ? ` and ${standby} standing by` : '') +
      ' (/metrics and /healthz on ' +
      roles
        .filter((r) => r.id.startsWith('zh-'))
        .map((r) => `http://localhost:${r.env['HTTP_PORT']}/healthz`)
        .join(', ') +
      '); Ctrl-C stops them all',
  );
}

/**
 * The zones of the world in `dataDir`. DATA_DIR is the world's data, not the cluster's state
 * (the database is DATABASE_URL's): a directory without a world is refused saying so.
 */
function worldZones(dataDir: string): string[] {
  try {
    return loadWorldData(dataDir).zones.map((z) => z.name);
  } catch (e) {
    throw new Error(
      `DATA_DIR=${dataDir} is not the world data (zones, mobs, spells; default: the project's data/): ${(e as Error).message}`,
      { cause: e },
    );
  }
}

/** The secret a previous single-process run generated beside var/wyvern.db, if any. */
function readSecret(): string | undefined {
  const file = join(ROOT, 'var/server-secret');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
}

function untilListening(port: number, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (proc.exitCode !== null) return reject(new Error(`nats-server exited (${proc.exitCode})`));
      const s = createServer();
      s.once('error', () => resolve());
      s.listen(port, '127.0.0.1', () => {
        s.close();
        if (Date.now() > deadline) reject(new Error('nats-server did not listen within 10 s'));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/**
 * Stops everything once the process that started this one is gone: `npm run cluster` killed
 * alone (npm passes SIGTERM to its shell, which dies without passing it on), or killed with
 * SIGKILL or SIGHUP, leaves this runner with a new parent. Checked twice a second.
 */
function watchParent(): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    console.log(`[cluster] the process that started this one (pid ${parent}) is gone`);
    if (started) void started(0);
    else process.exit(1);
  }, 500);
  timer.unref();
}

/** Resolves once http://127.0.0.1:port/healthz answers 200 (within 60 s, while `proc` runs). */
async function untilAnswers(port: number, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`a gateway exited before it answered`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`the gateway on HTTP port ${port} did not answer within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function untilLine(proc: ChildProcess, pattern: RegExp, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 60 s`)), 60_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before it was running`));
    });
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (pattern.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

function stopChild(proc: ChildProcess, waitMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), waitMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

/** Stops what the runner started (once it started anything): for a failed start, or an orphaned runner. */
let started: ((code: number) => Promise<never>) | undefined;

// The terminal may be gone (a closed window): writing there must not end the runner before
// it has stopped its roles.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

watchParent();
main().catch((e: unknown) => {
  console.error(`cluster: ${(e as Error).message}`);
  if (started) void started(1);
  else process.exit(1);
});
