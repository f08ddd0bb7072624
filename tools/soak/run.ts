/**
 * The soak: bots with churn against a server child for a long time, the server's memory,
 * descriptors and connections sampled every few seconds.
 *
 * Each bot runs cycles until the end: connect (TCP or WebSocket, alternating), Hello, then
 * register a new account, log in or resume (after a dropped socket, with the token from
 * the last LoginOk or Resumed), enter the world with its character, play for a while (walk,
 * say something, cast at a mob in sight, ping), then leave in one of four ways: drop the
 * socket without a goodbye (next cycle resumes), log out and close (next cycle logs in),
 * close at once, or log out and retire its account (next cycle registers a new one).
 *
 * Counted as errors: any call that fails (a refusal, a timeout, a closed connection where
 * none was asked for), a fatal Error from the server, any line the server logs at error
 * level, an uncaught exception, the server's exit. Refusals that are part of play (a cast
 * out of range, a move corrected) are counted apart and are not errors.
 */
import WebSocket from 'ws';
import { WyvernClient } from '../../shared/client/client.js';
import { ClientErrorCode, WyvernError } from '../../shared/client/errors.js';
import { WebSocketTransport, type WebSocketLike } from '../../shared/client/websocket-transport.js';
import { mulberry32, randomInt, type Rng } from '../../shared/game/rng.js';
import { MOB_ID_BASE } from '../../shared/protocol/common.js';
import { TcpTransport } from '../net/tcp-transport.js';
import {
  quantile,
  sampleProcess,
  sleep,
  startServerChild,
  type ProcessSample,
  type ServerChild,
} from '../fuzz/server.js';

export interface SoakOptions {
  readonly durationMs: number;
  readonly bots: number;
  readonly sampleMs: number;
  readonly seed: number;
  /** Samples taken before this are the warm-up, left out of the drift. */
  readonly warmupMs: number;
  /** Play time per cycle, ms. */
  readonly playMs: readonly [number, number];
  /** Progress lines on stderr. */
  readonly verbose?: boolean;
  /** Extra server settings. */
  readonly env?: Record<string, string>;
}

export interface SoakSample extends ProcessSample {
  /** Seconds since the start. */
  readonly t: number;
  readonly inWorld: number;
}

export interface SoakCounts {
  cycles: number;
  registered: number;
  logins: number;
  resumes: number;
  entered: number;
  drops: number;
  logouts: number;
  /** Logouts the server stopped because the character fought meanwhile (it then closes and lingers). */
  logoutsInFight: number;
  retired: number;
  moves: number;
  chats: number;
  casts: number;
  pings: number;
  /** Refusals that are part of play (range, line of sight, cooldown, corrections). */
  refusals: number;
}

export interface SoakResult {
  readonly options: Omit<SoakOptions, 'verbose' | 'env'>;
  readonly startedAt: string;
  readonly elapsedS: number;
  readonly counts: SoakCounts;
  readonly errors: number;
  /** Error messages by kind, with how often each came. */
  readonly errorKinds: Record<string, number>;
  readonly serverErrors: number;
  readonly serverErrorSamples: string[];
  readonly uncaught: number;
  readonly crashed: boolean;
  readonly exit: { code: number | null; signal: string | null } | undefined;
  readonly pingMs: { p50: number; p99: number; max: number; count: number };
  readonly samples: SoakSample[];
  readonly rss: Drift;
  /** The same for the V8 heap in use (its sawtooth is garbage not yet collected) and the descriptors. */
  readonly heap: Drift;
  readonly fds: Drift;
}

const PASSWORD = 'soak password';

class SoakBot {
  private readonly rng: Rng;
  private account = '';
  private registered = false;
  private characterId = 0;
  /** The bot itself is closing the connection: the close is not an error. */
  private leaving = false;
  private token: Uint8Array | undefined;
  private generation = 0;
  private cycle = 0;
  inWorld = false;
  private client: WyvernClient | undefined;

  constructor(
    private readonly n: number,
    private readonly server: ServerChild,
    private readonly run: SoakRun,
  ) {
    this.rng = mulberry32(run.options.seed * 1000 + n);
    this.newAccount();
  }

  private newAccount(): void {
    this.account = `soak${this.n}x${this.generation++}`;
    this.registered = false;
    this.characterId = 0;
    this.token = undefined;
  }

  async loop(until: number): Promise<void> {
    while (Date.now() < until && !this.run.stopped) {
      try {
        await this.once(until);
      } catch (e) {
        this.run.error(e);
        this.leaving = true;
        this.client?.close();
        this.token = undefined;
        await sleep(1000);
      } finally {
        this.inWorld = false;
      }
    }
    this.client?.close();
  }

  private async connect(): Promise<{ client: WyvernClient; drop: () => void }> {
    const overWs = (this.n + this.cycle) % 2 === 1;
    if (overWs) {
      const socket = new WebSocket(`ws://127.0.0.1:${this.server.httpPort}/ws`, { perMessageDeflate: false });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const client = new WyvernClient(new WebSocketTransport(socket as unknown as WebSocketLike), {
        requestTimeoutMs: 30_000,
      });
      return { client, drop: () => socket.terminate() };
    }
    const tcp = await TcpTransport.connect({ host: '127.0.0.1', port: this.server.tcpPort });
    return {
      client: new WyvernClient(tcp, { requestTimeoutMs: 30_000 }),
      drop: () => tcp.socket.destroy(),
    };
  }

  private async once(until: number): Promise<void> {
    const run = this.run;
    const counts = run.counts;
    this.cycle++;
    counts.cycles++;
    const { client, drop } = await this.connect();
    this.client = client;
    this.leaving = false;
    client.onError = (err) => {
      if (err.fatal) run.error(new Error(`fatal ${err.code} from the server: ${err.reason}`));
      else counts.refusals++;
    };
    client.onClose = (reason) => {
      if (!this.leaving && !run.stopped) run.error(new Error(`closed by the server: ${reason}`));
    };
    await client.hello({ clientKind: 'bot', clientName: 'soak' });
    let inWorld = false;
    if (this.token) {
      const ok = await client.resume(this.account, this.token);
      this.token = ok.resumeToken;
      counts.resumes++;
      // A server that keeps a dropped character for a while puts it back in the world with
      // the Resumed answer; one that does not leaves the client to enter again.
      inWorld = (ok as { entered?: unknown }).entered !== undefined;
    } else {
      if (!this.registered) {
        await client.register(this.account, PASSWORD);
        this.registered = true;
        counts.registered++;
      }
      const ok = await client.login(this.account, PASSWORD);
      this.token = ok.resumeToken;
      counts.logins++;
    }
    if (this.characterId === 0) {
      // Fixed widths, so that no two (bot, generation) pairs spell the same name.
      const name = `Soak${letters(this.n, 2)}${letters(this.generation, 3)}`;
      this.characterId = (await client.createCharacter(name, 1 + (this.n % 4))).id;
    }
    if (!inWorld) await client.enterWorld(this.characterId);
    counts.entered++;
    this.inWorld = true;
    const [lo, hi] = run.options.playMs;
    await this.play(client, Math.min(until, Date.now() + randomInt(this.rng, lo, hi)));
    this.inWorld = false;

    this.leaving = true;
    const way = this.rng();
    if (run.stopped || Date.now() >= until) {
      client.close();
    } else if (way < 0.4) {
      // The socket dies without a goodbye; the next cycle resumes with the token.
      drop();
      counts.drops++;
    } else if (way < 0.7) {
      await this.logout(client);
      client.close();
      this.token = undefined;
    } else if (way < 0.85) {
      client.close();
      this.token = undefined;
    } else {
      await this.logout(client);
      counts.retired++;
      client.close();
      this.newAccount();
    }
    this.client = undefined;
    await sleep(randomInt(this.rng, 50, 500));
  }

  /**
   * Logs out; a logout the server stopped because a mob hit the character meanwhile (a logout
   * is no way out of a fight) ends as a player's would: the socket is closed, the character
   * lingers out its fight.
   */
  private async logout(client: WyvernClient): Promise<void> {
    try {
      await client.logout();
      this.run.counts.logouts++;
    } catch (e) {
      if (!(e instanceof WyvernError) || e.code !== ClientErrorCode.LogoutCancelled) throw e;
      this.run.counts.logoutsInFight++;
    }
  }

  private async play(client: WyvernClient, end: number): Promise<void> {
    const counts = this.run.counts;
    let heading = this.rng() * Math.PI * 2;
    let step = 0;
    while (Date.now() < end && !this.run.stopped && !client.closeReason) {
      const self = client.world.self;
      if (!self) break;
      step++;
      if (step % 10 === 0) heading = this.rng() * Math.PI * 2;
      // 20 units every 200 ms: 100 units/s, under the walking speed.
      const x = self.x + Math.cos(heading) * 20;
      const y = self.y + Math.sin(heading) * 20;
      const h = heading < 0 ? heading + 2 * Math.PI : heading;
      client.sendMove(x, y, h, true, 100);
      counts.moves++;
      if (step % 15 === 0) {
        const started = performance.now();
        void client.ping().then(
          () => this.run.pings.push(performance.now() - started),
          () => {},
        );
        counts.pings++;
      }
      if (this.rng() < 0.02) {
        client.say(`soak ${this.n} says hello`);
        counts.chats++;
      }
      if (this.rng() < 0.03) {
        const mob = [...client.world.entities.keys()].find((id) => id >= MOB_ID_BASE);
        if (mob !== undefined) {
          client.cast(1 + randomInt(this.rng, 0, 1), mob);
          counts.casts++;
        }
      }
      await sleep(200);
    }
    const self = client.world.self;
    if (self && !client.closeReason) client.sendMove(self.x, self.y, self.facing, false, 0);
  }
}

/** `n` in base 26 as `width` letters (a = 0). */
function letters(n: number, width: number): string {
  let s = '';
  for (let i = 0; i < width; i++) {
    s += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  }
  return s;
}

class SoakRun {
  readonly counts: SoakCounts = {
    cycles: 0,
    registered: 0,
    logins: 0,
    resumes: 0,
    entered: 0,
    drops: 0,
    logouts: 0,
    logoutsInFight: 0,
    retired: 0,
    moves: 0,
    chats: 0,
    casts: 0,
    pings: 0,
    refusals: 0,
  };
  readonly errorKinds: Record<string, number> = {};
  readonly pings: number[] = [];
  errors = 0;
  stopped = false;

  constructor(readonly options: SoakOptions) {}

  error(e: unknown): void {
    this.errors++;
    const text =
      e instanceof WyvernError ? `${e.code}: ${e.reason}` : e instanceof Error ? e.message : String(e);
    // Numbers vary (ids, ports, times); the kind is the text without them.
    const kind = text.replace(/\d+/g, 'N').slice(0, 160);
    this.errorKinds[kind] = (this.errorKinds[kind] ?? 0) + 1;
    if (this.options.verbose && this.errorKinds[kind] === 1) process.stderr.write(`soak: error: ${text}\n`);
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const run = new SoakRun(options);
  const startedAt = new Date().toISOString();
  const server = await startServerChild({ env: options.env });
  const t0 = Date.now();
  const until = t0 + options.durationMs;
  const samples: SoakSample[] = [];
  const bots = Array.from({ length: options.bots }, (_, i) => new SoakBot(i, server, run));
  const say = (line: string) => options.verbose && process.stderr.write(`soak: ${line}\n`);

  const sampler = (async () => {
    while (!run.stopped) {
      try {
        const s = await sampleProcess(server);
        const t = (Date.now() - t0) / 1000;
        samples.push({ t, ...s, inWorld: bots.filter((b) => b.inWorld).length });
        if (samples.length % 12 === 1) {
          say(
            `${t.toFixed(0)} s: rss ${(s.rss / 2 ** 20).toFixed(1)} MB, heap ${(s.heap / 2 ** 20).toFixed(1)} MB, ` +
              `fds ${s.fds}, connections ${s.connections}, cycles ${run.counts.cycles}, errors ${run.errors}`,
          );
        }
      } catch (e) {
        if (server.exit === undefined) run.error(new Error(`sampling failed: ${(e as Error).message}`));
      }
      if (server.exit !== undefined) break;
      await sleep(options.sampleMs);
    }
  })();

  // Bots join over the first few seconds rather than all in one turn.
  const playing = bots.map(async (bot, i) => {
    await sleep((i * 3000) / options.bots);
    await bot.loop(until);
  });
  const crash = server.exited.then(() => {
    if (!run.stopped) run.error(new Error('the server exited'));
    run.stopped = true;
  });
  await Promise.race([Promise.all(playing), crash]);
  const crashed = server.exit !== undefined;
  run.stopped = true;
  await Promise.race([Promise.all(playing), sleep(40_000)]);
  await sampler;
  // One last sample with every bot gone, after the server has let the sessions go.
  if (!crashed) {
    await sleep(2000);
    try {
      const s = await sampleProcess(server);
      samples.push({ t: (Date.now() - t0) / 1000, ...s, inWorld: 0 });
    } catch {
      // reported below through the exit
    }
  }
  const elapsedS = (Date.now() - t0) / 1000;
  await server.stop();
  const exit = server.exit;
  if (!crashed && exit && exit.code !== 0)
    run.error(new Error(`the server exited with ${exit.code ?? exit.signal} on SIGTERM`));

  const pings = [...run.pings].sort((a, b) => a - b);
  const { options: o } = run;
  return {
    options: {
      durationMs: o.durationMs,
      bots: o.bots,
      sampleMs: o.sampleMs,
      seed: o.seed,
      warmupMs: o.warmupMs,
      playMs: o.playMs,
    },
    startedAt,
    elapsedS,
    counts: run.counts,
    errors: run.errors + server.log.errors + server.log.uncaught,
    errorKinds: run.errorKinds,
    serverErrors: server.log.errors,
    serverErrorSamples: server.log.samples,
    uncaught: server.log.uncaught,
    crashed,
    exit,
    pingMs: {
      p50: round(quantile(pings, 0.5)),
      p99: round(quantile(pings, 0.99)),
      max: round(pings.at(-1) ?? 0),
      count: pings.length,
    },
    samples,
    rss: drift(samples, options.warmupMs / 1000, 'rss'),
    heap: drift(samples, options.warmupMs / 1000, 'heap'),
    fds: drift(samples, options.warmupMs / 1000, 'fds'),
  };
}

export interface Drift {
  warm: number;
  end: number;
  min: number;
  max: number;
  driftPct: number;
}

/**
 * Drift after the warm-up: the mean of the first tenth of the samples after it against the
 * mean of the last tenth while the bots still played (the final sample, with every bot gone,
 * is left out).
 */
export function drift(samples: readonly SoakSample[], warmupS: number, key: 'rss' | 'heap' | 'fds'): Drift {
  const playing = samples.slice(0, -1).filter((s) => s.t >= warmupS);
  const use = playing.length >= 2 ? playing : samples;
  const tenth = Math.max(1, Math.floor(use.length / 10));
  const mean = (xs: readonly SoakSample[]) => xs.reduce((a, s) => a + s[key], 0) / Math.max(1, xs.length);
  const warm = mean(use.slice(0, tenth));
  const end = mean(use.slice(-tenth));
  const values = use.map((s) => s[key]);
  return {
    warm: Math.round(warm),
    end: Math.round(end),
    min: values.length ? Math.min(...values) : 0,
    max: values.length ? Math.max(...values) : 0,
    driftPct: warm > 0 ? round(((end - warm) / warm) * 100) : 0,
  };
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
