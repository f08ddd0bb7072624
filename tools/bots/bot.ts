/**
 * One bot: logs in (registering its account the first time), enters the world and plays like
 * a person: walks home, then roams around it (walk to a spot with a turn or two, stop, stand
 * a moment, now and then cast at a mob or say something), pings.
 *
 * Movement is state: the bot moves itself every step and sends a MoveInput only when the
 * send policy says so (start, stop, turn, heartbeat; see shared/client/move-sender.ts), never per step.
 *
 * Receive fast path: every chunk passes through `intake` before the client sees it. The frames
 * that arrive every tick (WorldUpdate, MoveAck) are read in place and never reach the client's
 * decoder: a WorldUpdate's records are walked (records.ts), and a move record of another bot
 * is matched against that bot's recent sends (the server's move record carries the position
 * of the newest MoveInput it accepted) for the move -> observer latency. The bot keeps its own
 * small view (who is in sight, where the mobs are, whether it is itself dead) from the spawn,
 * despawn, death and respawn records. Every other frame is handed to the client whole.
 * Partial frames at the end of a TCP chunk wait for the next chunk.
 *
 * A dropped connection (no goodbye, the swarm not stopping) is followed by a new one that
 * resumes with the newest token, with backoff (shared/client/reconnect.ts): the server kept
 * the character in the world, so the bot walks on from where it stood.
 *
 *   frame: size u16 LE | opcode u16 LE | crc u16 LE | payload
 *   WorldUpdate payload: tick u32 | time f64 | record blocks
 */
import { CLIENT_HEARTBEAT_MS } from '../../shared/game/motion.js';
import { headingTo, type Vec2 } from '../../shared/game/movement.js';
import { WyvernClient } from '../../shared/client/client.js';
import { reconnect } from '../../shared/client/reconnect.js';
import { startLogin } from '../../shared/client/srp.js';
import type { ByteTransport } from '../../shared/client/transport.js';
import { WyvernError } from '../../shared/client/errors.js';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import {
  Bye,
  dequantizeCoord,
  JUMP,
  LoginChallenge,
  LoginOk,
  LoginProof,
  LoginStart,
  MOB_ID_BASE,
  MotionRefs,
  MoveAck,
  MoveInput,
  MOVING,
  PositionCorrection,
  quantizeCoord,
  Register,
  Registered,
  WorldUpdate,
} from '../../shared/protocol/index.js';
import { MoveSender, type MoveState } from '../../shared/client/move-sender.js';
import type { Area, NavGrid } from './nav.js';
import { walkRecords, WORLD_UPDATE_BODY, type RecordVisitor } from './records.js';
import type { SwarmState } from './state.js';

const RING = 32;
const WORLD_UPDATE = WorldUpdate.opcode;
const MOVE_ACK = MoveAck.opcode;
/** A bot wedged this many times in a row on its way home picks another home. */
const STUCK_LIMIT = 6;
const TIME_ORIGIN = performance.timeOrigin;

/** The u16 a coordinate travels as in a move record, for a position sent as f32 in MoveInput. */
export function quantize(v: number): number {
  return quantizeCoord(Math.fround(v));
}

/** A character name for bot n: "Bot" and n in letters (names are letters only). */
export function botCharacterName(n: number): string {
  let s = '';
  let v = n;
  do {
    s = String.fromCharCode(97 + (v % 26)) + s;
    v = Math.floor(v / 26);
  } while (v > 0);
  return `Bot${s}`;
}

export type BotPhase = 'connecting' | 'login' | 'inWorld' | 'reconnecting' | 'closed' | 'failed';

/** Something the bot sees (from its spawn record); mobs keep where they were last said to be. */
interface Seen {
  mob: boolean;
  alive: boolean;
  /** Quantized position of a mob (0 until a motion record says). */
  qx: number;
  qy: number;
}

export class Bot implements RecordVisitor {
  phase: BotPhase = 'connecting';
  client: WyvernClient | undefined;
  entityId = 0;
  /** Motion references before the client exists (a bot fed bytes directly). */
  private readonly refs = new MotionRefs();
  /** This bot resolves players' positions to match latency (one in measureEvery). */
  private get measures(): boolean {
    return this.n % this.s.options.measureEvery === 0;
  }
  x = 0;
  y = 0;
  /** Heading while walking, facing while standing. */
  heading = 0;
  moving = false;
  speed = 120;
  dead = false;
  /** Where the bot lives; it walks there, then roams around it. */
  home: Vec2 = { x: 0, y: 0 };
  anchor = -1;
  atHome = false;
  /** Others in view (players and mobs), from spawn and despawn records. */
  playersInView = 0;
  mobsInView = 0;
  private readonly view = new Map<number, Seen>();
  /** The walk under way: waypoints, and the one being walked to. */
  private route: Vec2[] = [];
  private leg = 0;
  /** Step time the position was last advanced to. */
  private simAt = 0;
  private pauseUntil = 0;
  private nextPingAt = 0;
  private stuckCount = 0;
  private readonly policy = new MoveSender();
  private seq = 0;
  /** Step time and walking flag of the last send (for the count of sends due). */
  private lastSendAt = 0;
  private lastSendMoving = false;
  /** Recent sends: quantized position (x << 16 | y), moving flag, when it was sent (performance.now). */
  private readonly sentKeys = new Uint32Array(RING);
  private readonly sentMoving = new Uint8Array(RING);
  private readonly sentTimes = new Float64Array(RING);
  private sentPos = 0;
  /** Receive time of the chunk being walked. */
  private rxAt = 0;
  private pending: Uint8Array | undefined;
  private deliver: (bytes: Uint8Array) => void = () => {};
  private characterId = 0;
  /** Opens a new connection to the same server (for a resume); none: a drop is the end. */
  private reopen: (() => Promise<ByteTransport>) | undefined;
  private byeReceived = false;
  private stopping = false;

  constructor(
    readonly n: number,
    readonly transportKind: 'tcp' | 'ws',
    private readonly s: SwarmState,
  ) {}

  get account(): string {
    return `${this.s.options.prefix}${this.n}`;
  }

  /**
   * Connects, logs in and enters the world; rejects with the reason when it cannot. With
   * `reopen`, a dropped connection is resumed on a new one.
   */
  async start(transport: ByteTransport, reopen?: () => Promise<ByteTransport>): Promise<void> {
    const s = this.s;
    this.reopen = reopen;
    const client = new WyvernClient(transport, { requestTimeoutMs: 300_000 });
    this.adopt(client);

    this.phase = 'login';
    await client.hello({ clientKind: 'bot', clientName: 'wyvern-bots' });
    const verifier = await s.verifier();
    try {
      await client.request(
        Register,
        { account: this.account, salt: verifier.salt, verifier: verifier.verifier },
        Registered,
      );
    } catch (err) {
      if (!(err instanceof WyvernError) || err.code !== 'ERR_ACCOUNT_TAKEN') throw err;
    }
    await this.login(client);
    const characters = await client.listCharacters();
    const character = characters[0] ?? (await client.createCharacter(botCharacterName(this.n), this.n % 8));
    this.characterId = character.id;
    const entered = await client.enterWorld(character.id);
    this.entityId = entered.enter.entityId;
    this.speed = entered.enter.speed;
    const now = performance.now();
    this.stand(now, entered.enter.x, entered.enter.y, entered.enter.facing);
    if (!s.zone) {
      s.interestRadius = entered.enter.interestRadius;
      s.entry = { x: this.x, y: this.y };
    }
    s.zoneKnown(entered.zone);
    this.phase = 'inWorld';
    this.nextPingAt = now + Math.random() * s.options.pingIntervalMs;
    this.pauseUntil = now + Math.random() * 500;
  }

  /**
   * SRP login with the swarm's one shared identity (see SwarmState.verifier): LoginStart
   * names this bot's account, the proof is made for the shared identity and password.
   */
  private async login(client: WyvernClient): Promise<void> {
    const { identity, password } = this.s.credentials;
    const answer = await startLogin(identity, password);
    const challenge = await client.request(
      LoginStart,
      { account: this.account, deviceToken: new Uint8Array(0) },
      LoginChallenge,
    );
    const proof = await answer(challenge.salt, challenge.B);
    const ok = await client.request(LoginProof, { A: proof.A, M1: proof.M1 }, LoginOk);
    if (!(await proof.verifyServer(ok.M2))) throw new Error('the server failed to prove the account');
    client.state = 'authenticated';
    client.account = ok.account;
    client.accountId = ok.accountId;
    client.resumeToken = ok.resumeToken;
  }

  /** Makes `client` this bot's connection: its bytes, errors, close and corrections. */
  private adopt(client: WyvernClient): void {
    const s = this.s;
    this.client = client;
    this.byeReceived = false;
    this.pending = undefined;
    this.hook(client.transport);
    client.onError = (err) => s.countError(err.code);
    client.onClose = (reason) => this.closed(client, reason);
    client.on(Bye, () => (this.byeReceived = true));
    client.on(PositionCorrection, (c) => {
      s.counters.corrections++;
      // The server has the bot standing there: stand, then walk on from there.
      const now = performance.now();
      this.stand(now, c.x, c.y, c.facing);
      this.pauseUntil = now + 300;
    });
  }

  /**
   * After a dropped connection: a new one resumes with the newest token (with backoff). Back in
   * the world the bot stands where the server kept it and walks on; when the character had
   * already left it enters again.
   */
  private async resume(token: Uint8Array): Promise<void> {
    const s = this.s;
    this.phase = 'reconnecting';
    this.moving = false;
    this.route = [];
    try {
      const back = await reconnect({
        connect: this.reopen!,
        account: this.account,
        token,
        clientKind: 'bot',
        clientName: 'wyvern-bots',
        clientOptions: { requestTimeoutMs: 300_000 },
        prepare: (client) => this.adopt(client),
      });
      if (this.stopping) {
        back.client.close('the swarm is stopping');
        return;
      }
      const entered = back.result.entered ?? (await back.client.enterWorld(this.characterId));
      this.entityId = entered.enter.entityId;
      this.dead = entered.enter.health === 0;
      this.view.clear();
      this.playersInView = this.mobsInView = 0;
      this.stand(performance.now(), entered.enter.x, entered.enter.y, entered.enter.facing);
      this.phase = 'inWorld';
      s.botResumed(this);
    } catch (err) {
      s.counters.resumeFailures++;
      s.countError(`resume: ${(err as { code?: string }).code ?? (err as Error).message}`);
      this.phase = 'closed';
    }
  }

  /** Gives the bot a new home in `area` (it walks there from wherever it is). */
  assignHome(area: Area, nav: NavGrid): void {
    const h = nav.randomHome(area, Math.random);
    this.home = h.point;
    this.anchor = h.anchor;
    this.atHome = false;
    this.stuckCount = 0;
    // A walk under way ends at its next waypoint; from there the bot heads for the new home.
    if (this.moving) this.route.length = this.leg + 1;
  }

  /** One simulation step at step time `t` (performance.now() time base), stepHz times a second. */
  tick(t: number): void {
    const s = this.s;
    const client = this.client;
    if (this.phase !== 'inWorld' || !client) return;
    if (t >= this.nextPingAt) {
      this.nextPingAt = t + s.options.pingIntervalMs;
      const sent = performance.now();
      client.ping().then(
        () => s.rtt(performance.now() - sent),
        () => {},
      );
    }
    const nav = s.nav;
    if (this.dead || !nav || this.anchor < 0) {
      this.simAt = t;
      return;
    }
    this.advance(t, nav);
    if (!this.moving && t >= this.pauseUntil) this.startWalk(t, nav);
    const state = this.policy.update(t, this.x, this.y, this.heading, this.moving, this.speed);
    if (state) this.send(state, t);
  }

  /**
   * Walks the route from simAt to t. A step that reaches a waypoint ends there, turned onto
   * the next leg (or stopped): the state sent for the turn is the corner itself, so the line
   * the server checks between two sends always runs along a leg checked clear of walls,
   * never across the inside of a turn. A corner costs at most one step of walking time.
   */
  private advance(t: number, nav: NavGrid): void {
    const dt = (t - this.simAt) / 1000;
    this.simAt = t;
    if (!this.moving || dt <= 0) return;
    const wp = this.route[this.leg]!;
    const dx = wp.x - this.x;
    const dy = wp.y - this.y;
    const dist = Math.hypot(dx, dy);
    const step = this.speed * dt;
    if (step < dist) {
      this.x += (dx * step) / dist;
      this.y += (dy * step) / dist;
      return;
    }
    this.x = wp.x;
    this.y = wp.y;
    if (++this.leg < this.route.length) {
      this.heading = headingTo(this, this.route[this.leg]!);
      return;
    }
    if (!this.atHome && wp === this.home) this.atHome = true;
    if (this.atHome) {
      this.moving = false;
      this.pause(t);
      return;
    }
    // On the way home: the next leg, without stopping.
    const next = this.homeWaypoint(nav);
    if (next) this.walkTo([next]);
    else {
      this.moving = false;
      this.stuck(t, nav);
    }
  }

  /** Starts a walk: on toward home, or a stroll near it. */
  private startWalk(t: number, nav: NavGrid): void {
    if (!this.atHome) {
      const next = this.homeWaypoint(nav);
      if (next) this.walkTo([next]);
      else this.stuck(t, nav);
      return;
    }
    const route = this.stroll(nav);
    if (route) this.walkTo(route);
    else this.pause(t);
  }

  private walkTo(route: Vec2[]): void {
    this.route = route;
    this.leg = 0;
    this.moving = true;
    this.heading = headingTo(this, route[0]!);
    this.stuckCount = 0;
  }

  /** Straight home when the line is clear, else the next waypoint down the distance field. */
  private homeWaypoint(nav: NavGrid): Vec2 | undefined {
    if (nav.clearLine(this, this.home)) return this.home;
    return nav.waypointToward(this, this.anchor);
  }

  /** A stroll near home: a spot within the roam radius, reached with up to two turns. */
  private stroll(nav: NavGrid): Vec2[] | undefined {
    const o = this.s.options;
    const area = this.s.area!;
    for (let attempt = 0; attempt < 6; attempt++) {
      const a = Math.random() * Math.PI * 2;
      const d = 20 + Math.random() * o.roamRadius;
      const target = {
        x: Math.min(area.x + area.w, Math.max(area.x, this.home.x + Math.cos(a) * d)),
        y: Math.min(area.y + area.h, Math.max(area.y, this.home.y + Math.sin(a) * d)),
      };
      if (!nav.clearLine(this, target)) continue;
      const r = Math.random();
      const bends = r < 0.35 ? 0 : r < 0.8 ? 1 : 2;
      if (bends === 0) return [target];
      const dx = target.x - this.x;
      const dy = target.y - this.y;
      const route: Vec2[] = [];
      for (let k = 1; k <= bends; k++) {
        const f = k / (bends + 1);
        const off = (Math.random() - 0.5) * 0.6;
        route.push({ x: this.x + dx * f - dy * off, y: this.y + dy * f + dx * off });
      }
      route.push(target);
      let from: Vec2 = { x: this.x, y: this.y };
      let ok = true;
      for (const p of route) {
        if (!nav.clearLine(from, p)) {
          ok = false;
          break;
        }
        from = p;
      }
      return ok ? route : [target];
    }
    return undefined;
  }

  /** Stands a while; sometimes casts at a mob or says something first. */
  private pause(t: number): void {
    let pauseMs = 300 + Math.random() * 1_500;
    const o = this.s.options;
    if (Math.random() < o.castChance) pauseMs = Math.max(pauseMs, this.castAtMob());
    if (Math.random() < o.chatChance && this.client) {
      this.client.say(`bot ${this.n} here`);
      this.s.counters.chats++;
    }
    this.pauseUntil = t + pauseMs;
  }

  /** No way on toward home from here: wait a moment and try again; in the end, another home. */
  private stuck(t: number, nav: NavGrid): void {
    this.pauseUntil = t + 300;
    if (++this.stuckCount < STUCK_LIMIT) return;
    const area = this.s.area;
    if (area) this.assignHome(area, nav);
  }

  /** Casts the quickest damage spell at the nearest live mob in view; returns the cast time. */
  private castAtMob(): number {
    const client = this.client!;
    const spell = this.s.damageSpell(client);
    if (!spell) return 0;
    let best = -1;
    let bestD = spell.range * 0.9;
    for (const [id, e] of this.view) {
      if (!e.mob || !e.alive || (e.qx === 0 && e.qy === 0)) continue;
      const d = Math.hypot(dequantizeCoord(e.qx) - this.x, dequantizeCoord(e.qy) - this.y);
      if (d <= bestD) {
        bestD = d;
        best = id;
      }
    }
    if (best < 0) return 0;
    client.cast(spell.id, best);
    this.s.counters.casts++;
    return spell.castTime + 300;
  }

  /** Stands at (x, y) as the server has it (entered, respawned, corrected). */
  stand(now: number, x: number, y: number, facing: number): void {
    this.x = x;
    this.y = y;
    this.heading = facing;
    this.moving = false;
    this.route = [];
    this.simAt = now;
    this.lastSendMoving = false;
    this.policy.reset(now, x, y, facing);
  }

  private send(state: MoveState, t: number): void {
    const c = this.s.counters;
    const now = performance.now();
    // Sends due: this one, plus heartbeats the loop let slip before it (it ran late).
    c.movesDue += this.lastSendMoving
      ? Math.max(1, Math.floor((t - this.lastSendAt) / CLIENT_HEARTBEAT_MS))
      : 1;
    this.lastSendAt = t;
    this.lastSendMoving = state.moving;
    this.noteSent(state.x, state.y, state.moving, now);
    this.client!.send(MoveInput, {
      ...state,
      seq: ++this.seq,
      clientTime: TIME_ORIGIN + t,
      epoch: this.client!.moveEpoch,
    });
    c.movesSent++;
  }

  /** Remembers a send (position as sent, f32) for the latency match. */
  noteSent(x: number, y: number, moving: boolean, at: number): void {
    const i = this.sentPos;
    this.sentKeys[i] = ((quantize(x) << 16) | quantize(y)) >>> 0;
    this.sentMoving[i] = moving ? 1 : 0;
    this.sentTimes[i] = at;
    this.sentPos = (i + 1) % RING;
  }

  /** When this bot sent the state at quantized `key` (x << 16 | y), or -1 when none recent matches. */
  sentAt(key: number, moving: boolean): number {
    const m = moving ? 1 : 0;
    for (let k = 1; k <= RING; k++) {
      const i = (this.sentPos - k + RING) % RING;
      if (this.sentKeys[i] === key && this.sentMoving[i] === m && this.sentTimes[i]! > 0)
        return this.sentTimes[i]!;
    }
    return -1;
  }

  /**
   * Puts `intake` in front of whoever reads the transport now (the client, once it is made):
   * frames the bot does not read in place go on to it. start() does this; tests call it alone.
   */
  hook(transport: ByteTransport): void {
    this.deliver = transport.onBytes;
    transport.onBytes = (chunk) => this.intake(chunk);
  }

  /** Every received chunk: the hot frames are read here, the rest go to the client. */
  private intake(chunk: Uint8Array): void {
    const c = this.s.counters;
    const now = performance.now();
    c.bytesIn += chunk.length;
    let buf = chunk;
    if (this.pending) {
      buf = new Uint8Array(this.pending.length + chunk.length);
      buf.set(this.pending);
      buf.set(chunk, this.pending.length);
      this.pending = undefined;
    }
    let p = 0;
    let runStart = 0;
    const end = buf.length;
    while (end - p >= HEADER_SIZE) {
      const size = buf[p]! | (buf[p + 1]! << 8);
      if (size < HEADER_SIZE) {
        // A broken frame: let the client's decoder report it.
        this.deliver(buf.subarray(runStart));
        return;
      }
      if (p + size > end) break;
      const opcode = buf[p + 2]! | (buf[p + 3]! << 8);
      c.framesIn++;
      if (opcode === WORLD_UPDATE || opcode === MOVE_ACK) {
        if (runStart < p) this.deliver(buf.subarray(runStart, p));
        if (opcode === WORLD_UPDATE) {
          c.worldUpdates++;
          c.worldUpdateBytes += size;
          this.rxAt = now;
          // The client's references: its EnterWorld set where the heads count from.
          const refs = this.client?.motionRefs ?? this.refs;
          if (!walkRecords(buf, p + WORLD_UPDATE_BODY, p + size, refs, this, c, this.measures))
            c.badUpdates++;
        } else c.moveAcks++;
        p += size;
        runStart = p;
      } else {
        p += size;
      }
    }
    if (runStart < p) this.deliver(buf.subarray(runStart, p));
    if (p < end) this.pending = buf.slice(p);
  }

  // ---- records (RecordVisitor): called by walkRecords for each record of a WorldUpdate

  move(id: number, qx: number, qy: number, tag: number, spawned: boolean): void {
    if (id >= MOB_ID_BASE) {
      this.mobAt(id, qx, qy);
      return;
    }
    // The bot's own state, where a spawn puts someone, a snap: nothing sent to match; and
    // only the bots that measure match at all, so every sample comes from the same observers.
    if (id === this.entityId || spawned || tag & JUMP || !this.measures) return;
    const s = this.s;
    const owner = s.botsByEntity[id];
    if (!owner) return;
    const sent = owner.sentAt(((qx << 16) | qy) >>> 0, (tag & MOVING) !== 0);
    if (sent < 0) {
      s.counters.unmatched++;
      return;
    }
    s.counters.matched++;
    s.latency(this.rxAt - sent);
  }

  path(id: number, qx: number, qy: number): void {
    this.mobAt(id, qx, qy);
  }

  spawn(id: number, mob: boolean, alive: boolean): void {
    if (id === this.entityId) return;
    const e = this.view.get(id);
    if (e) {
      e.alive = alive;
      return;
    }
    this.view.set(id, { mob, alive, qx: 0, qy: 0 });
    if (mob) this.mobsInView++;
    else this.playersInView++;
  }

  despawn(id: number): void {
    const e = this.view.get(id);
    if (!e) return;
    this.view.delete(id);
    if (e.mob) this.mobsInView--;
    else this.playersInView--;
  }

  death(id: number): void {
    if (id === this.entityId) {
      if (!this.dead) this.s.counters.deaths++;
      this.dead = true;
      this.moving = false;
      this.route = [];
      return;
    }
    const e = this.view.get(id);
    if (e) e.alive = false;
  }

  respawn(id: number, qx: number, qy: number): void {
    if (id === this.entityId) {
      // Alive again at the graveyard: stand there, then walk home.
      this.dead = false;
      this.stand(this.rxAt, dequantizeCoord(qx), dequantizeCoord(qy), this.heading);
      this.atHome = false;
      this.pauseUntil = this.rxAt + 500;
      return;
    }
    const e = this.view.get(id);
    if (!e) return;
    e.alive = true;
    e.qx = qx;
    e.qy = qy;
  }

  private mobAt(id: number, qx: number, qy: number): void {
    const e = this.view.get(id);
    if (!e) return;
    e.qx = qx;
    e.qy = qy;
  }

  private closed(client: WyvernClient, reason: string): void {
    // A failed attempt of a reconnect closing: the reconnect goes on.
    if (client !== this.client || this.phase === 'reconnecting') return;
    const wasInWorld = this.phase === 'inWorld';
    this.phase = 'closed';
    this.s.botClosed(this, wasInWorld, reason);
    const token = client.resumeToken;
    if (wasInWorld && this.reopen && token && !this.byeReceived && !this.stopping) void this.resume(token);
  }

  /** Closes the connection (the swarm is stopping). */
  stop(): void {
    this.stopping = true;
    this.phase = 'closed';
    this.client?.close('the swarm is stopping');
  }
}
