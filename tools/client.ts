/**
 * Terminal client: logs in, enters the world and prints what happens near the character as
 * readable lines; commands come from stdin, one per line, typed or piped as a script.
 *
 *   npx tsx tools/client.ts --host 127.0.0.1 --port 7777 --user NAME --password PW
 *   npx tsx tools/client.ts --ws ws://127.0.0.1:8080/ws --user NAME --password PW --character Ayla
 *   printf 'target nearest\ncast 1\nwait 3000\n' | npx tsx tools/client.ts ... --linger 1000
 *
 * At the end of a piped script it lingers for --linger ms, logs out and exits 0. The password
 * may come from WYVERN_PASSWORD instead of the command line. When the connection drops (not a
 * goodbye from the server), it reconnects with backoff and resumes: the server keeps the
 * character in the world for a few seconds, so it is back where it stood. Given a cluster's
 * gateways (--servers), it fails over to another when its gateway dies, and logs in there
 * should that gateway refuse the resume token. A zone whose host died says ERR_ZONE_DOWN;
 * the client stays, and the world puts it back (EnterWorld) once the zone runs again.
 */
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { WyvernClient } from '../shared/client/client.js';
import { reconnect, type ReconnectEvent } from '../shared/client/reconnect.js';
import { WyvernError } from '../shared/client/errors.js';
import { passwordProblem } from '../shared/client/password.js';
import { MoveSender } from '../shared/client/move-sender.js';
import { WorldView, type ViewEntity, type WorldChange } from '../shared/client/world-view.js';
import { walkGround } from '../shared/game/ground.js';
import {
  clampToZone,
  distance,
  MOVE_SEND_HZ,
  PLAYER_SPEED,
  segmentBlocked,
  slide,
  type Vec2,
} from '../shared/game/movement.js';
import { ErrorCode } from '../shared/protocol/errors.js';
import { PositionCorrection } from '../shared/protocol/movement.js';
import {
  Bye,
  ChatMessage,
  CombatEvent,
  Cooldown,
  EnterWorld,
  ErrorPacket,
  ExperienceGain,
  LogoutCancelled,
  SpellFailed,
  SpellGo,
  SpellStart,
  ZoneChanged,
  type SpellFailReason,
} from '../shared/protocol/index.js';
import { connectAny, parseAddressList } from './net/connect.js';
import { commandHelp, createWithFreeName, experienceGainText, levelUpText } from './terminal-text.js';

const USAGE = `Usage: npx tsx tools/client.ts [--host H --port P | --ws URL | --servers LIST] --user NAME --password PW
  --host H            server host (default 127.0.0.1)
  --port P            server TCP port (default 7777)
  --tls               TCP over TLS
  --ws URL            connect over WebSocket instead (ws://host:8080/ws)
  --servers LIST      a cluster's gateways, comma-separated (127.0.0.1:7777,ws://h:8081/ws,...):
                      the first that answers; a dropped connection fails over to the next
  --user NAME         account name
  --password PW       password (or set WYVERN_PASSWORD)
  --register          register the account first (otherwise only when the login fails and the name is free)
  --character NAME    play this character (created if missing; default: the first one)
  --linger MS         at the end of piped input, wait this long before logging out (default 0)
  --timeout MS        connect and request timeout (default 15000)
  --reconnect-attempts N
                      after a dropped connection, tries to resume this many times (default 8, 0: never)`;

const SPELL_FAIL_WORDS: Record<SpellFailReason, string> = {
  interrupted: 'interrupted',
  cancelled: 'cancelled',
  unknownSpell: 'unknown spell',
  cooldown: 'not ready yet',
  noMana: 'not enough mana',
  outOfRange: 'out of range',
  badTarget: 'invalid target',
  dead: 'dead',
  busy: 'already casting',
  lineOfSight: 'target out of sight',
};

/** Commands that send game packets: only in the world. */
const WORLD_COMMANDS = new Set(['/say', '/s', '/zone', '/z', '/w', '/whisper', 'move', 'cast', 'who']);

const DESPAWN_WORDS = { outOfRange: 'leaves view', left: 'left the world', corpse: 'is gone' } as const;

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fail(line: string): void {
  process.stderr.write(`${line}\n`);
}

function words(err: unknown): string {
  if (err instanceof WyvernError) return `${err.message} (${err.code}${err.reason ? `: ${err.reason}` : ''})`;
  return err instanceof Error ? err.message : String(err);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round = (n: number) => Math.round(n);

function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got "${value}"`);
  return n;
}

class Session {
  private target: number | undefined;
  private level: number | undefined;
  /** Experience told by ExperienceGain, printed with the stats that follow it. */
  private gained: { amount: number; victim: string } | undefined;
  private walking: { stopped: boolean } | undefined;
  private readonly moved = new Set<number>();
  private readonly summary: ReturnType<typeof setInterval>;
  finishing = false;
  /** The server said goodbye on the current connection: do not come back on our own. */
  byeReceived = false;

  constructor(
    private client: WyvernClient,
    world: WorldView,
  ) {
    this.summary = setInterval(() => this.summarizeMoves(), 1000);
    world.onChange((change) => this.onWorld(change));
    this.attach(client);
  }

  get current(): WyvernClient {
    return this.client;
  }

  /** From now on commands go to, and lines come from, `client` (a resumed connection). */
  attach(client: WyvernClient): void {
    this.client = client;
    this.byeReceived = false;
    client.on(ChatMessage, (m) => {
      if (m.channel === 'system') out(`[system] ${m.text}`);
      else if (m.channel === 'whisper') {
        out(
          m.fromId === client.world.selfId
            ? `[whisper to ${m.to}] ${m.text}`
            : `[whisper from ${m.from}] ${m.text}`,
        );
      } else out(`[${m.channel}] ${m.from}: ${m.text}`);
    });
    client.on(SpellStart, (s) =>
      out(
        `${this.name(s.casterId)} begin${this.isSelf(s.casterId) ? '' : 's'} casting ${this.spell(s.spellId)} at ${this.object(s.targetId)} (${(s.castTime / 1000).toFixed(1)} s)`,
      ),
    );
    client.on(SpellGo, (s) =>
      out(
        `${this.name(s.casterId)} cast${this.isSelf(s.casterId) ? '' : 's'} ${this.spell(s.spellId)} at ${this.object(s.targetId)}`,
      ),
    );
    client.on(SpellFailed, (s) =>
      out(`${this.possessive(s.casterId)} ${this.spell(s.spellId)} failed: ${SPELL_FAIL_WORDS[s.reason]}`),
    );
    client.on(CombatEvent, (c) => {
      const crit = c.crit ? ' (critical)' : '';
      if (c.kind === 'heal') {
        out(
          `${this.possessive(c.sourceId)} ${this.spell(c.spellId)} heals ${this.object(c.targetId)} for ${c.amount}${crit}`,
        );
      } else if (c.spellId === 0) {
        out(
          `${this.name(c.sourceId)} hit${this.isSelf(c.sourceId) ? '' : 's'} ${this.object(c.targetId)} for ${c.amount}${crit}`,
        );
      } else {
        out(
          `${this.possessive(c.sourceId)} ${this.spell(c.spellId)} hits ${this.object(c.targetId)} for ${c.amount}${crit}`,
        );
      }
    });
    // A cooldown starts as its cast completes and comes just before the cast's SpellGo: told
    // after the frames it came with, so the cast comes first.
    client.on(Cooldown, (c) =>
      queueMicrotask(() =>
        out(`${this.spell(c.spellId)} is on cooldown: ready again in ${(c.remaining / 1000).toFixed(1)} s`),
      ),
    );
    // The stats that come with it say where it leaves the character: told together.
    client.on(ExperienceGain, (x) => (this.gained = { amount: x.amount, victim: this.name(x.victimId) }));
    client.on(LogoutCancelled, () => out('Logout cancelled.'));
    // Walked across a border (or given back to its own zone when the next did not take it).
    client.on(ZoneChanged, (z) => out(`You are in ${z.zone} now.`));
    client.on(Bye, (b) => {
      this.byeReceived = true;
      out(`The server says goodbye (${b.reason})${b.message ? `: ${b.message}` : ''}`);
    });
    client.onError = (err) => out(`Error: ${words(err)}`);
    // Put back by the world after ERR_ZONE_DOWN (an EnterWorld nobody asked for).
    let down = false;
    client.on(ErrorPacket, (e) => (down ||= e.code === ErrorCode.ZoneDown));
    client.on(EnterWorld, (e) => {
      if (!down) return;
      down = false;
      out(`Back in the world at ${round(e.x)},${round(e.y)}: ${e.health}/${e.maxHealth} hp`);
    });
  }

  stop(): void {
    clearInterval(this.summary);
    this.stopWalking();
  }

  // ---- naming ---------------------------------------------------------------------------

  private isSelf(id: number): boolean {
    return id === this.client.world.selfId;
  }

  private name(id: number): string {
    if (this.isSelf(id)) return 'You';
    return this.client.world.get(id)?.name || `#${id}`;
  }

  /** The name where it is the object of a sentence ("hits you"). */
  private object(id: number): string {
    return this.isSelf(id) ? 'you' : this.name(id);
  }

  private possessive(id: number): string {
    return this.isSelf(id) ? 'Your' : `${this.name(id)}'s`;
  }

  private spell(id: number): string {
    return this.client.spellBook?.spells.find((s) => s.id === id)?.name ?? `spell #${id}`;
  }

  private describe(e: ViewEntity): string {
    return `${e.name || `#${e.id}`} (lvl ${e.level}, ${e.kind} #${e.id})`;
  }

  // ---- world events ---------------------------------------------------------------------

  private onWorld(change: WorldChange): void {
    switch (change.type) {
      case 'spawn': {
        const e = change.entity;
        if (e.self) return;
        out(`${this.describe(e)} appears at ${round(e.x)},${round(e.y)}${e.alive ? '' : ' (dead)'}`);
        return;
      }
      case 'despawn': {
        const e = change.entity;
        const name = e.name || `#${e.id}`;
        // Mobs share names: the id says which one of the pack went.
        const who = e.kind === 'mob' ? `${name} (mob #${e.id})` : name;
        out(
          change.reason === 'corpse' ? `${name}'s corpse decays` : `${who} ${DESPAWN_WORDS[change.reason]}`,
        );
        this.moved.delete(e.id);
        if (this.target === e.id) this.target = undefined;
        return;
      }
      case 'move':
      case 'path':
        if (!change.entity.self) this.moved.add(change.entity.id);
        return;
      case 'death': {
        const killer = change.killerId ? `, killed by ${this.object(change.killerId)}` : '';
        const line = `${this.name(change.entity.id)} ${change.entity.self ? 'die' : 'dies'}${killer}`;
        // The tick's WorldUpdate comes before its combat events, the killing blow among them
        // (they arrive in the same write): say the blow first, then the death.
        queueMicrotask(() => out(line));
        return;
      }
      case 'respawn':
        out(
          `${this.name(change.entity.id)} ${change.entity.self ? 'respawn' : 'respawns'} at ${round(change.entity.x)},${round(change.entity.y)} (${change.entity.health}/${change.entity.maxHealth} hp)`,
        );
        return;
      case 'correction': {
        const c = change.correction;
        out(`Position corrected to ${round(c.x)},${round(c.y)} (${c.reason})`);
        if (c.reason === 'dead' || c.reason === 'respawn' || c.reason === 'teleport') this.stopWalking();
        return;
      }
      case 'enter':
        this.level = change.entity.level;
        return;
      case 'stats': {
        const gained = this.gained;
        this.gained = undefined;
        if (gained) out(experienceGainText(gained.amount, gained.victim, change.stats));
        if (this.level !== undefined && change.stats.level > this.level)
          out(levelUpText(change.stats, this.client.world.self?.maxHealth ?? 0));
        this.level = change.stats.level;
        return;
      }
      default:
        return;
    }
  }

  private summarizeMoves(): void {
    if (this.moved.size === 0) return;
    const n = this.moved.size;
    this.moved.clear();
    out(`${n} ${n === 1 ? 'entity' : 'entities'} moved`);
  }

  // ---- commands -------------------------------------------------------------------------

  /** Runs one command line; resolves when it is done (a walk only when `waitForWalk`). */
  async command(line: string, waitForWalk: boolean): Promise<'quit' | undefined> {
    const text = line.trim();
    if (!text || text.startsWith('#')) return undefined;
    const [head = '', ...rest] = text.split(/\s+/);
    const cmd = head.toLowerCase();
    const restText = text.slice(head.length).trim();
    // While a dropped connection is being resumed the server takes no game packets yet.
    if (WORLD_COMMANDS.has(cmd) && this.client.state !== 'inWorld') {
      out(`Not in the world right now${this.client.isClosed ? ' (reconnecting)' : ''}.`);
      return undefined;
    }
    switch (cmd) {
      case '/say':
      case '/s':
        if (restText) this.client.say(restText, 'say');
        return undefined;
      case '/zone':
      case '/z':
        if (restText) this.client.say(restText, 'zone');
        return undefined;
      case '/w':
      case '/whisper': {
        const [to, ...msg] = rest;
        if (!to || msg.length === 0) out('Usage: /w NAME TEXT');
        else {
          // The server echoes a delivered whisper back: that echo is the line printed.
          this.client.whisper(to, restText.slice(to.length).trim());
        }
        return undefined;
      }
      case 'move': {
        const goal = rest.length === 1 && rest[0] === 'target' ? this.nearTarget() : this.point(rest);
        if (!goal) return undefined;
        const walk = this.walkTo(goal.x, goal.y);
        if (waitForWalk) await walk;
        return undefined;
      }
      case 'cast':
        this.cast(rest);
        return undefined;
      case 'target':
        this.setTarget(rest[0]);
        return undefined;
      case 'who': {
        try {
          const who = await this.client.who();
          const names = who.players.map((p) => `${p.name} (lvl ${p.level}, ${p.zone})`).join(', ');
          out(`${who.total} online${names ? `: ${names}` : ''}`);
        } catch (err) {
          out(`Error: ${words(err)}`);
        }
        return undefined;
      }
      case 'where':
        this.where();
        return undefined;
      case 'wait':
      case 'sleep': {
        const ms = Number(rest[0]);
        if (!Number.isFinite(ms) || ms < 0) out('Usage: wait MS');
        else await sleep(ms);
        return undefined;
      }
      case 'logout':
      case 'quit':
      case 'exit':
        return 'quit';
      case 'help':
      case '?':
        out(commandHelp(this.client.spellBook?.spells.length));
        return undefined;
      default:
        out(`Unknown command "${head}" (type help)`);
        return undefined;
    }
  }

  private where(): void {
    const self = this.client.world.self;
    if (!self) {
      out('Not in the world.');
      return;
    }
    const stats = this.client.world.stats;
    const mana = stats ? `, ${stats.mana}/${stats.maxMana} mana` : '';
    const target = this.target !== undefined ? `, target ${this.name(this.target)}` : '';
    out(
      `You are at ${round(self.x)},${round(self.y)} in ${this.client.zone?.zone ?? '?'} (${self.health}/${self.maxHealth} hp${mana}${target})`,
    );
  }

  private setTarget(arg: string | undefined): void {
    const world = this.client.world;
    const self = world.self;
    if (arg === 'nearest') {
      if (!self) return out('Not in the world.');
      const now = this.client.serverNow();
      // A spell needs a clear line: the nearest mob in sight, else the nearest behind a wall.
      const walls = this.client.zone ? walkGround(this.client.zone).obstacles : [];
      const inSight = (e: ViewEntity): boolean => !segmentBlocked(self, world.positionAt(e, now), walls, 0);
      const living = (e: ViewEntity): boolean => e.kind === 'mob' && e.alive;
      const seen = world.nearest(self, now, (e) => living(e) && inSight(e));
      const mob = seen ?? world.nearest(self, now, living);
      if (!mob) return out('No living mob in view.');
      this.target = mob.id;
      const at = world.positionAt(mob, now);
      out(
        `Target: ${this.describe(mob)} at ${round(at.x)},${round(at.y)}, ${round(distance(self, at))} away${seen ? '' : ' (behind a wall)'}`,
      );
      return;
    }
    const id = Number(arg);
    if (!arg || !Number.isInteger(id) || id < 0) return out('Usage: target nearest | target ID');
    this.target = id;
    const e = world.get(id);
    out(e ? `Target: ${this.describe(e)}` : `Target: #${id} (not in view)`);
  }

  private cast(args: string[]): void {
    const book = this.client.spellBook?.spells ?? [];
    const n = Number(args[0]);
    if (!args[0] || !Number.isInteger(n) || n < 0) return out('Usage: cast N [TARGET_ID]');
    const spell = n >= 1 && book[n - 1] ? book[n - 1]! : book.find((s) => s.id === n);
    const spellId = spell?.id ?? n;
    let targetId = args[1] !== undefined ? Number(args[1]) : this.target;
    if (targetId === undefined && spell?.kind === 'heal') targetId = this.client.world.selfId;
    if (targetId === undefined || !Number.isInteger(targetId) || targetId < 0) {
      return out('No target: use "target nearest", "target ID" or "cast N TARGET_ID".');
    }
    this.client.cast(spellId, targetId);
  }

  private stopWalking(): void {
    if (this.walking) this.walking.stopped = true;
    this.walking = undefined;
  }

  /** `move X Y`: the point, or the usage when the arguments are not two numbers. */
  private point(args: string[]): Vec2 | undefined {
    const x = Number(args[0]);
    const y = Number(args[1]);
    if (args.length === 2 && Number.isFinite(x) && Number.isFinite(y)) return { x, y };
    out('Usage: move X Y | move target');
    return undefined;
  }

  /**
   * Where to walk to cast at the target: on the line to where it stands now, within the
   * shortest range in the spell book (with a margin for its own steps), or beside it.
   */
  private nearTarget(): Vec2 | undefined {
    const self = this.client.world.self;
    const e = this.target === undefined ? undefined : this.client.world.get(this.target);
    if (!self) {
      out('Not in the world.');
      return undefined;
    }
    if (!e) {
      out('No target (target nearest, or target ID).');
      return undefined;
    }
    const at = this.client.world.positionAt(e, this.client.serverNow());
    const ranges = this.client.spellBook?.spells.map((s) => s.range).filter((r) => r > 0) ?? [];
    const reach = ranges.length > 0 ? Math.min(...ranges) * 0.8 : 20;
    const d = distance(self, at);
    if (d <= reach) {
      out(`${this.describe(e)} is within reach, ${round(d)} away.`);
      return undefined;
    }
    const k = (d - reach) / d;
    return { x: self.x + (at.x - self.x) * k, y: self.y + (at.y - self.y) * k };
  }

  /**
   * Walks toward x,y at the character's speed, predicting locally every 1/MOVE_SEND_HZ s and
   * sending movement states as MoveSender says: start, turns (sliding along a wall), a
   * heartbeat, and a stop where it ends. The walk may go on into a zone beside this one
   * (walkGround): the server hands the character over as it crosses.
   */
  private async walkTo(x: number, y: number): Promise<void> {
    this.stopWalking();
    const zone = this.client.zone;
    const start = this.client.world.self;
    if (!zone || !start) return out('Not in the world.');
    const walk = { stopped: false };
    this.walking = walk;
    let info = zone;
    let ground = walkGround(info);
    const goal = clampToZone({ x, y }, ground.zone);
    // A little under full speed: the server's check must never see an input as too fast.
    const speed = (start.speed || PLAYER_SPEED) * 0.95;
    const interval = 1000 / MOVE_SEND_HZ;
    const sender = new MoveSender();
    sender.reset(performance.now(), start.x, start.y, start.facing);
    // The server stands a corrected walker where it says: from there the walk is a new start.
    const offCorrection = this.client.on(PositionCorrection, (c) =>
      sender.reset(performance.now(), c.x, c.y, c.facing),
    );
    out(`Walking to ${round(goal.x)},${round(goal.y)}`);
    let last = performance.now();
    let stuck = 0;
    while (!walk.stopped && !this.client.isClosed) {
      await sleep(interval);
      if (walk.stopped) break;
      const now = performance.now();
      const elapsed = Math.min(now - last, 250);
      last = now;
      const self = this.client.world.self;
      if (!self) break;
      if (!self.alive) {
        out('You cannot move while dead.');
        break;
      }
      const left = distance(self, goal);
      if (left < 0.5) {
        out(`Arrived at ${round(self.x)},${round(self.y)}`);
        break;
      }
      const step = Math.min(left, (speed * elapsed) / 1000);
      const wanted = {
        x: self.x + ((goal.x - self.x) / left) * step,
        y: self.y + ((goal.y - self.y) / left) * step,
      };
      // Into the zone beside: its ground and walls from now on.
      if (this.client.zone && this.client.zone !== info) {
        info = this.client.zone;
        ground = walkGround(info);
      }
      const next = slide(self, wanted, ground.obstacles, ground.zone);
      const moved = distance(self, next);
      if (moved < 0.01) {
        if (++stuck >= 3) {
          out(`Blocked at ${round(self.x)},${round(self.y)}`);
          break;
        }
        continue;
      }
      stuck = 0;
      const heading = Math.atan2(next.y - self.y, next.x - self.x);
      // Along a wall the walk is slower than the step asked for: that is the speed to send.
      const walkSpeed = moved < step - 0.01 ? (speed * moved) / step : speed;
      this.client.world.setSelfPosition(next.x, next.y, heading, this.client.serverNow());
      const state = sender.update(now, next.x, next.y, heading, true, walkSpeed);
      if (state) this.client.sendMove(state.x, state.y, state.facing, state.moving, state.speed);
    }
    const self = this.client.world.self;
    const stop = self && sender.update(performance.now(), self.x, self.y, self.facing, false, 0);
    if (stop && !this.client.isClosed) this.client.sendMove(stop.x, stop.y, stop.facing, false, 0);
    offCorrection();
    if (this.walking === walk) this.walking = undefined;
  }
}

async function authenticate(
  client: WyvernClient,
  user: string,
  password: string,
  registerFirst: boolean,
): Promise<void> {
  const onQueue = (position: number, length: number) => out(`In the login queue: ${position} of ${length}`);
  const register = async (): Promise<boolean> => {
    const problem = passwordProblem(password);
    if (problem) throw new Error(`cannot register ${user}: ${problem}`);
    try {
      await client.register(user, password);
      out(`Registered account ${user}`);
      return true;
    } catch (err) {
      if (err instanceof WyvernError && err.code === ErrorCode.AccountTaken) return false;
      throw err;
    }
  };
  if (registerFirst && !(await register())) out(`Account ${user} exists already; logging in`);
  try {
    await client.login(user, password, { onQueue });
  } catch (err) {
    // Unknown account and wrong password look alike (by design); a free name means the former.
    if (registerFirst || !(err instanceof WyvernError) || err.code !== ErrorCode.BadLogin) throw err;
    if (!(await register())) throw err;
    await client.login(user, password, { onQueue });
  }
  out(`Logged in as ${client.account ?? user}`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '7777' },
      tls: { type: 'boolean', default: false },
      ws: { type: 'string' },
      servers: { type: 'string' },
      user: { type: 'string' },
      password: { type: 'string' },
      register: { type: 'boolean', default: false },
      character: { type: 'string' },
      linger: { type: 'string' },
      timeout: { type: 'string' },
      'reconnect-attempts': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    out(`${USAGE}\n\n${commandHelp()}`);
    return 0;
  }
  const user = values.user;
  const password = values.password ?? process.env.WYVERN_PASSWORD;
  if (!user || !password) {
    fail(`--user and --password (or WYVERN_PASSWORD) are required\n\n${USAGE}`);
    return 2;
  }
  const linger = intOption(values.linger, 'linger', 0);
  const timeoutMs = intOption(values.timeout, 'timeout', 15_000);
  const attempts = intOption(values['reconnect-attempts'], 'reconnect-attempts', 8);
  const addresses = values.servers
    ? parseAddressList(values.servers)
    : [values.ws ?? `${values.tls ? 'tls' : 'tcp'}://${values.host}:${values.port}`];
  // One rotation for the whole run: a reconnect starts from the gateway that last worked.
  const open = connectAny(addresses, { timeoutMs });

  // One world view for every connection of this run: the session's listener stays put.
  const world = new WorldView();
  const clientOptions = { requestTimeoutMs: timeoutMs, world };
  const transport = await open();
  let client = new WyvernClient(transport, clientOptions);
  out(`Connected to ${addresses.length === 1 ? addresses[0] : addresses.join(' or ')}`);
  const welcome = await client.hello({ clientKind: 'native', clientName: 'wyvern-terminal' });
  out(`Server: ${welcome.serverName} (protocol ${welcome.protocolVersion}, ${welcome.tickRate} ticks/s)`);
  client.startClockSync(5_000);

  await authenticate(client, user, password, values.register);

  const characters = await client.listCharacters();
  const wanted = values.character;
  let character = wanted
    ? characters.find((c) => c.name.toLowerCase() === wanted.toLowerCase())
    : characters[0];
  if (!character) {
    character = wanted
      ? await client.createCharacter(wanted, 0)
      : await createWithFreeName(user, (name) => client.createCharacter(name, 0));
    if (!character)
      throw new Error(
        'no free character name from the account name: choose one with --character NAME (3-16 letters)',
      );
    out(`Created character ${character.name}`);
  }

  const session = new Session(client, world);
  const { zone, spells, enter } = await client.enterWorld(character.id);
  out(
    `Entered ${zone.zone} as ${enter.name} (lvl ${enter.level}, player #${enter.entityId}) at ${round(enter.x)},${round(enter.y)}: ${enter.health}/${enter.maxHealth} hp, ${enter.mana}/${enter.maxMana} mana`,
  );
  const book = spells.spells.map((s, i) => `${i + 1} ${s.name} (#${s.id})`).join(', ');
  out(`Spells: ${book || 'none'}`);
  for (const n of zone.neighbours) {
    out(`Beside ${zone.zone}: ${n.zone} (x ${n.x}-${n.x + n.width}, y ${n.y}-${n.y + n.height}).`);
  }

  let finishing = false;
  const finish = async (lingerMs: number): Promise<number> => {
    if (finishing) return 0;
    finishing = true;
    session.finishing = true;
    if (lingerMs > 0) await sleep(lingerMs);
    session.stop();
    if (client.state === 'inWorld') {
      try {
        await client.logout({
          onStarted: (delay) => out(`Logging out in ${(delay / 1000).toFixed(1)} s...`),
        });
        out('Logged out.');
      } catch (err) {
        out(`Logout failed: ${words(err)}`);
      }
    }
    client.close();
    return 0;
  };

  const printReconnect = (e: ReconnectEvent): void => {
    if (e.type === 'waiting' && e.delayMs > 0)
      out(`Reconnecting in ${(e.delayMs / 1000).toFixed(1)} s (attempt ${e.attempt} of ${attempts})...`);
    else if (e.type === 'failed') out(`Reconnect attempt ${e.attempt} failed: ${words(e.error)}`);
  };
  /**
   * Resolves with the exit code once the connection is gone for good: after a goodbye, a
   * finish, or resuming failed. A drop is followed by a resume on a new connection.
   */
  const lost = (async (): Promise<number> => {
    for (;;) {
      const reason = await client.closed;
      if (finishing) return 0;
      out(`Disconnected: ${reason}`);
      const token = client.resumeToken;
      const account = client.account;
      if (session.byeReceived || attempts === 0 || !token || !account) {
        session.stop();
        return 1;
      }
      const dropped = performance.now();
      try {
        const back = await reconnect({
          connect: open,
          account,
          token,
          // Another gateway may not take the token: then the password logs in there, and the
          // character is entered again (the world hands it over where it lingers).
          password,
          clientKind: 'native',
          clientName: 'wyvern-terminal',
          clientOptions,
          maxAttempts: attempts,
          onEvent: printReconnect,
          prepare: (next) => session.attach(next),
        });
        client = back.client;
        if (finishing) {
          client.close();
          return 0;
        }
        client.startClockSync(5_000);
        const entered = back.result.entered ?? (await client.enterWorld(character.id));
        const e = entered.enter;
        const how = back.result.entered ? 'Resumed' : 'Entered again';
        out(
          `${how} in ${(performance.now() - dropped).toFixed(0)} ms: at ${round(e.x)},${round(e.y)}, ${e.health}/${e.maxHealth} hp`,
        );
      } catch (err) {
        out(`Could not get back in: ${words(err)}`);
        session.stop();
        return 1;
      }
    }
  })();

  const interactive = process.stdin.isTTY === true;
  const rl = readline.createInterface({ input: process.stdin, terminal: interactive });
  const script = (async (): Promise<number> => {
    let quit: Promise<number> | undefined;
    rl.on('SIGINT', () => {
      quit ??= finish(0);
    });
    for await (const line of rl) {
      if (quit) break;
      if ((await session.command(line, !interactive)) === 'quit') {
        quit = finish(0);
        break;
      }
    }
    return quit ?? finish(linger);
  })();
  const code = await Promise.race([script, lost]);
  rl.close();
  session.stop();
  client.close();
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    fail(`Error: ${words(err)}`);
    process.exit(1);
  },
);
