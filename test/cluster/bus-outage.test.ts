/**
 * A NATS outage under a live cluster: two zones on two zone hosts (Westmark, Eastmark, meeting
 * at x = 600) and two gateways, over a real nats-server that is killed (SIGKILL) and started
 * again 2 s later on the same port and store, as a crash and a restart by a process manager.
 *
 * - Ten lines said around the outage, by a player on one gateway to a listener on the other:
 *   each is heard, or refused to its sender with an error: none is lost without a word.
 * - A walker walks through the outage: the longest its client waits for a MoveAck, and the
 *   longest a watcher draws it standing, are printed beside each role's own reconnect time.
 * - A walker whose hand-off races the outage, over several rounds: its client and its host
 *   agree where it stands afterwards (within 0.5 units), and the hand-off either completed
 *   (ZoneChanged received, `who` says the new zone) or was rolled back (neither).
 *
 * The figures are printed for the record; the bounds asserted are about what is lost, never
 * about speed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ChatMessage,
  ChatSend,
  EnterWorld,
  ErrorPacket,
  MoveAck,
  PositionCorrection,
  ZoneChanged,
} from '../../shared/protocol/index.js';
import { stride, watch } from '../helpers/border.js';
import { sleep, startGameClient, type GameClient } from '../helpers/game-client.js';
import type { RoleProcess } from './roles.js';
import { startTwoZoneCluster, type TwoZoneCluster, type Zone } from './two-zones.js';
import { until } from './until.js';
import { describeWithNats } from './with-nats.js';

const DOWN_MS = 2_000;
const ROUNDS = 5;
const LINES = 10;
/** Between lines: the chat rate (a burst of 5, then 1 a second) lets every one through. */
const LINE_EVERY_MS = 1_000;
/** Who shares the chat class's rate (3 a second): polled no faster. */
const WHO_EVERY_MS = 400;

interface Round {
  killAtX: number;
  outcome: 'completed' | 'rolled back';
  zoneChanged: string[];
  who: string;
  corrected: boolean;
  off: number;
}

describeWithNats('a NATS outage under a live cluster', (nats) => {
  let cluster: TwoZoneCluster | undefined;
  let roles: readonly RoleProcess[] = [];
  let speaker: GameClient;
  let listener: GameClient;
  let walker: GameClient;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    cluster = await startTwoZoneCluster({
      name: 'bus-outage',
      natsUrl: nats().url,
      // The bus's own reconnects are read from the log (info).
      logLevel: 'info',
      gateways: ['a', 'b'],
      env: { COMBAT_LINGER_MS: '0' },
    });
    roles = cluster.roles;
    const ports = cluster.ports;
    // Everyone starts in Westmark at (560, 300), 40 units from the line.
    speaker = await startGameClient(ports[0]!, { transport: 'tcp', name: 'Sayer' });
    walker = await startGameClient(ports[0]!, { transport: 'tcp', name: 'Walker' });
    listener = await startGameClient(ports[1]!, { transport: 'ws', name: 'Hearer' });
  }, 120_000);

  afterAll(async () => {
    if (process.env['FAULTS_DEBUG']) {
      for (const r of roles) console.log(r.lines.filter((l) => !l.includes('"level":20')).join('\n'));
    }
    for (const c of [speaker, listener, walker]) c?.close();
    await cluster?.stop();
    console.log(`bus outage: ${JSON.stringify(figures, null, 1)}`);
  }, 60_000);

  /** How many times each role's bus has said it reconnected (its log, at info). */
  const reconnects = (): number[] =>
    roles.map((r) => r.lines.filter((l) => l.includes('"msg":"bus reconnected"')).length);

  /** Each role's bus, from the kill (epoch ms) to its reconnect: ms, by the roles' own logs. */
  function reconnectTimes(killedAt: number, since: number[]): number[] {
    return roles.map((r, i) => {
      const line = r.lines.filter((l) => l.includes('"msg":"bus reconnected"'))[since[i]!];
      return line ? Date.parse((JSON.parse(line) as { time: string }).time) - killedAt : NaN;
    });
  }

  /** Kills nats-server, starts it again DOWN_MS later, and waits for every role to reconnect. */
  async function outage(): Promise<{ killedAt: number; reconnectMs: number[] }> {
    const before = reconnects();
    const killedAt = Date.now();
    await nats().kill('SIGKILL');
    await sleep(DOWN_MS);
    await nats().start();
    await until(() => reconnects().every((n, i) => n > before[i]!), 30_000, 'every role to reconnect');
    return { killedAt, reconnectMs: reconnectTimes(killedAt, before) };
  }

  /** Where `observer` draws entity `id` now (the newest state it has, run on to its newest tick). */
  function drawn(observer: GameClient, id: number): { x: number; y: number } | undefined {
    const c = observer.client;
    const e = c.world.get(id);
    const t = c.lastTick?.serverTime;
    return e && t !== undefined ? c.world.positionAt(e, t) : undefined;
  }

  /**
   * Waits until the walker's client and a watcher (drawing what the host sends) agree where
   * it stands, twice in a row 300 ms apart; returns how far apart they were then.
   */
  async function agreed(timeoutMs: number): Promise<number> {
    let off = Infinity;
    let where = '';
    let prev: { x: number; y: number } | undefined;
    await until(
      async () => {
        const self = walker.client.world.self;
        const seen = drawn(listener, walker.entityId);
        if (!self || !seen) return false;
        off = Math.hypot(self.x - seen.x, self.y - seen.y);
        where = `client ${self.x.toFixed(1)},${self.y.toFixed(1)}, watcher ${seen.x.toFixed(1)},${seen.y.toFixed(1)}`;
        const still = prev !== undefined && Math.hypot(prev.x - self.x, prev.y - self.y) < 1e-6;
        prev = { x: self.x, y: self.y };
        if (off <= 0.5 && still) return true;
        await sleep(300);
        return false;
      },
      timeoutMs,
      'the walker and its host to agree',
    ).catch((e: unknown) => {
      const told = walker.log.entries
        .filter((p) => ['ZoneChanged', 'PositionCorrection', 'EnterWorld', 'Error'].includes(p.name))
        .map((p) => `${p.name} ${JSON.stringify(p.payload).slice(0, 160)}`);
      throw new Error(
        `${(e as Error).message}: ${off.toFixed(1)} units apart (${where}); told ${told.join(' | ')}`,
      );
    });
    return off;
  }

  /** The walker's zone as `who` lists it. */
  async function whoSays(): Promise<string> {
    const who = await walker.client.who();
    return who.players.find((p) => p.name === walker.name)?.zone ?? '(not listed)';
  }

  it('loses no line said around a 2 s NATS restart; a walker stalls while the bus reconnects (printed)', async () => {
    const said: string[] = [];
    const speakerSince = speaker.log.mark();
    const listenerSince = listener.log.mark();
    const walkerSince = walker.log.mark();
    const acks: number[] = [];
    const onAck = walker.client.onPacket;
    walker.client.onPacket = (...args) => {
      if (args[0] === MoveAck.name) acks.push(performance.now());
      onAck?.(...args);
    };
    const seen = watch(listener, walker.entityId);
    // West and back (about 6 s of walking) while the lines are said and the bus goes down.
    const walking = (async () => {
      await stride(walker, 200);
      await stride(walker, 560);
    })();
    const talking = (async () => {
      for (let i = 0; i < LINES; i++) {
        const text = `line ${i + 1} of ${LINES}`;
        said.push(text);
        speaker.client.say(text);
        await sleep(LINE_EVERY_MS);
      }
    })();
    await sleep(1_500);
    const { killedAt, reconnectMs } = await outage();
    await Promise.all([walking, talking]);
    walker.client.onPacket = onAck;

    // Each line heard, or refused to its sender: waited for up to 15 s after the last.
    const heard = () =>
      new Set(listener.log.all(ChatMessage, (m) => m.channel === 'say', listenerSince).map((m) => m.text));
    const refusals = () => speaker.log.all(ErrorPacket, (e) => e.opcode === ChatSend.opcode, speakerSince);
    await until(() => heard().size + refusals().length >= LINES, 15_000, 'every line heard or refused').catch(
      () => {},
    );
    const unheard = said.filter((t) => !heard().has(t));
    const refused = refusals();
    figures['chat'] = {
      said: LINES,
      heard: heard().size,
      refused: refused.map((e) => `${e.code}: ${e.reason}`),
    };
    // An error names the packet it refuses, not the line: each line not heard needs one.
    expect(unheard.length, `lines not heard: ${unheard.join(', ')}`).toBeLessThanOrEqual(refused.length);

    await agreed(15_000);
    const samples = seen.stop();
    let longestStill = 0;
    let still = 0;
    for (let i = 1; i < samples.length; i++) {
      const a = samples[i - 1]!;
      const b = samples[i]!;
      still = b.x === a.x ? still + (b.t - a.t) : 0;
      longestStill = Math.max(longestStill, still);
    }
    let longestAckGap = 0;
    for (let i = 1; i < acks.length; i++) longestAckGap = Math.max(longestAckGap, acks[i]! - acks[i - 1]!);
    figures['stall'] = {
      reconnectMsByRole: reconnectMs,
      longestMoveAckGapMs: Math.round(longestAckGap),
      longestDrawnStillMs: Math.round(longestStill),
      correctedOrResynced:
        walker.log.all(PositionCorrection, () => true, walkerSince).length +
        walker.log.all(EnterWorld, () => true, walkerSince).length,
      killedAt,
    };
  }, 90_000);

  it(`hands a walker over or gives it back, client and host agreeing, over ${ROUNDS} hand-offs racing a NATS restart`, async () => {
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // The cluster whole again (who asks every host: a zone stopped for its claim, or a
      // gateway taken for gone, leaves players out), and the walker back in Westmark, standing.
      await until(
        async () => (await walker.client.who()).total === 3,
        30_000,
        'who listing all three players',
        WHO_EVERY_MS,
      );
      // The walk back west was an ordinary hand-off, with the bus up: the two agree after it.
      await agreed(5_000);
      const since = walker.log.mark();
      const killAtX = 590 + round * 10;
      // East over the line; nats-server dies as the walker passes killAtX.
      const walking = stride(walker, 660);
      await until(() => (walker.client.world.self?.x ?? 0) >= killAtX, 10_000, `the walker at ${killAtX}`);
      await outage();
      await walking;
      const off = await agreed(20_000);
      const zoneChanged = walker.log.all(ZoneChanged, () => true, since);
      const who = await whoSays();
      const corrected =
        walker.log.all(PositionCorrection, () => true, since).length +
          walker.log.all(EnterWorld, () => true, since).length >
        0;
      // Where the client was told it is: a ZoneChanged, or an EnterWorld (a resync after a
      // lost message carries the zone too); told nothing, it is where it was.
      const told = walker.log.entries
        .slice(since)
        .filter((p) => p.name === ZoneChanged.name || p.name === EnterWorld.name)
        .map((p) => (p.payload as { zone: string }).zone);
      const completed = told.at(-1) === 'Eastmark';
      rounds.push({
        killAtX,
        outcome: completed ? 'completed' : 'rolled back',
        zoneChanged: zoneChanged.map((z) => z.zone),
        who,
        corrected,
        off: Math.round(off * 100) / 100,
      });
      // Completed: the client was told Eastmark, and who says so. Rolled back: who says Westmark,
      // and the client was told nothing or told Westmark (seen: the player taken, then handed back).
      expect(who, `round ${round + 1}: who agrees with what the client was told (${told.join(', ')})`).toBe(
        (completed ? 'Eastmark' : 'Westmark') satisfies Zone,
      );
      // Back west over the line for the next round (an ordinary hand-off, or none).
      const back = walker.log.mark();
      await stride(walker, 560);
      console.log(`round ${round + 1}: ${JSON.stringify(rounds.at(-1))}`);
      if (completed) {
        await walker.log.expect(ZoneChanged, { since: back, predicate: (z) => z.zone === 'Westmark' });
      }
      await until(async () => (await whoSays()) === 'Westmark', 10_000, 'who saying Westmark', WHO_EVERY_MS);
    }
    figures['handoffs'] = rounds;
    expect(rounds.every((r) => r.off <= 0.5)).toBe(true);
  }, 240_000);
});
