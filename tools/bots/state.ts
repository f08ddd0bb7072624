/**
 * What every bot of one process shares: options, counters, latency histograms, the zone's
 * navigation grid, the area bots live in, the entity-id -> bot table the latency match
 * reads, and the one SRP verifier all bot accounts are registered with.
 */
import type { WyvernClient } from '../../shared/client/client.js';
import { makeVerifier } from '../../shared/client/srp.js';
import type { ZoneInfoPayload } from '../../shared/client/world-view.js';
import type { Bot } from './bot.js';
import { LatencyHistogram } from './histogram.js';
import { walkGround } from '../../shared/game/ground.js';
import { NavGrid, type Area } from './nav.js';

export interface SwarmOptions {
  host: string;
  tcpPort: number;
  httpPort: number;
  /**
   * Gateways of a cluster: bot n connects to gateway n mod this, at tcpPort + k and
   * httpPort + k (gateway k's ports by the cluster's scheme).
   */
  gateways: number;
  /** 'mix' alternates tcp and ws by bot number. */
  transport: 'tcp' | 'ws' | 'mix';
  /** Account names are prefix + n. */
  prefix: string;
  password: string;
  /** Logins in flight at once. */
  loginConcurrency: number;
  /** Most new connections per second (0: only the concurrency bounds it). */
  connectRate: number;
  pingIntervalMs: number;
  /**
   * Bot simulation steps a second (position, route, send policy). Movement states go out by
   * the send policy (start, stop, turn, heartbeat), not once per step; a heartbeat is due
   * every CLIENT_HEARTBEAT_MS, so a rate that divides it (20: every 50 ms) keeps them on time.
   */
  stepHz: number;
  /**
   * One bot in this many measures move -> observer latency: it keeps every entity's motion
   * reference to resolve moveBy records to positions. The others read records only as far as
   * counting them and placing mobs needs, so the swarm's own cost stays off the server's figures.
   */
  measureEvery: number;
  /** How far from home a bot roams. */
  roamRadius: number;
  /** Chance, at each pause between walks, to cast at a mob / to say something. */
  castChance: number;
  chatChance: number;
  /** Print a progress line a second. */
  progress: boolean;
  log: (line: string) => void;
}

export const DEFAULT_SWARM_OPTIONS: SwarmOptions = {
  host: '127.0.0.1',
  tcpPort: 7777,
  httpPort: 8080,
  gateways: 1,
  transport: 'tcp',
  prefix: 'bot',
  password: 'wyvern-bot-password',
  loginConcurrency: 32,
  connectRate: 0,
  pingIntervalMs: 5_000,
  stepHz: 20,
  roamRadius: 90,
  measureEvery: 4,
  castChance: 0.15,
  chatChance: 0.02,
  progress: true,
  log: (line) => process.stdout.write(`${line}\n`),
};

export interface Counters {
  /** MoveInputs sent. */
  movesSent: number;
  /**
   * MoveInputs the send policy asked for had every heartbeat gone out on time: each send
   * counts 1, plus the heartbeats missed before it while walking (a gap of k heartbeat
   * periods owes k). Below movesSent only when the bots' loop ran late.
   */
  movesDue: number;
  /** WorldUpdate frames, and their bytes (headers included). */
  worldUpdates: number;
  worldUpdateBytes: number;
  /** Entity records received (every kind). */
  records: number;
  /** Move and path records received. */
  movementRecords: number;
  /** Bytes of received move and path records (id delta included, no headers). */
  movementRecordBytes: number;
  /** Bytes of received records that are not movement (spawns, despawns, health, deaths, respawns). */
  otherRecordBytes: number;
  /** Of the movement records: paths (mobs), and their bytes. */
  pathRecords: number;
  pathRecordBytes: number;
  /** Of the movement records: the motion half of a spawn block, and their bytes. */
  spawnMotionRecords: number;
  spawnMotionBytes: number;
  /** Move records of another bot matched to its send (latency samples). */
  matched: number;
  /** Move records of another bot (not a spawn's, not a jump) whose recent sends hold no such state. */
  unmatched: number;
  /** WorldUpdate frames whose records did not parse. */
  badUpdates: number;
  moveAcks: number;
  framesIn: number;
  bytesIn: number;
  corrections: number;
  deaths: number;
  casts: number;
  chats: number;
  disconnects: number;
  /** Dropped connections that resumed: back in the world (or entered again). */
  resumes: number;
  /** Dropped connections that could not get back. */
  resumeFailures: number;
  loginFailures: number;
  logins: number;
}

export function zeroCounters(): Counters {
  return {
    movesSent: 0,
    movesDue: 0,
    worldUpdates: 0,
    worldUpdateBytes: 0,
    records: 0,
    movementRecords: 0,
    movementRecordBytes: 0,
    otherRecordBytes: 0,
    pathRecords: 0,
    pathRecordBytes: 0,
    spawnMotionRecords: 0,
    spawnMotionBytes: 0,
    matched: 0,
    unmatched: 0,
    badUpdates: 0,
    moveAcks: 0,
    framesIn: 0,
    bytesIn: 0,
    corrections: 0,
    deaths: 0,
    casts: 0,
    chats: 0,
    disconnects: 0,
    resumes: 0,
    resumeFailures: 0,
    loginFailures: 0,
    logins: 0,
  };
}

export interface SpellChoice {
  id: number;
  range: number;
  castTime: number;
}

/**
 * The identity every bot account's SRP verifier is made for. SRP-6a's proofs here are
 * M1 = H(A, B, S) and M2 = H(A, M1, S) (the identity enters only x = H(salt, H(I:P)), i.e.
 * the verifier), so one verifier made once serves every bot account, and registering a
 * thousand bots costs one verifier computation instead of a thousand.
 */
const SHARED_IDENTITY = 'wyvernbot';

export class SwarmState {
  readonly counters = zeroCounters();
  /** Since the last progress line. */
  readonly window = {
    latency: new LatencyHistogram(),
    rtt: new LatencyHistogram(),
    counters: zeroCounters(),
  };
  /** Since the last markPhase (the bench's measuring window). */
  readonly phase = {
    latency: new LatencyHistogram(),
    rtt: new LatencyHistogram(),
    login: new LatencyHistogram(),
    /** How late the bots' step loop ran against its schedule (ms, one sample per run). */
    lag: new LatencyHistogram(),
  };
  readonly errors = new Map<string, number>();
  readonly disconnectReasons = new Map<string, number>();
  /** Player entity id -> the bot playing it. */
  readonly botsByEntity: (Bot | undefined)[] = [];
  nav: NavGrid | undefined;
  area: Area | undefined;
  zone: ZoneInfoPayload | undefined;
  /** From the first EnterWorld. */
  interestRadius = 250;
  /** Where the first bot entered the world (new characters start there). */
  entry: { x: number; y: number } | undefined;
  /** Called once the zone is known (the first bot entered). */
  onZone: (() => void) | undefined;
  private verifierMade: Promise<{ salt: Uint8Array; verifier: Uint8Array }> | undefined;
  private spell: SpellChoice | null | undefined;

  constructor(readonly options: SwarmOptions) {}

  get credentials(): { identity: string; password: string } {
    return { identity: SHARED_IDENTITY, password: this.options.password };
  }

  verifier(): Promise<{ salt: Uint8Array; verifier: Uint8Array }> {
    return (this.verifierMade ??= makeVerifier(SHARED_IDENTITY, this.options.password));
  }

  zoneKnown(zone: ZoneInfoPayload): void {
    if (this.zone) return;
    this.zone = zone;
    // Bots may walk on into the zones beside (an --area across a border): they know the walls
    // of their own zone and the neighbours' near the line, as ZoneInfo gives them.
    const ground = walkGround(zone);
    this.nav = new NavGrid({ ...ground.zone, obstacles: ground.obstacles });
    this.onZone?.();
  }

  damageSpell(client: WyvernClient): SpellChoice | undefined {
    if (this.spell === undefined) {
      const damage = (client.spellBook?.spells ?? []).filter((sp) => sp.kind === 'damage');
      damage.sort((a, b) => a.castTime - b.castTime);
      const sp = damage[0];
      this.spell = sp ? { id: sp.id, range: sp.range, castTime: sp.castTime } : null;
    }
    return this.spell ?? undefined;
  }

  latency(ms: number): void {
    this.window.latency.record(ms);
    this.phase.latency.record(ms);
  }

  rtt(ms: number): void {
    this.window.rtt.record(ms);
    this.phase.rtt.record(ms);
  }

  countError(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  /** A bot back in the world after a dropped connection. */
  botResumed(bot: Bot): void {
    this.botsByEntity[bot.entityId] = bot;
    this.counters.resumes++;
  }

  botClosed(bot: Bot, wasInWorld: boolean, reason: string): void {
    if (this.botsByEntity[bot.entityId] === bot) this.botsByEntity[bot.entityId] = undefined;
    if (!wasInWorld) return;
    this.counters.disconnects++;
    this.disconnectReasons.set(reason, (this.disconnectReasons.get(reason) ?? 0) + 1);
  }
}
