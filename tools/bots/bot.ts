/**
 * One bot: logs in (registering its account the first time), enters the world and plays:
 * walks in bursts at 10 Hz, now and then casts at a mob or says something, pings.
 *
 * Receive fast path: every chunk passes through `intake` before the client sees it. Frames
 * that arrive by the hundred per second (EntityMove, WorldTick, MoveAck) are read in place
 * (EntityMove: the id and the two quantized coordinates, for the latency match) and never
 * reach the client's decoder; every other frame is handed to the client whole. Partial
 * frames at the end of a TCP chunk wait for the next chunk.
 *
 *   frame: size u16 LE | opcode u16 LE | crc u16 LE | payload
 *   EntityMove payload: id varint | x u16 LE | y u16 LE | facing u8   (x, y quantized)
 */
import { headingTo, type Vec2 } from '../../shared/game/movement.js';
import { WyvernClient } from '../../shared/client/client.js';
import { startLogin } from '../../shared/client/srp.js';
import type { ByteTransport } from '../../shared/client/transport.js';
import { WyvernError } from '../../shared/client/errors.js';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import {
  LoginChallenge,
  LoginOk,
  LoginProof,
  LoginStart,
  Register,
  Registered,
} from '../../shared/protocol/account.js';
import { COORD_MAX, MOB_ID_BASE } from '../../shared/protocol/common.js';
import { Death, Respawn } from '../../shared/protocol/entity.js';
import { EntityMove, MoveAck, PositionCorrection, WorldTick } from '../../shared/protocol/movement.js';
import type { Area, NavGrid } from './nav.js';
import type { SwarmState } from './state.js';

const QUANT_SCALE = 65535 / COORD_MAX;
const RING = 32;
const ENTITY_MOVE = EntityMove.opcode;
const WORLD_TICK = WorldTick.opcode;
const MOVE_ACK = MoveAck.opcode;

/** The u16 a coordinate travels as in EntityMove, for a position sent as f32 in MoveInput. */
export function quantize(v: number): number {
  const q = Math.round(Math.fround(v) * QUANT_SCALE);
  return q < 0 ? 0 : q > 65535 ? 65535 : q;
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

export type BotPhase = 'connecting' | 'login' | 'inWorld' | 'closed' | 'failed';

export class Bot {
  phase: BotPhase = 'connecting';
  client: WyvernClient | undefined;
  entityId = 0;
  x = 0;
  y = 0;
  speed = 120;
  dead = false;
  /** Where the bot lives; it walks there, then roams around it. */
  home: Vec2 = { x: 0, y: 0 };
  anchor = -1;
  atHome = false;
  private target: Vec2 | undefined;
  private walkUntil = 0;
  private pauseUntil = 0;
  private nextPingAt = 0;
  private stuckTicks = 0;
  /** Recent sends: quantized position (x << 16 | y) and when it was sent (performance.now). */
  readonly sentKeys = new Uint32Array(RING);
  readonly sentTimes = new Float64Array(RING);
  private sentPos = 0;
  private pending: Uint8Array | undefined;
  private deliver: (bytes: Uint8Array) => void = () => {};

  constructor(
    readonly n: number,
    readonly transportKind: 'tcp' | 'ws',
    private readonly s: SwarmState,
  ) {}

  get account(): string {
    return `${this.s.options.prefix}${this.n}`;
  }

  /** Connects, logs in and enters the world; rejects with the reason when it cannot. */
  async start(transport: ByteTransport): Promise<void> {
    const s = this.s;
    const client = new WyvernClient(transport, { requestTimeoutMs: 300_000 });
    this.client = client;
    this.deliver = transport.onBytes;
    transport.onBytes = (chunk) => this.intake(chunk);
    client.onError = (err) => s.countError(err.code);
    client.onClose = (reason) => this.closed(reason);
    client.on(PositionCorrection, (c) => {
      s.counters.corrections++;
      this.x = c.x;
      this.y = c.y;
      this.target = undefined;
    });
    client.on(Death, (d) => {
      if (d.id === this.entityId) this.dead = true;
    });
    client.on(Respawn, (r) => {
      if (r.id !== this.entityId) return;
      this.dead = false;
      this.x = r.x;
      this.y = r.y;
      this.atHome = false;
      this.target = undefined;
    });

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
    const entered = await client.enterWorld(character.id);
    this.entityId = entered.enter.entityId;
    this.x = entered.enter.x;
    this.y = entered.enter.y;
    this.speed = entered.enter.speed;
    if (!s.zone) {
      s.interestRadius = entered.enter.interestRadius;
      s.entry = { x: this.x, y: this.y };
    }
    s.zoneKnown(entered.zone);
    this.phase = 'inWorld';
    this.nextPingAt = performance.now() + Math.random() * s.options.pingIntervalMs;
    this.pauseUntil = performance.now() + Math.random() * 500;
  }

  /**
   * SRP login with the swarm's one shared identity (see SwarmState.verifier): LoginStart
   * names this bot's account, the proof is made for the shared identity and password.
   */
  private async login(client: WyvernClient): Promise<void> {
    const { identity, password } = this.s.credentials;
    const answer = await startLogin(identity, password);
    const challenge = await client.request(LoginStart, { account: this.account }, LoginChallenge);
    const proof = await answer(challenge.salt, challenge.B);
    const ok = await client.request(LoginProof, { A: proof.A, M1: proof.M1 }, LoginOk);
    if (!(await proof.verifyServer(ok.M2))) throw new Error('the server failed to prove the account');
    client.state = 'authenticated';
    client.account = ok.account;
    client.accountId = ok.accountId;
  }

  /** Gives the bot a new home in `area` (it walks there from wherever it is). */
  assignHome(area: Area, nav: NavGrid): void {
    const h = nav.randomHome(area, Math.random);
    this.home = h.point;
    this.anchor = h.anchor;
    this.atHome = false;
    this.target = undefined;
  }

  /** Called moveHz times a second (staggered across bots) while in the world. */
  tick(now: number): void {
    const s = this.s;
    const client = this.client;
    if (this.phase !== 'inWorld' || !client) return;
    if (now >= this.nextPingAt) {
      this.nextPingAt = now + s.options.pingIntervalMs;
      const sent = performance.now();
      client.ping().then(
        () => s.rtt(performance.now() - sent),
        () => {},
      );
    }
    const nav = s.nav;
    if (this.dead || !nav || this.anchor < 0) return;
    if (now < this.pauseUntil) return;
    if (!this.target || now >= this.walkUntil) {
      if (this.target && this.atHome) {
        this.pause(now);
        return;
      }
      this.chooseTarget(now, nav);
    }
    this.walk(now, nav);
  }

  private chooseTarget(now: number, nav: NavGrid): void {
    const o = this.s.options;
    if (!this.atHome) {
      this.target = this.home;
      this.walkUntil = Infinity;
      return;
    }
    const area = this.s.area!;
    for (let i = 0; i < 6; i++) {
      const a = Math.random() * Math.PI * 2;
      const d = 20 + Math.random() * o.roamRadius;
      const t = {
        x: Math.min(area.x + area.w, Math.max(area.x, this.home.x + Math.cos(a) * d)),
        y: Math.min(area.y + area.h, Math.max(area.y, this.home.y + Math.sin(a) * d)),
      };
      if (nav.clearLine(this, t)) {
        this.target = t;
        this.walkUntil = now + 1_500 + Math.random() * 3_500;
        return;
      }
    }
    this.target = undefined;
    this.pause(now);
  }

  private pause(now: number): void {
    this.target = undefined;
    let pauseMs = 200 + Math.random() * 1_000;
    const o = this.s.options;
    if (Math.random() < o.castChance) pauseMs = Math.max(pauseMs, this.castAtMob());
    if (Math.random() < o.chatChance && this.client) {
      this.client.say(`bot ${this.n} here`);
      this.s.counters.chats++;
    }
    this.pauseUntil = now + pauseMs;
  }

  /** Casts the quickest damage spell at the nearest live mob in view; returns the cast time. */
  private castAtMob(): number {
    const client = this.client!;
    const spell = this.s.damageSpell(client);
    if (!spell) return 0;
    let best: { id: number; d: number } | undefined;
    for (const e of client.world.entities.values()) {
      if (e.kind !== 'mob' || !e.alive) continue;
      const d = Math.hypot(e.x - this.x, e.y - this.y);
      if (d <= spell.range * 0.9 && (!best || d < best.d)) best = { id: e.id, d };
    }
    if (!best) return 0;
    client.cast(spell.id, best.id);
    this.s.counters.casts++;
    return spell.castTime + 300;
  }

  private walk(now: number, nav: NavGrid): void {
    const target = this.target!;
    let waypoint: Vec2 | undefined = target;
    if (!this.atHome && !nav.clearLine(this, target)) waypoint = nav.nextStep(this, this.anchor);
    if (!waypoint) {
      this.stuck(nav);
      return;
    }
    const step = (this.speed * 0.95) / this.s.options.moveHz;
    const dx = waypoint.x - this.x;
    const dy = waypoint.y - this.y;
    const dist = Math.hypot(dx, dy);
    if (dist < 0.5) {
      this.arrived(now, waypoint === target);
      return;
    }
    const f = Math.min(1, step / dist);
    const next = { x: this.x + dx * f, y: this.y + dy * f };
    if (!nav.canMove(this, next)) {
      this.stuck(nav);
      return;
    }
    this.stuckTicks = 0;
    this.send(next.x, next.y, headingTo(this, next), now);
    if (f === 1 && waypoint === target) this.arrived(now, true);
  }

  private arrived(now: number, atTarget: boolean): void {
    if (!atTarget) return;
    if (!this.atHome) this.atHome = true;
    this.pause(now);
  }

  private stuck(nav: NavGrid): void {
    this.target = undefined;
    // Wedged against a corner on the way home: step to the nearest free cell centre.
    if (++this.stuckTicks > 20 && !this.atHome) {
      const c = nav.center(nav.cellOf(this));
      if (nav.canMove(this, c)) this.send(c.x, c.y, headingTo(this, c), performance.now());
      this.stuckTicks = 0;
    }
  }

  private send(x: number, y: number, facing: number, now: number): void {
    this.x = x;
    this.y = y;
    const i = this.sentPos;
    this.sentKeys[i] = ((quantize(x) << 16) | quantize(y)) >>> 0;
    this.sentTimes[i] = now;
    this.sentPos = (i + 1) % RING;
    this.client!.sendMove(x, y, facing);
    this.s.counters.movesSent++;
  }

  /** When this bot sent the move to quantized (qx, qy), or -1 when none recent matches. */
  sentAt(key: number): number {
    for (let k = 1; k <= RING; k++) {
      const i = (this.sentPos - k + RING) % RING;
      if (this.sentKeys[i] === key && this.sentTimes[i]! > 0) return this.sentTimes[i]!;
    }
    return -1;
  }

  /** Every received chunk: the hot frames are read here, the rest go to the client. */
  private intake(chunk: Uint8Array): void {
    const s = this.s;
    const c = s.counters;
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
      if (opcode === ENTITY_MOVE || opcode === WORLD_TICK || opcode === MOVE_ACK) {
        if (runStart < p) this.deliver(buf.subarray(runStart, p));
        if (opcode === ENTITY_MOVE) this.entityMove(buf, p + HEADER_SIZE, now);
        p += size;
        runStart = p;
      } else {
        p += size;
      }
    }
    if (runStart < p) this.deliver(buf.subarray(runStart, p));
    if (p < end) this.pending = buf.slice(p);
  }

  private entityMove(buf: Uint8Array, at: number, now: number): void {
    const s = this.s;
    s.counters.entityMoves++;
    let i = at;
    let id = buf[i++]!;
    if (id >= 0x80) {
      id &= 0x7f;
      let shift = 7;
      for (;;) {
        const b = buf[i++]!;
        id += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) break;
        shift += 7;
      }
    }
    if (id >= MOB_ID_BASE) return;
    const owner = s.botsByEntity[id];
    if (!owner) return;
    const key = (((buf[i]! | (buf[i + 1]! << 8)) << 16) | (buf[i + 2]! | (buf[i + 3]! << 8))) >>> 0;
    const sent = owner.sentAt(key);
    if (sent < 0) {
      s.counters.unmatched++;
      return;
    }
    s.latency(now - sent);
  }

  private closed(reason: string): void {
    const wasInWorld = this.phase === 'inWorld';
    this.phase = 'closed';
    this.s.botClosed(this, wasInWorld, reason);
  }

  /** Closes the connection (the swarm is stopping). */
  stop(): void {
    this.phase = 'closed';
    this.client?.close('the swarm is stopping');
  }
}
