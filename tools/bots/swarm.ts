/**
 * The swarm: many bots in one process. `Swarm` grows to a number of bots (logins in parallel,
 * bounded), keeps them playing, and reports what they measured; `runSwarm` is the whole run
 * the command line makes (grow, play for a while, summarize, stop).
 *
 * Bots are driven by one timer: ten slots per step interval (50 ms at 20 Hz), each bot in the
 * slot of its number, so work and sends spread evenly instead of coming all at once. Each bot
 * is stepped at its slot's scheduled time (whole ms), not at the time the timer happened to
 * fire, so its heartbeats fall exactly CLIENT_HEARTBEAT_MS apart; how late the loop ran is
 * measured on its own (loopLag).
 */
import { connect, connectAny } from '../net/connect.js';
import { Bot } from './bot.js';
import type { LatencySummary } from './histogram.js';
import { LatencyHistogram } from './histogram.js';
import { clampArea, openestCenter, planArea, type Area } from './nav.js';
import {
  DEFAULT_SWARM_OPTIONS,
  SwarmState,
  zeroCounters,
  type Counters,
  type SwarmOptions,
} from './state.js';

export type AreaSpec =
  /** A square around the zone's middle sized so each bot sees about this many players. */
  | { kind: 'density'; playersInView: number }
  /** Everyone within one interest radius. */
  | { kind: 'dense' }
  /** A square of half-side `radius` around where new characters enter. */
  | { kind: 'spread'; radius: number }
  | { kind: 'rect'; area: Area };

export interface GrowReport {
  requested: number;
  inWorld: number;
  failed: number;
  seconds: number;
  loginsPerSecond: number;
  /** Connect to in-world, per bot (ms). */
  login: LatencySummary;
}

export interface PhaseReport {
  seconds: number;
  bots: { connected: number; inWorld: number; atHome: number; walking: number; dead: number };
  area: Area | undefined;
  moves: {
    /** MoveInputs sent a second, all bots. */
    sentPerSecond: number;
    /** What the send policy asked for had the loop never run late (see Counters.movesDue). */
    duePerSecond: number;
    /** sent / due (1 when nothing was due). */
    sentRatio: number;
  };
  /** What the bots received in WorldUpdate frames. */
  updates: {
    /** Entity records a second, all bots together (entity updates delivered). */
    recordsPerSecond: number;
    /** Move and path records a second, all bots together. */
    movementPerSecond: number;
    recordsPerClientPerSecond: number;
    worldUpdatesPerClientPerSecond: number;
    /**
     * WorldUpdate bytes (frame header, tick and time, records) less the bytes of
     * non-movement records, per movement record: every byte of overhead is charged to movement.
     */
    bytesPerMovementUpdate: number | null;
    /** The move and path records' own bytes per movement record (no headers). */
    recordBytesPerMovementUpdate: number | null;
    /** All WorldUpdate bytes per record (headers included). */
    bytesPerRecord: number | null;
    /**
     * The movement records by source, per client per second and average bytes (id delta
     * included): players' and mobs' states (move), mobs' paths (path), and the motion half of
     * spawn blocks (counted in move or path too).
     */
    movementMix: {
      move: { perClientPerSecond: number; bytes: number | null };
      path: { perClientPerSecond: number; bytes: number | null };
      spawnMotion: { perClientPerSecond: number; bytes: number | null };
    };
    /** Move records of other bots matched to their send (latency samples), and not matched. */
    matched: number;
    unmatched: number;
    /** WorldUpdate frames that did not parse. */
    bad: number;
  };
  /** Move -> observer, ms. */
  latency: LatencySummary;
  /** Ping -> Pong, ms. */
  rtt: LatencySummary;
  perClient: { bytesPerSecond: number; framesPerSecond: number };
  inView: { entities: number; players: number; mobs: number };
  errors: Record<string, number>;
  disconnects: number;
  /** Of those, how many resumed and how many could not. */
  resumes: number;
  resumeFailures: number;
  disconnectReasons: Record<string, number>;
  corrections: number;
  deaths: number;
  casts: number;
  chats: number;
  /** The bot process's own CPU use, % of one core. */
  botCpuPercent: number;
  /** How late the bots' step loop ran against its schedule, ms. */
  loopLag: LatencySummary;
}

const SLOTS = 10;

export class Swarm {
  readonly state: SwarmState;
  readonly bots: Bot[] = [];
  private readonly slots: Bot[][] = Array.from({ length: SLOTS }, () => []);
  private spec: AreaSpec;
  private target = 0;
  private timer: NodeJS.Timeout | undefined;
  private progressTimer: NodeJS.Timeout | undefined;
  private nextSlotAt = 0;
  private slot = 0;
  private nextConnectAt = 0;
  private stopping = false;
  private readonly slotMs: number;
  private lastProgress = { at: 0, cpu: process.cpuUsage() };
  private phaseStart = { at: 0, cpu: process.cpuUsage(), counters: zeroCounters() };

  constructor(options: Partial<SwarmOptions> = {}, spec: AreaSpec = { kind: 'density', playersInView: 40 }) {
    this.state = new SwarmState({ ...DEFAULT_SWARM_OPTIONS, ...options });
    this.spec = spec;
    this.slotMs = 1000 / this.state.options.stepHz / SLOTS;
    this.state.onZone = () => this.replan();
  }

  start(): void {
    this.nextSlotAt = Math.ceil(performance.now());
    this.timer = setInterval(() => this.runSlots(), this.slotMs / 2);
    this.lastProgress = { at: performance.now(), cpu: process.cpuUsage() };
    this.markPhase();
    if (this.state.options.progress) this.progressTimer = setInterval(() => this.progress(), 1_000);
  }

  get inWorld(): number {
    let n = 0;
    for (const b of this.bots) if (b.phase === 'inWorld') n++;
    return n;
  }

  /** Adds bots until there are `count` (numbered 1..count), then resolves with how the logins went. */
  async grow(count: number, spec?: AreaSpec): Promise<GrowReport> {
    if (spec) this.spec = spec;
    this.target = Math.max(this.target, count);
    this.replan();
    const started = performance.now();
    const login = new LatencyHistogram();
    const first = this.bots.length + 1;
    const numbers: number[] = [];
    for (let n = first; n <= count; n++) numbers.push(n);
    let failed = 0;
    const worker = async (): Promise<void> => {
      for (let n = numbers.shift(); n !== undefined && !this.stopping; n = numbers.shift()) {
        await this.connectSlot();
        const t0 = performance.now();
        if (await this.launch(n)) login.record(performance.now() - t0);
        else failed++;
      }
    };
    const workers = Math.min(this.state.options.loginConcurrency, numbers.length);
    await Promise.all(Array.from({ length: workers }, worker));
    const seconds = (performance.now() - started) / 1000;
    const made = count - first + 1 - failed;
    return {
      requested: count,
      inWorld: this.inWorld,
      failed,
      seconds: round(seconds),
      loginsPerSecond: round(seconds > 0 ? Math.max(0, made) / seconds : 0),
      login: login.summary(),
    };
  }

  /** Starts a measuring window: the next snapshot covers only what happens after this. */
  markPhase(): void {
    const s = this.state;
    s.phase.latency.reset();
    s.phase.rtt.reset();
    s.phase.lag.reset();
    this.phaseStart = { at: performance.now(), cpu: process.cpuUsage(), counters: { ...s.counters } };
  }

  /** What the bots measured since markPhase. */
  snapshot(): PhaseReport {
    const s = this.state;
    const seconds = Math.max(0.001, (performance.now() - this.phaseStart.at) / 1000);
    const c = diff(s.counters, this.phaseStart.counters);
    const cpu = process.cpuUsage(this.phaseStart.cpu);
    let connected = 0;
    let inWorld = 0;
    let atHome = 0;
    let walking = 0;
    let dead = 0;
    let players = 0;
    let mobs = 0;
    for (const b of this.bots) {
      if (b.phase === 'login' || b.phase === 'connecting') connected++;
      if (b.phase !== 'inWorld' || !b.client) continue;
      connected++;
      inWorld++;
      if (b.atHome) atHome++;
      if (b.moving) walking++;
      if (b.dead) dead++;
      players += b.playersInView;
      mobs += b.mobsInView;
    }
    const per = inWorld > 0 ? inWorld : 1;
    const ratio = (a: number, b: number): number | null => (b > 0 ? round(a / b) : null);
    return {
      seconds: round(seconds),
      bots: { connected, inWorld, atHome, walking, dead },
      area: s.area,
      moves: {
        sentPerSecond: round(c.movesSent / seconds),
        duePerSecond: round(c.movesDue / seconds),
        sentRatio: c.movesDue > 0 ? Math.round((c.movesSent / c.movesDue) * 1000) / 1000 : 1,
      },
      updates: {
        recordsPerSecond: round(c.records / seconds),
        movementPerSecond: round(c.movementRecords / seconds),
        recordsPerClientPerSecond: round(c.records / seconds / per),
        worldUpdatesPerClientPerSecond: round(c.worldUpdates / seconds / per),
        bytesPerMovementUpdate: ratio(c.worldUpdateBytes - c.otherRecordBytes, c.movementRecords),
        recordBytesPerMovementUpdate: ratio(c.movementRecordBytes, c.movementRecords),
        bytesPerRecord: ratio(c.worldUpdateBytes, c.records),
        movementMix: {
          move: {
            perClientPerSecond: round((c.movementRecords - c.pathRecords) / seconds / per),
            bytes: ratio(c.movementRecordBytes - c.pathRecordBytes, c.movementRecords - c.pathRecords),
          },
          path: {
            perClientPerSecond: round(c.pathRecords / seconds / per),
            bytes: ratio(c.pathRecordBytes, c.pathRecords),
          },
          spawnMotion: {
            perClientPerSecond: round(c.spawnMotionRecords / seconds / per),
            bytes: ratio(c.spawnMotionBytes, c.spawnMotionRecords),
          },
        },
        matched: c.matched,
        unmatched: c.unmatched,
        bad: c.badUpdates,
      },
      latency: s.phase.latency.summary(),
      rtt: s.phase.rtt.summary(),
      perClient: {
        bytesPerSecond: round(c.bytesIn / seconds / per),
        framesPerSecond: round(c.framesIn / seconds / per),
      },
      inView: {
        entities: round((players + mobs) / per),
        players: round(players / per),
        mobs: round(mobs / per),
      },
      errors: Object.fromEntries(s.errors),
      disconnects: c.disconnects,
      resumes: c.resumes,
      resumeFailures: c.resumeFailures,
      disconnectReasons: Object.fromEntries(s.disconnectReasons),
      corrections: c.corrections,
      deaths: c.deaths,
      casts: c.casts,
      chats: c.chats,
      botCpuPercent: round(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100),
      loopLag: s.phase.lag.summary(),
    };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    clearInterval(this.progressTimer);
    for (const b of this.bots) b.stop();
    // Let the closes reach the sockets before the caller moves on.
    await new Promise((r) => setTimeout(r, 100));
  }

  private async connectSlot(): Promise<void> {
    const rate = this.state.options.connectRate;
    if (rate <= 0) return;
    const now = performance.now();
    const at = Math.max(now, this.nextConnectAt);
    this.nextConnectAt = at + 1000 / rate;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }

  private async launch(n: number): Promise<boolean> {
    const s = this.state;
    const o = s.options;
    const kind = o.transport === 'mix' ? (n % 2 === 0 ? 'ws' : 'tcp') : o.transport;
    const bot = new Bot(n, kind, s);
    this.bots.push(bot);
    try {
      // Its own gateway first, then the others: a resume after a drop fails over to the next.
      const addresses = Array.from({ length: o.gateways }, (_, i) => {
        const k = (n + i) % o.gateways;
        return kind === 'tcp' ? `${o.host}:${o.tcpPort + k}` : `ws://${o.host}:${o.httpPort + k}/ws`;
      });
      const transport = await connect(addresses[0]!, { transport: kind, timeoutMs: 30_000 });
      if (this.stopping) {
        transport.close();
        return false;
      }
      await bot.start(transport, connectAny(addresses, { transport: kind, timeoutMs: 30_000 }));
    } catch (err) {
      s.counters.loginFailures++;
      s.countError(`login: ${(err as { code?: string }).code ?? (err as Error).message}`);
      bot.phase = 'failed';
      bot.client?.close('login failed');
      return false;
    }
    if (this.stopping || bot.phase !== 'inWorld') return false;
    s.counters.logins++;
    s.botsByEntity[bot.entityId] = bot;
    if (s.area && s.nav) bot.assignHome(s.area, s.nav);
    this.slots[n % SLOTS]!.push(bot);
    return true;
  }

  /** Works out the area for the current spec and target count, and rehomes every bot. */
  private replan(): void {
    const s = this.state;
    const nav = s.nav;
    const zone = s.zone;
    if (!nav || !zone) return;
    const spec = this.spec;
    const r = s.interestRadius;
    let area: Area;
    // An area given may reach into the zones beside; one worked out stays in the entry zone.
    if (spec.kind === 'rect') area = clampArea(spec.area, nav.zone);
    else if (spec.kind === 'spread') {
      const c = s.entry ?? { x: zone.x + zone.width / 2, y: zone.y + zone.height / 2 };
      area = clampArea(
        { x: c.x - spec.radius, y: c.y - spec.radius, w: spec.radius * 2, h: spec.radius * 2 },
        zone,
      );
    } else if (spec.kind === 'dense') {
      const side = (r / Math.SQRT2) * 0.95;
      area = planArea({
        zone,
        count: this.target,
        interestRadius: r,
        playersInView: 1,
        dense: true,
        center: openestCenter(nav, side),
      });
    } else {
      area = planArea({ zone, count: this.target, interestRadius: r, playersInView: spec.playersInView });
    }
    const same = s.area && JSON.stringify(s.area) === JSON.stringify(area);
    s.area = area;
    if (same) return;
    for (const b of this.bots) if (b.phase === 'inWorld') b.assignHome(area, nav);
  }

  private runSlots(): void {
    const now = performance.now();
    if (now < this.nextSlotAt) return;
    this.state.phase.lag.record(now - this.nextSlotAt);
    // Far behind: give up the missed steps (the bots' sends fall due behind them, see movesDue).
    if (now - this.nextSlotAt > 200) this.nextSlotAt = Math.floor(now);
    while (now >= this.nextSlotAt) {
      const list = this.slots[this.slot]!;
      // At the time it runs, not the slot's: a state is stamped with when it was made, as a
      // real client's frame is, so a late slot (this process busy) is not sent as a state
      // made earlier and delivered late. The server would take that for the link's lateness
      // and hold every bot's inputs by it (server/world/timeline.ts).
      const t = performance.now();
      let w = 0;
      for (let i = 0; i < list.length; i++) {
        const b = list[i]!;
        if (b.phase !== 'inWorld') continue;
        list[w++] = b;
        b.tick(t);
      }
      list.length = w;
      this.slot = (this.slot + 1) % SLOTS;
      this.nextSlotAt += this.slotMs;
    }
  }

  private progress(): void {
    const s = this.state;
    const now = performance.now();
    const secs = (now - this.lastProgress.at) / 1000;
    const cpu = process.cpuUsage(this.lastProgress.cpu);
    this.lastProgress = { at: now, cpu: process.cpuUsage() };
    const w = s.window;
    const c = diff(s.counters, w.counters);
    Object.assign(w.counters, s.counters);
    let connected = 0;
    let inWorld = 0;
    for (const b of this.bots) {
      if (b.phase === 'inWorld') inWorld++;
      if (b.phase === 'inWorld' || b.phase === 'login' || b.phase === 'connecting') connected++;
    }
    const lat = w.latency.summary();
    const rtt = w.rtt.summary();
    w.latency.reset();
    w.rtt.reset();
    let errors = 0;
    for (const v of s.errors.values()) errors += v;
    const fmt = (v: number | null) => (v === null ? '-' : v.toFixed(1));
    s.options.log(
      `bots ${connected} conn ${inWorld} world | moves/s ${Math.round(c.movesSent / secs)} ` +
        `records/s ${Math.round(c.records / secs)} | latency p50 ${fmt(lat.p50)} p99 ${fmt(lat.p99)} ms ` +
        `| rtt p50 ${fmt(rtt.p50)} ms | in ${Math.round(c.bytesIn / secs / 1024)} KiB/s ` +
        `| errors ${errors} disc ${s.counters.disconnects} | cpu ${Math.round(((cpu.user + cpu.system) / 1000 / (secs * 1000)) * 100)}%`,
    );
  }
}

export interface RunSwarmOptions extends Partial<SwarmOptions> {
  count: number;
  /** Seconds of play, measured, after every bot has entered. */
  duration: number;
  area?: AreaSpec;
}

export interface SwarmSummary {
  transport: SwarmOptions['transport'];
  count: number;
  grow: GrowReport;
  play: PhaseReport;
}

/** Grows a swarm, plays for `duration` seconds, stops it and reports. */
export async function runSwarm(options: RunSwarmOptions): Promise<SwarmSummary> {
  const { count, duration, area, ...rest } = options;
  const swarm = new Swarm(rest, area);
  swarm.start();
  try {
    const grow = await swarm.grow(count);
    swarm.markPhase();
    await new Promise((r) => setTimeout(r, duration * 1000));
    const play = swarm.snapshot();
    return { transport: swarm.state.options.transport, count, grow, play };
  } finally {
    await swarm.stop();
  }
}

function diff(a: Counters, b: Counters): Counters {
  const out = zeroCounters();
  for (const k of Object.keys(out) as (keyof Counters)[]) out[k] = a[k] - b[k];
  return out;
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
