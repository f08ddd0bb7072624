/**
 * One player of the netcode lab: its own connection to the real server through its own link
 * lab, its own ClientWorld (the SDK's WorldView, prediction, visual tracks), its own figures.
 * It logs in a throwaway account by itself (registering it the first time) and plays one
 * character, driven by keys or by the scripted walk. The lab page draws it and plots its
 * figures; nothing here touches the DOM or Pixi.
 */
import { WyvernError } from '../../../shared/client/errors.js';
import { byOpcode } from '../../../shared/protocol/registry.js';
import { ErrorCode } from '../../../shared/protocol/errors.js';
import { connect, PingPace, type Connection } from './connection.js';
import type { FrameObserver } from './link-lab-transport.js';
import { LabWalk, RateCounter, Series, StepMeter, type Direction, type ScriptedWalk } from '../state/lab.js';
import { CLEAN_LINK, type LinkSettings } from '../state/link-lab.js';
import { NetStats } from '../state/net-stats.js';
import { DrawnErrorMeter, type DrawnEntity } from '../state/truth.js';
import { ClientWorld, type Incoming } from '../state/world.js';

export type Driver = 'script' | 'keys' | 'stand';

export interface LabPlayerOptions {
  /** 'A' walks, 'B' watches (by default). */
  readonly role: 'A' | 'B';
  readonly account: string;
  readonly password: string;
  readonly character: string;
  readonly appearance: number;
  /** The game socket's address (default: /ws on the page's host). */
  readonly url?: string;
}

/** The figures plotted for each player, sampled SAMPLE_MS apart. */
export interface LabSeries {
  rtt: Series;
  jitter: Series;
  buffer: Series;
  delay: Series;
  bytesIn: Series;
  bytesOut: Series;
  corrections: Series;
}

export const SAMPLE_MS = 100;

export class LabPlayer {
  readonly world = new ClientWorld();
  readonly stats = new NetStats();
  readonly link: LinkSettings = { ...CLEAN_LINK };
  /** The scripted driver: the square, replayed from where it first began. */
  readonly walk = new LabWalk();
  readonly series: LabSeries = {
    rtt: new Series(),
    jitter: new Series(),
    buffer: new Series(),
    delay: new Series(),
    bytesIn: new Series(),
    bytesOut: new Series(),
    corrections: new Series(),
  };
  /** How far the other player moves on this player's screen from frame to frame. */
  readonly meter = new StepMeter(3);
  /** How far from where the server had them this player draws the others (judged by the page). */
  readonly truth = new DrawnErrorMeter();
  driver: Driver;
  /** Reconciliation of the own prediction (the predictor is new each time it enters). */
  reconcile = true;
  /** 'connecting', 'ready', or what went wrong, in words for a person. */
  status = 'connecting';
  connection: Connection | undefined;
  /** The entity this player watches (the other player), once both are in the world. */
  watchId: number | undefined;
  private readonly correctionRate = new RateCounter();
  private correctionsSeen = 0;
  private sampledAt = -Infinity;
  private readonly pings = new PingPace();
  /** The latest frames whose step was over the meter's limit, for a look at what happened. */
  readonly jumps: {
    at: number;
    step: number;
    renderTime: number;
    heard: number;
    blending: boolean;
    states: unknown[];
  }[] = [];

  constructor(readonly options: LabPlayerOptions) {
    this.driver = options.role === 'A' ? 'script' : 'stand';
  }

  get role(): 'A' | 'B' {
    return this.options.role;
  }

  get ready(): boolean {
    return this.status === 'ready';
  }

  /** Connects, registers the account if it is new, logs in, makes the character if needed, plays. */
  async start(): Promise<void> {
    const o = this.options;
    const observe: FrameObserver = (dir, opcode, size) =>
      this.stats.record(dir, byOpcode(opcode)?.name ?? 'unknown', size, performance.now());
    try {
      const connection = await connect({
        ...(o.url !== undefined ? { url: o.url } : {}),
        link: this.link,
        observe,
        world: this.world.view,
        onPacket: (name, value) => {
          const p = { name, value } as Incoming;
          if (p.name === 'WorldUpdate') this.stats.recordTick(p.value.tick, p.value.time);
          this.world.apply(p, performance.now());
        },
        onClose: (reason) => {
          this.connection = undefined;
          this.status = `Disconnected: ${reason}. Reload the page to start again.`;
        },
      });
      this.connection = connection;
      const c = connection.client;
      try {
        await c.register(o.account, o.password);
      } catch (err) {
        if (!(err instanceof WyvernError && err.code === ErrorCode.AccountTaken)) throw err;
      }
      await c.login(o.account, o.password);
      let character = (await c.listCharacters()).find(
        (ch) => ch.name.toLowerCase() === o.character.toLowerCase(),
      );
      character ??= await c.createCharacter(o.character, o.appearance);
      this.world.selfAppearance = character.appearance;
      await c.enterWorld(character.id);
      this.status = 'ready';
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.status =
        `Player ${o.role} could not log in as account "${o.account}" with character ` +
        `"${o.character}": ${why}. The lab needs a server that lets it register that account ` +
        '(or knows it with the lab\u2019s password) and create that character.';
      this.connection?.client.close('lab login failed');
      throw new Error(this.status, { cause: err });
    }
  }

  setLink(s: LinkSettings): void {
    Object.assign(this.link, s);
    if (this.connection) this.connection.lab.settings = { ...this.link };
  }

  /** The scripted walk, under the 'script' driver. */
  get script(): ScriptedWalk {
    return this.walk.script;
  }

  /**
   * Replays the scripted walk: back to where it first began (walking there), then from its
   * first leg, so the same square is walked in the same place under whatever settings.
   */
  replay(localNow: number): void {
    this.meter.reset();
    this.truth.reset();
    this.walk.replay(localNow);
  }

  /** Where the scripted walk began the first time (it is replayed from there). */
  get walkHome(): { x: number; y: number } | undefined {
    return this.walk.home;
  }

  /** This frame's direction under the scripted driver; `dtMs` may be cut to land on home. */
  private scripted(localNow: number, dtMs: number): Direction & { dtMs: number } {
    const pr = this.world.self!.predictor;
    return this.walk.direction(localNow, dtMs, pr, pr.speed, this.world.zone);
  }

  /** One frame: predict and send the own movement, then bring the world up to `localNow`. */
  frame(localNow: number, dtMs: number, keys: Direction): void {
    const self = this.world.self;
    const me = this.world.selfEntity();
    const client = this.connection?.client;
    if (this.ready && self && me && client && !client.isClosed) {
      self.predictor.reconcile = this.reconcile;
      const dir =
        this.driver === 'script'
          ? this.scripted(localNow, dtMs)
          : this.driver === 'keys'
            ? { ...keys, dtMs }
            : { x: 0, y: 0, dtMs };
      if (me.alive) self.predictor.step(dir.x, dir.y, dir.dtMs);
      self.predictor.takeInput(client.clock.now(), (s) =>
        client.sendMove(s.x, s.y, s.facing, s.moving, s.speed),
      );
    }
    this.world.prune(localNow);
    // Everything drawn at the drawn time: the others (the own character is predicted ahead).
    const drawn: DrawnEntity[] = [];
    for (const e of this.world.entities.values()) {
      if (e.self) continue;
      const p = this.world.drawnPosition(e, localNow);
      drawn.push({ id: e.id, x: p.x, y: p.y });
    }
    if (this.world.self) this.truth.frame(localNow, this.world.drawnTime(localNow), drawn);
    if (client && !client.isClosed) this.pings.update(client);
    const corrections = self?.predictor.corrections ?? 0;
    if (corrections > this.correctionsSeen) {
      this.correctionRate.add(localNow, corrections - this.correctionsSeen);
      this.correctionsSeen = corrections;
    }
    const watched = this.watchId === undefined ? undefined : this.world.entities.get(this.watchId);
    const step = this.meter.frame(
      watched ? this.world.drawnPosition(watched, localNow) : undefined,
      localNow,
    );
    if (step !== undefined && step > this.meter.limit && watched) {
      const track = this.world.tracks.get(watched.id);
      this.jumps.push({
        at: Math.round(localNow),
        step: Math.round(step * 100) / 100,
        renderTime: Math.round(this.world.clock.renderTime(localNow) % 100_000),
        heard: Math.round((this.world.clock.heard ?? 0) % 100_000),
        blending: track?.blending(localNow) ?? false,
        states: watched.motion
          .slice(-4)
          .map((m) => [Math.round(m.t % 100_000), Math.round(m.x), Math.round(m.y), m.moving]),
      });
      if (this.jumps.length > 20) this.jumps.shift();
    }
    if (localNow - this.sampledAt >= SAMPLE_MS) this.sample(localNow);
  }

  private sample(localNow: number): void {
    this.sampledAt = localNow;
    const clock = this.world.clock;
    const client = this.connection?.client;
    const s = this.series;
    if (client?.clock.lastRtt !== undefined) s.rtt.push(localNow, client.clock.lastRtt);
    s.jitter.push(localNow, clock.jitterMs);
    s.delay.push(localNow, clock.delayMs);
    // How far the newest server time heard runs ahead of the drawn time: what is buffered.
    if (clock.heard !== undefined)
      s.buffer.push(localNow, Math.max(0, clock.heard - clock.renderTime(localNow)));
    s.bytesIn.push(localNow, this.stats.perSecond('in', localNow).bytes);
    s.bytesOut.push(localNow, this.stats.perSecond('out', localNow).bytes);
    s.corrections.push(localNow, this.correctionRate.perSecond(localNow));
    this.stats.rttMs = client?.clock.lastRtt;
    this.stats.interpolationDelayMs = clock.delayMs;
    this.stats.jitterMs = clock.jitterMs;
    this.stats.correctedMoves = this.world.self?.predictor.corrections ?? 0;
    this.stats.pendingMoves = this.world.self?.predictor.pending.length ?? 0;
  }
}
