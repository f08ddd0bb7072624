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
import { isChatCommand, parseChat, whisperedBy } from '../shared/client/chat-command.js';
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
  ENTITY_RADIUS,
  headingTo,
  MOVE_SEND_HZ,
  pathLength,
  PLAYER_SPEED,
  segmentBlocked,
  slide,
  type Rect,
  type Vec2,
} from '../shared/game/movement.js';
import { findPath, nearestClear } from '../shared/game/path.js';
import { inSight as clearLine } from '../shared/game/sight.js';
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
                      after a dropped connection, tries to resume this many times (default 8, 0: never)
  --verbose           a line for everything that appears, leaves or moves in view (default: a
                      summary of those at most once a second)`;

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

/** Commands that send game packets: only in the world (chat lines too). */
const WORLD_COMMANDS = new Set(['move', 'cast', 'who']);

const DESPAWN_WORDS = { outOfRange: 'leaves view', left: 'left the world', corpse: 'is gone' } as const;
const DESPAWN_PLURAL = { outOfRange: 'leave view', left: 'left the world', corpse: 'are gone' } as const;
type DespawnReason = keyof typeof DESPAWN_WORDS;

/** How many names a summary line lists before it says "and N more". */
const SUMMARY_NAMES = 4;
/** How often one walk may plan its way again (corrected, blocked, the target moved on). */
const MAX_PLANS = 40;
/** A target that walked this far from where the way to it was planned gets a new way. */
const TARGET_DRIFT = 24;

/** The ground a walk plans over: its bounds and walls. */
type Ground = ReturnType<typeof walkGround>;

/**
 * Where a walk goes. `plan` gives the way from `from` (its first point) or why there is none;
 * it is asked again when the server corrects the walker, a step is blocked, the zone changes,
 * `stale` says the way is out of date, or the way's end is reached and `done` says no.
 */
interface Destination {
  plan(from: Vec2, ground: Ground): Vec2[] | string;
  stale?(): boolean;
  done?(at: Vec2, ground: Ground): boolean;
}

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
  /** Since the last summary line (quiet mode): what appeared, left and moved in view. */
  private readonly appeared: { entity: ViewEntity; at: string }[] = [];
  private readonly left: { entity: ViewEntity; reason: DespawnReason }[] = [];
  private readonly moved = new Set<number>();
  private readonly summary: ReturnType<typeof setInterval>;
  private stopped = false;
  /** When each of the character's spells is ready again (performance.now() ms). */
  private readonly readyAt = new Map<number, number>();
  /** Who whispered last: where `/r` answers. */
  private replyTo: string | undefined;
  /** Self-whispers printed, by text, with when: their echo is not printed again. */
  finishing = false;
  /** The server said goodbye on the current connection: do not come back on our own. */
  byeReceived = false;

  constructor(
    private client: WyvernClient,
    world: WorldView,
    private readonly verbose = false,
  ) {
    this.summary = setInterval(() => this.summarizeView(), 1000);
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
        this.replyTo = whisperedBy(m, client.world.selfId) ?? this.replyTo;
        if (m.fromId !== client.world.selfId) out(`[whisper from ${m.from}] ${m.text}`);
        else if (m.to.toLowerCase() !== m.from.toLowerCase()) out(`[whisper to ${m.to}] ${m.text}`);
        else out(`[whisper to yourself] ${m.text}`);
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
    client.on(SpellFailed, (s) => {
      if (s.reason === 'cooldown' && this.isSelf(s.casterId)) {
        const left = (this.readyAt.get(s.spellId) ?? 0) - performance.now();
        const when = left > 0 ? `: ready again in ${(left / 1000).toFixed(1)} s` : '';
        out(`${this.spell(s.spellId)} is not ready yet${when}`);
        return;
      }
      // A mob wanders: what was in reach when the walk ended may not be by the cast's end.
      const hint =
        this.isSelf(s.casterId) && (s.reason === 'outOfRange' || s.reason === 'lineOfSight')
          ? ' (`move target` walks to where it reaches)'
          : '';
      out(
        `${this.possessive(s.casterId)} ${this.spell(s.spellId)} failed: ${SPELL_FAIL_WORDS[s.reason]}${hint}`,
      );
    });
    client.on(CombatEvent, (c) => {
      const crit = c.crit ? ' (critical)' : '';
      if (c.kind === 'heal') {
        out(
          `${this.possessive(c.sourceId)} ${this.spell(c.spellId)} heals ${this.object(c.targetId)} for ${c.amount}${crit}${this.ownHealth(c.targetId)}`,
        );
      } else if (c.spellId === 0) {
        out(
          `${this.name(c.sourceId)} hit${this.isSelf(c.sourceId) ? '' : 's'} ${this.object(c.targetId)} for ${c.amount}${crit}${this.ownHealth(c.targetId)}`,
        );
      } else {
        out(
          `${this.possessive(c.sourceId)} ${this.spell(c.spellId)} hits ${this.object(c.targetId)} for ${c.amount}${crit}${this.ownHealth(c.targetId)}`,
        );
      }
    });
    // A cooldown starts as a cast completes: nothing to say then (the cast went), only when a
    // cast is refused for it.
    client.on(Cooldown, (c) => this.readyAt.set(c.spellId, performance.now() + c.remaining));
    // The stats that come with it say where it leaves the character: told together.
    client.on(ExperienceGain, (x) => (this.gained = { amount: x.amount, victim: this.name(x.victimId) }));
    client.on(LogoutCancelled, () => out('Logout cancelled (you moved or are in a fight).'));
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

  /** Once: the last summary line is of what came before the logout, never after "Logged out.". */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.summary);
    this.summarizeView();
    this.stopWalking();
  }

  /** " (95/100 hp)" after a line about damage or healing that reached the character, else "". */
  private ownHealth(targetId: number): string {
    const self = this.client.world.self;
    return self && this.isSelf(targetId) ? ` (${self.health}/${self.maxHealth} hp)` : '';
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
        if (this.verbose) out(`${this.describe(e)} appears at ${this.at(e)}`);
        else this.appeared.push({ entity: e, at: this.at(e) });
        return;
      }
      case 'despawn': {
        const e = change.entity;
        this.moved.delete(e.id);
        if (this.target === e.id) {
          // Said at once, whatever the mode. Out of view it stays the target (it may come
          // back, and `move target` goes on to where it was last seen); gone, it does not.
          if (change.reason !== 'outOfRange') this.target = undefined;
          out(`Your target ${this.leaving(e, change.reason)}`);
        } else if (this.verbose) out(this.leaving(e, change.reason));
        else this.left.push({ entity: e, reason: change.reason });
        return;
      }
      case 'move':
      case 'path': {
        const e = change.entity;
        if (e.self) return;
        if (!this.verbose) this.moved.add(e.id);
        else if (change.type === 'path' && e.path) {
          const end = e.path.waypoints.at(-1) ?? e.path.from;
          out(
            `${this.tag(e)} walks from ${round(e.path.from.x)},${round(e.path.from.y)} to ${round(end.x)},${round(end.y)}`,
          );
        } else {
          out(
            `${this.tag(e)} ${e.motion.at(-1)?.moving ? 'walks on from' : 'stands at'} ${round(e.x)},${round(e.y)}`,
          );
        }
        return;
      }
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

  /**
   * One line for what came, went and moved in view since the last: at most one a second,
   * nothing when nothing did (without --verbose, which says each as it happens).
   */
  private summarizeView(): void {
    const parts: string[] = [];
    const came = this.appeared.splice(0);
    if (came.length === 1) parts.push(`${this.describe(came[0]!.entity)} appears at ${came[0]!.at}`);
    else if (came.length > 1) {
      parts.push(`${came.length} appear: ${this.list(came.map((c) => `${this.tag(c.entity)} at ${c.at}`))}`);
    }
    const went = this.left.splice(0);
    for (const reason of Object.keys(DESPAWN_WORDS) as DespawnReason[]) {
      const these = went.filter((l) => l.reason === reason).map((l) => l.entity);
      if (these.length === 1) parts.push(this.leaving(these[0]!, reason));
      else if (these.length > 1) {
        parts.push(`${these.length} ${DESPAWN_PLURAL[reason]}: ${this.list(these.map((e) => this.tag(e)))}`);
      }
    }
    // Those that just came are placed, not moved.
    for (const c of came) this.moved.delete(c.entity.id);
    const n = this.moved.size;
    this.moved.clear();
    if (n > 0) parts.push(`${n} ${n === 1 ? 'entity' : 'entities'} moved`);
    if (parts.length > 0) out(parts.join('; '));
  }

  /** Names, the first few of them and how many more. */
  private list(names: string[]): string {
    const shown = names.slice(0, SUMMARY_NAMES).join(', ');
    return names.length > SUMMARY_NAMES ? `${shown} and ${names.length - SUMMARY_NAMES} more` : shown;
  }

  /** Where an entity stands, and whether it is dead: "812,430" or "812,430 (dead)". */
  private at(e: ViewEntity): string {
    return `${round(e.x)},${round(e.y)}${e.alive ? '' : ' (dead)'}`;
  }

  /** A name that tells mobs of a pack apart: "Grey Wolf (mob #1004)", "Bo". */
  private tag(e: ViewEntity): string {
    const name = e.name || `#${e.id}`;
    return e.kind === 'mob' ? `${name} (mob #${e.id})` : name;
  }

  private leaving(e: ViewEntity, reason: DespawnReason): string {
    return reason === 'corpse'
      ? `${e.name || `#${e.id}`}'s corpse decays`
      : `${this.tag(e)} ${DESPAWN_WORDS[reason]}`;
  }

  // ---- commands -------------------------------------------------------------------------

  /** Runs one command line; resolves when it is done (a walk only when `waitForWalk`). */
  async command(line: string, waitForWalk: boolean): Promise<'quit' | undefined> {
    const text = line.trim();
    if (!text || text.startsWith('#')) return undefined;
    if (isChatCommand(text)) {
      await this.chat(text);
      return undefined;
    }
    const [head = '', ...rest] = text.split(/\s+/);
    const cmd = head.toLowerCase();
    if (WORLD_COMMANDS.has(cmd) && !this.inWorld()) return undefined;
    switch (cmd) {
      case 'move': {
        const goal = rest.length === 1 && rest[0] === 'target' ? this.towardTarget() : this.toPoint(rest);
        if (!goal) return undefined;
        const walk = this.walk(goal);
        if (waitForWalk) await walk;
        return undefined;
      }
      case 'cast':
        this.cast(rest);
        return undefined;
      case 'target':
        this.setTarget(rest[0]);
        return undefined;
      case 'who':
        await this.who();
        return undefined;
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

  /** Whether game packets can go now; says why not when they cannot. */
  private inWorld(): boolean {
    // While a dropped connection is being resumed the server takes no game packets yet.
    if (this.client.state === 'inWorld') return true;
    out(`Not in the world right now${this.client.isClosed ? ' (reconnecting)' : ''}.`);
    return false;
  }

  /** A chat line: /say, /zone, /w, /r or /who, read as the browser's chat box reads it. */
  private async chat(line: string): Promise<void> {
    const cmd = parseChat(line, { replyTo: this.replyTo });
    if (cmd.kind === 'error') out(cmd.message);
    if (cmd.kind === 'error' || cmd.kind === 'none' || !this.inWorld()) return;
    switch (cmd.kind) {
      case 'say':
      case 'zone':
        this.client.say(cmd.text, cmd.kind);
        return;
      case 'whisper':
        // The server echoes a delivered whisper back: that echo is the line printed.
        this.client.whisper(cmd.to, cmd.text);
        return;
      case 'who':
        await this.who();
        return;
    }
  }

  private async who(): Promise<void> {
    try {
      const who = await this.client.who();
      const names = who.players.map((p) => `${p.name} (lvl ${p.level}, ${p.zone})`).join(', ');
      out(`${who.total} online${names ? `: ${names}` : ''}`);
    } catch (err) {
      out(`Error: ${words(err)}`);
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
      const ground = this.ground();
      const walls = ground?.obstacles ?? [];
      const now = this.client.serverNow();
      const mobs = [...world.entities.values()]
        .filter((e) => e.kind === 'mob' && e.alive && !e.self)
        .map((e) => {
          const p = world.positionAt(e, now);
          return { e, at: { x: p.x, y: p.y }, d: distance(self, p) };
        })
        .sort((a, b) => a.d - b.d);
      if (mobs.length === 0) return out('No living mob in view.');
      // A spell needs a clear line (the server's sight rule) and range, which a walk gives:
      // the nearest mob in sight that a walk reaches; else the one the shortest walk reaches;
      // else, with no way to any, the nearest in sight, else the nearest.
      const inSight = (m: (typeof mobs)[number]): boolean => clearLine(self, m.at, walls);
      let pick = mobs.find((m) => inSight(m) && this.wayTo(self, m.at, ground));
      let note = '';
      if (!pick) {
        let best = Infinity;
        for (const m of mobs) {
          // The straight distance is the least any walk can be: none further on is shorter.
          if (m.d >= best) break;
          const way = this.wayTo(self, m.at, ground);
          const walk = way ? pathLength(way[0]!, way.slice(1)) : Infinity;
          if (walk < best) {
            best = walk;
            pick = m;
            note = ` (behind a wall: a ${round(walk)}-unit walk)`;
          }
        }
      }
      if (!pick) {
        pick = mobs.find(inSight) ?? mobs[0]!;
        note = inSight(pick) ? ' (no way to walk there)' : ' (behind a wall, no way to walk there)';
      }
      this.target = pick.e.id;
      out(
        `Target: ${this.describe(pick.e)} at ${round(pick.at.x)},${round(pick.at.y)}, ${round(pick.d)} away${note}`,
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

  /** The ground the character walks now: its zone and those beside, and the walls it knows. */
  private ground(): Ground | undefined {
    return this.client.zone ? walkGround(this.client.zone) : undefined;
  }

  /**
   * The way a walker from `from` takes to stand at `to` (an entity's place: the server lets
   * it stand there, if maybe pressed against a wall), or null when there is none.
   */
  private wayTo(from: Vec2, to: Vec2, ground: Ground | undefined): Vec2[] | null {
    if (!ground) return [from, to];
    const way = wayOver(ground, from, to);
    if (way) return way;
    // A place read between two updates may graze a wall: the nearest clear one beside it.
    const near = nearestClear(to, ground.obstacles, ENTITY_RADIUS, ground.zone);
    return near && distance(near, to) < ENTITY_RADIUS ? wayOver(ground, from, near) : null;
  }

  /** `move X Y`: the nearest place to stand there, or the usage when the arguments are not two numbers. */
  private toPoint(args: string[]): Destination | undefined {
    const x = Number(args[0]);
    const y = Number(args[1]);
    if (args.length !== 2 || !Number.isFinite(x) || !Number.isFinite(y)) {
      out('Usage: move X Y | move target');
      return undefined;
    }
    const ground = this.ground();
    if (!ground || !this.client.world.self) {
      out('Not in the world.');
      return undefined;
    }
    const asked = clampToZone({ x, y }, ground.zone);
    const goal = nearestClear(asked, ground.obstacles, ENTITY_RADIUS, ground.zone);
    if (!goal) {
      out(`There is no place to stand near ${round(x)},${round(y)}.`);
      return undefined;
    }
    if (distance(goal, asked) > 0.5) {
      out(
        `${round(asked.x)},${round(asked.y)} is in or against a wall: the nearest place to stand is ${round(goal.x)},${round(goal.y)}.`,
      );
    }
    return {
      plan: (from, g) =>
        wayOver(g, from, goal) ??
        `No way to walk to ${round(goal.x)},${round(goal.y)} from here: walls close it off.`,
    };
  }

  /**
   * `move target`: the way toward the target, up to the first place on it from which a spell
   * reaches it (range, with a margin for its own steps, and a clear line past every wall).
   * Planned again when the target walks on, and at the end should it be out of reach.
   */
  private towardTarget(): Destination | undefined {
    const world = this.client.world;
    const self = world.self;
    const id = this.target;
    const e = id === undefined ? undefined : world.get(id);
    const ground = this.ground();
    if (!self || !ground) {
      out('Not in the world.');
      return undefined;
    }
    if (id === undefined || !e) {
      out('No target (target nearest, or target ID).');
      return undefined;
    }
    const book = this.client.spellBook?.spells ?? [];
    // The spells that can land on it: damage on a mob, healing on a player.
    const fitting = book.filter((s) => s.range > 0 && (s.kind === 'heal') === (e.kind === 'player'));
    const ranges = (fitting.length > 0 ? fitting : book.filter((s) => s.range > 0)).map((s) => s.range);
    const reach = ranges.length > 0 ? Math.min(...ranges) * 0.8 : 20;
    // Where it is, or (out of view) where it was last seen; undefined once dead.
    let seen: Vec2 | undefined;
    const where = (): Vec2 | undefined => {
      const t = world.get(id);
      if (!t) return seen;
      if (!t.alive) return undefined;
      const p = world.positionAt(t, this.client.serverNow());
      seen = { x: p.x, y: p.y };
      return seen;
    };
    const reaches = (at: Vec2, t: Vec2, walls: readonly Rect[], sightMargin: number): boolean =>
      distance(at, t) <= reach && !segmentBlocked(at, t, walls, sightMargin);
    const now = where();
    if (now && reaches(self, now, ground.obstacles, 0)) {
      out(`${this.describe(e)} is within reach, ${round(distance(self, now))} away.`);
      return undefined;
    }
    let plannedFor: Vec2 | undefined;
    return {
      plan: (from, g) => {
        const t = where();
        if (!t) return `${this.tag(e)} is dead.`;
        plannedFor = t;
        const way = this.wayTo(from, t, g);
        if (!way) return `No way to walk to ${this.tag(e)} from here.`;
        // A sight line 2 units clear of walls: the server's is a thin line, so one that
        // passes here still passes after rounding and the target's small steps.
        return wayUntil(way, (p) => reaches(p, t, g.obstacles, 2));
      },
      stale: () => {
        const t = where();
        return !t || !plannedFor || distance(t, plannedFor) > TARGET_DRIFT;
      },
      // Out of view, the place it was last seen is as far as the walk goes.
      done: (at, g) => {
        const t = where();
        return t === undefined || !world.get(id) || reaches(at, t, g.obstacles, 0);
      },
    };
  }

  /**
   * Walks `dest`'s way at the character's speed, predicting locally every 1/MOVE_SEND_HZ s and
   * sending movement states as MoveSender says: start, a turn at each bend of the way (sent
   * from the bend itself, so the server sees the legs as walked), a heartbeat, and a stop
   * where it ends. The way is planned again after a correction, a blocked step, a zone
   * change or when `dest` says so. The walk may go on into a zone beside this one
   * (walkGround): the server hands the character over as it crosses.
   */
  private async walk(dest: Destination): Promise<void> {
    this.stopWalking();
    const start = this.client.world.self;
    if (!this.client.zone || !start) return out('Not in the world.');
    const walk = { stopped: false };
    this.walking = walk;
    let info = this.client.zone;
    let ground = walkGround(info);
    // A little under full speed: the server's check must never see an input as too fast.
    const speed = (start.speed || PLAYER_SPEED) * 0.95;
    const interval = 1000 / MOVE_SEND_HZ;
    const sender = new MoveSender();
    sender.reset(performance.now(), start.x, start.y, start.facing);
    // The server stands a corrected walker where it says: from there the walk is a new start.
    let corrected = false;
    const offCorrection = this.client.on(PositionCorrection, (c) => {
      sender.reset(performance.now(), c.x, c.y, c.facing);
      corrected = true;
    });
    let way: Vec2[] = [];
    let leg = 1;
    let plans = 0;
    /** Plans the way from where the character stands; false (having said why) when there is none. */
    const plan = (why: string | undefined, quiet = false): boolean => {
      const self = this.client.world.self;
      if (!self) return false;
      if (++plans > MAX_PLANS) {
        out(`Stopped at ${round(self.x)},${round(self.y)}: the way changed ${MAX_PLANS} times.`);
        return false;
      }
      const next = dest.plan({ x: self.x, y: self.y }, ground);
      if (typeof next === 'string') {
        out(next);
        return false;
      }
      way = next;
      leg = 1;
      if (!quiet) {
        const end = way.at(-1)!;
        const turns = way.length - 2;
        const around =
          turns > 0
            ? ` around ${turns === 1 ? 'a wall' : 'walls'} (${turns} turn${turns === 1 ? '' : 's'}, ${round(pathLength(way[0]!, way.slice(1)))} units)`
            : '';
        out(`${why ? `${why}: walking` : 'Walking'} to ${round(end.x)},${round(end.y)}${around}`);
      }
      return true;
    };
    let last = performance.now();
    let lastCheck = last;
    let stuck = 0;
    const going = plan(undefined);
    while (going && !walk.stopped && !this.client.isClosed) {
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
      if (corrected) {
        corrected = false;
        if (!plan('From there')) break;
      } else if (this.client.zone && this.client.zone !== info) {
        // Into the zone beside: its ground and walls from now on.
        info = this.client.zone;
        ground = walkGround(info);
        if (!plan(undefined, true)) break;
      } else if (dest.stale && now - lastCheck >= 500) {
        lastCheck = now;
        // A wandering target moves often: said with --verbose only.
        if (dest.stale() && !plan('The target moved', !this.verbose)) break;
      }
      while (leg < way.length && distance(self, way[leg]!) < 0.01) leg++;
      if (leg >= way.length) {
        if (dest.done && !dest.done(self, ground)) {
          if (!plan('Not in reach yet')) break;
          continue;
        }
        out(`Arrived at ${round(self.x)},${round(self.y)}`);
        break;
      }
      // One step along the leg, never past its bend: the turn is sent from the bend.
      const bend = way[leg]!;
      const toBend = distance(self, bend);
      const step = Math.min(toBend, (speed * elapsed) / 1000);
      const wanted =
        step === toBend
          ? bend
          : {
              x: self.x + ((bend.x - self.x) / toBend) * step,
              y: self.y + ((bend.y - self.y) / toBend) * step,
            };
      const next = slide(self, wanted, ground.obstacles, ground.zone);
      const moved = distance(self, next);
      if (moved < 0.01) {
        if (++stuck >= 3) {
          stuck = 0;
          if (!plan(`Blocked at ${round(self.x)},${round(self.y)}`)) break;
        }
        continue;
      }
      stuck = 0;
      const atBend = next.x === bend.x && next.y === bend.y && leg + 1 < way.length;
      const heading = atBend ? headingTo(bend, way[leg + 1]!) : headingTo(self, next);
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

/** findPath's way over `ground`, with `from` as its first point; null when there is none. */
function wayOver(ground: Ground, from: Vec2, to: Vec2): Vec2[] | null {
  const route = findPath(ground.obstacles, from, to, ENTITY_RADIUS, ground.zone);
  return route && [from, ...route];
}

/**
 * The way cut at its first point where `enough` holds (looked for every unit along it, then
 * to a hundredth of a unit between the last miss and the hit), or the whole way when it holds
 * nowhere before the end.
 */
function wayUntil(way: readonly Vec2[], enough: (p: Vec2) => boolean): Vec2[] {
  const cut: Vec2[] = [way[0]!];
  if (enough(way[0]!)) return [way[0]!, way[0]!];
  for (let i = 1; i < way.length; i++) {
    const a = way[i - 1]!;
    const b = way[i]!;
    const along = (f: number): Vec2 => (f >= 1 ? b : { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f });
    const samples = Math.max(1, Math.ceil(distance(a, b)));
    for (let k = 1; k <= samples; k++) {
      if (!enough(along(k / samples))) continue;
      let miss = (k - 1) / samples;
      let hit = k / samples;
      while ((hit - miss) * samples > 0.01) {
        const mid = (miss + hit) / 2;
        if (enough(along(mid))) hit = mid;
        else miss = mid;
      }
      cut.push(along(hit));
      return cut;
    }
    cut.push(b);
  }
  return cut;
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
      verbose: { type: 'boolean', default: false },
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

  const session = new Session(client, world, values.verbose);
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
