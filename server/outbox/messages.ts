/**
 * What the world's domain events become on the wire besides entity records: the packets a
 * player receives about its own affairs (acks, corrections, stats, cooldowns, the zone it
 * entered), about what it saw (casts, hits) and heard (chat). The world says what happened;
 * this is the one place that decides which packet says it and to whom.
 *
 * Entity state (motion, paths, health, deaths, respawns, departures) is not here: the
 * replication writer encodes it as records once per cell (outbox.ts).
 */
import { grown, neighbours, rectInArea } from '../world/border.js';
import {
  ChatSend,
  ErrorCode,
  errorMessage,
  type ChatMessage,
  type CombatEvent,
  type Cooldown,
  type EnterWorld,
  type ErrorPacket,
  type ExperienceGain,
  type LevelUp,
  type LogoutCancelled,
  type LogoutComplete,
  type LogoutStarted,
  type MoveAck,
  type PayloadOf,
  type PlayerStats,
  type PositionCorrection,
  type SpellBook,
  type SpellFailed,
  type SpellGo,
  type SpellStart,
  type ZoneChanged,
  type ZoneInfo,
} from '../../shared/protocol/index.js';
import { ownStats, type ChatRefusal, type Player, type World, type WorldEvent } from '../world/index.js';

type Msg<P> = P extends { name: infer N } ? { packet: N; data: PayloadOf<P> } : never;

/** A packet by its definition's name and its payload: the outbox writes it with byName. */
export type Message =
  | Msg<typeof MoveAck>
  | Msg<typeof PositionCorrection>
  | Msg<typeof PlayerStats>
  | Msg<typeof ExperienceGain>
  | Msg<typeof LevelUp>
  | Msg<typeof SpellStart>
  | Msg<typeof SpellGo>
  | Msg<typeof SpellFailed>
  | Msg<typeof CombatEvent>
  | Msg<typeof Cooldown>
  | Msg<typeof SpellBook>
  | Msg<typeof ChatMessage>
  | Msg<typeof LogoutStarted>
  | Msg<typeof LogoutCancelled>
  | Msg<typeof LogoutComplete>
  | Msg<typeof ZoneInfo>
  | Msg<typeof ZoneChanged>
  | Msg<typeof EnterWorld>
  | Msg<typeof ErrorPacket>;

export type PacketName = Message['packet'];
export type MessageOf<N extends PacketName> = Extract<Message, { packet: N }>;

/**
 * Where messages go. One message object may go to many players: it is encoded once and
 * copied to each.
 */
export interface MessageSink {
  /** To one player. */
  to(playerId: number, msg: Message): void;
  /** To each of `ids`, then to `also` unless it is 0. */
  toEach(ids: readonly number[], also: number, msg: Message): void;
  /** To every player in the zone. */
  toZone(msg: Message): void;
}

/** The step the events came from: EnterWorld carries its tick and time (WorldUpdate heads count on from them). */
export interface StepClock {
  tick: number;
  time: number;
}

const CHAT_ERRORS: Record<ChatRefusal, ErrorCode> = {
  tooLong: ErrorCode.ChatTooLong,
  rateLimited: ErrorCode.RateLimited,
};

/** Sends the packets event `e` becomes; entity-state and session events become none here. */
export function messages(w: World, clock: StepClock, e: WorldEvent, sink: MessageSink): void {
  switch (e.type) {
    case 'entered':
      entered(w, clock, e.player, sink);
      return;
    case 'arrived':
      arrived(w, clock, e.player, sink);
      return;
    default:
      ownAffairs(e, sink);
      seenAndHeard(e, sink);
  }
}

/** Handed over from the zone beside: the client keeps what it has and counts on from here. */
function arrived(w: World, clock: StepClock, p: Player, sink: MessageSink): void {
  sink.to(p.id, zoneInfo(w));
  sink.to(p.id, {
    packet: 'ZoneChanged',
    data: { zone: w.zone.name, tick: clock.tick, serverTime: clock.time },
  });
}

/** What a player is told of its own affairs: acks, corrections, stats, cooldowns, refusals, logout. */
function ownAffairs(e: WorldEvent, sink: MessageSink): void {
  switch (e.type) {
    case 'moveAccepted':
      sink.to(e.player.id, { packet: 'MoveAck', data: { seq: e.seq } });
      return;
    case 'moveRefused':
    case 'relocated':
      // A later discontinuity of the same step tells the client where it is (world.ts
      // nextMoveEpoch): a later correction, or an EnterWorld, which goes ahead of the update.
      if (e.superseded) return;
      sink.to(e.player.id, {
        packet: 'PositionCorrection',
        data: { seq: e.seq, x: e.x, y: e.y, facing: e.facing, reason: e.reason, epoch: e.epoch },
      });
      return;
    case 'statsChanged':
      sink.to(e.player.id, { packet: 'PlayerStats', data: e.stats });
      return;
    case 'experienceGained':
      sink.to(e.player.id, { packet: 'ExperienceGain', data: { victimId: e.victimId, amount: e.amount } });
      return;
    case 'cooldownStarted':
      sink.to(e.player.id, { packet: 'Cooldown', data: { spellId: e.spellId, remaining: e.remaining } });
      return;
    case 'castRefused':
      sink.to(e.player.id, {
        packet: 'SpellFailed',
        data: { casterId: e.player.id, spellId: e.spellId, reason: e.reason },
      });
      return;
    case 'chatRefused': {
      const code = CHAT_ERRORS[e.reason];
      sink.to(e.player.id, {
        packet: 'Error',
        data: { code, reason: errorMessage(code), opcode: ChatSend.opcode, fatal: false },
      });
      return;
    }
    case 'logoutStarted':
      sink.to(e.player.id, { packet: 'LogoutStarted', data: { delay: e.delay } });
      return;
    case 'logoutCancelled':
      sink.to(e.player.id, { packet: 'LogoutCancelled', data: {} });
      return;
    case 'leftWorld':
      if (e.reason === 'logout') sink.to(e.playerId, { packet: 'LogoutComplete', data: {} });
      return;
    default:
      return;
  }
}

/** What those who see or hear it are told: level-ups, casts, hits, chat. */
function seenAndHeard(e: WorldEvent, sink: MessageSink): void {
  switch (e.type) {
    case 'leveledUp':
      // The effect on the entity, and a line in the chat of everyone who sees it.
      sink.toEach(e.witnesses, e.player.id, {
        packet: 'LevelUp',
        data: { entityId: e.player.id, level: e.level },
      });
      sink.toEach(e.witnesses, e.player.id, {
        packet: 'ChatMessage',
        data: {
          channel: 'system',
          fromId: 0,
          from: '',
          to: '',
          text: `${e.player.name} reached level ${e.level}`,
        },
      });
      return;
    case 'castStarted':
      sink.toEach(e.witnesses, e.caster.id, {
        packet: 'SpellStart',
        data: { casterId: e.caster.id, spellId: e.spellId, targetId: e.targetId, castTime: e.castTime },
      });
      return;
    case 'castFailed':
      sink.toEach(e.witnesses, e.caster.id, {
        packet: 'SpellFailed',
        data: { casterId: e.caster.id, spellId: e.spellId, reason: e.reason },
      });
      return;
    case 'spellLaunched':
      sink.toEach(e.witnesses, e.caster.id, {
        packet: 'SpellGo',
        data: { casterId: e.caster.id, spellId: e.spellId, targetId: e.targetId, travelTime: e.travelTime },
      });
      return;
    case 'spellHit':
      sink.toEach(e.witnesses, e.target.kind === 'player' ? e.target.id : 0, {
        packet: 'CombatEvent',
        data: {
          sourceId: e.sourceId,
          targetId: e.target.id,
          spellId: e.spellId,
          kind: e.effect,
          amount: e.amount,
          crit: e.crit,
        },
      });
      return;
    case 'said':
      sink.toEach(e.hearers, 0, chatLine(e.speaker, 'say', e.text));
      return;
    case 'shouted':
      sink.toZone(chatLine(e.speaker, 'zone', e.text));
      return;
    default:
      return;
  }
}

function chatLine(p: Player, channel: 'say' | 'zone', text: string): Message {
  return { packet: 'ChatMessage', data: { channel, fromId: p.id, from: p.name, to: '', text } };
}

/** A player in the zone learns where it is, what it can cast and who it is, before what it sees. */
function entered(w: World, clock: StepClock, p: Player, sink: MessageSink): void {
  sink.to(p.id, zoneInfo(w));
  sink.to(p.id, {
    packet: 'SpellBook',
    data: {
      spells: p.spells.flatMap((id) => {
        const s = w.data.spells.get(id);
        return s ? [{ ...s }] : [];
      }),
    },
  });
  sink.to(p.id, {
    packet: 'EnterWorld',
    data: {
      zone: w.zone.name,
      entityId: p.id,
      name: p.name,
      x: p.x,
      y: p.y,
      facing: p.facing,
      speed: p.speed,
      level: p.level,
      health: p.health,
      maxHealth: p.maxHealth,
      mana: p.mana,
      maxMana: p.maxMana,
      spells: p.spells,
      serverTime: clock.time,
      tick: clock.tick,
      interestRadius: w.rules.interestRadius,
      moveEpoch: p.moveEpoch,
    },
  });
  // The kill count, experience and the rest of the own stats, which EnterWorld does not carry.
  sink.to(p.id, { packet: 'PlayerStats', data: ownStats(w, p) });
}

export function zoneInfo(w: World): MessageOf<'ZoneInfo'> {
  const near = grown(w.zone, w.rules.interestRadius * w.rules.interestMargin);
  const beside = neighbours(w.data.zones, w.zone);
  return {
    packet: 'ZoneInfo',
    data: {
      zone: w.zone.name,
      x: w.zone.x,
      y: w.zone.y,
      width: w.zone.width,
      height: w.zone.height,
      obstacles: [
        ...w.zone.obstacles,
        ...beside.flatMap((z) => z.obstacles.filter((o) => rectInArea(o, near))),
      ],
      neighbours: beside.map((z) => ({ zone: z.name, x: z.x, y: z.y, width: z.width, height: z.height })),
      cellSize: w.rules.cellSize,
      respawnDelay: w.rules.playerRespawnDelay,
    },
  };
}
