/**
 * A canned world for `?demo`, played by the canned server (shared/client/canned-server.ts, the
 * one the SDK tests script too) on the far end of an in-memory connection: it speaks the real
 * wire format, so the page decodes and draws it through exactly the path a server's bytes
 * take, link lab included. It answers the own character's MoveInput with MoveAck and opens
 * every tick with a WorldUpdate of entity records: a few players walking (movement states), a
 * mob patrolling (path records), a caster throwing fireballs at a mob, a healer, and a corpse.
 */
import { CannedServer } from '../../../shared/client/canned-server.js';
import { createMemoryTransportPair, type ByteTransport } from '../../../shared/client/transport.js';
import { MOB_ID_BASE } from '../../../shared/protocol/common.js';
import { EnterWorld, ZoneInfo } from '../../../shared/protocol/character.js';
import { PlayerStats } from '../../../shared/protocol/entity.js';
import { MoveAck, MoveInput } from '../../../shared/protocol/movement.js';
import type { EntityRecord, SpawnRecord } from '../../../shared/protocol/records.js';
import { ChatMessage } from '../../../shared/protocol/chat.js';
import {
  CombatEvent,
  Cooldown,
  SpellBook,
  SpellGo,
  SpellStart,
  CastSpell,
} from '../../../shared/protocol/spell.js';
import type { PayloadOf, ServerPacket } from '../../../shared/protocol/define.js';

export const DEMO_TICK_MS = 50;
const SELF_ID = 1;
const WOLF = MOB_ID_BASE + 1;
const BOAR = MOB_ID_BASE + 2;
const CORPSE = MOB_ID_BASE + 3;

export const DEMO_ZONE: PayloadOf<typeof ZoneInfo> = {
  zone: 'Greenvale',
  x: 0,
  y: 0,
  width: 1600,
  height: 1200,
  neighbours: [],
  cellSize: 128,
  respawnDelay: 5000,
  obstacles: [
    { x: 560, y: 420, w: 160, h: 40 },
    { x: 940, y: 640, w: 40, h: 200 },
    { x: 300, y: 800, w: 220, h: 60 },
    { x: 1100, y: 300, w: 120, h: 120 },
  ],
};

const SPELLS: PayloadOf<typeof SpellBook>['spells'] = [
  {
    id: 1,
    name: 'Fireball',
    kind: 'damage',
    castTime: 1500,
    cooldown: 0,
    manaCost: 20,
    range: 320,
    projectileSpeed: 400,
    min: 18,
    max: 26,
    colour: 0xff7a2f,
  },
  {
    id: 2,
    name: 'Frostbolt',
    kind: 'damage',
    castTime: 1200,
    cooldown: 4000,
    manaCost: 15,
    range: 300,
    projectileSpeed: 450,
    min: 12,
    max: 18,
    colour: 0x6fc8ff,
  },
  {
    id: 3,
    name: 'Heal',
    kind: 'heal',
    castTime: 1000,
    cooldown: 2000,
    manaCost: 25,
    range: 250,
    projectileSpeed: 0,
    min: 20,
    max: 30,
    colour: 0x7dff7a,
  },
  {
    id: 4,
    name: 'Arcane Shot',
    kind: 'damage',
    castTime: 0,
    cooldown: 6000,
    manaCost: 10,
    range: 280,
    projectileSpeed: 600,
    min: 8,
    max: 12,
    colour: 0xc77dff,
  },
];

interface Pending {
  at: number;
  run: () => void;
}

export class DemoServer {
  /** The client's end of the connection: the page's WyvernClient runs over it. */
  readonly transport: ByteTransport;
  private readonly server: CannedServer;
  private timer: ReturnType<typeof setInterval> | undefined;
  private tick = 0;
  private readonly t0: number;
  private boarHealth = 400;
  private borinHealth = 220;
  private later: Pending[] = [];
  private nextPatrol = 0;
  private patrolLeg = 0;
  private nextCast = 0;
  /** Entity records of the tick being written: they go first, in its WorldUpdate. */
  private records: EntityRecord[] = [];
  /** Event packets of the tick being written: they follow its WorldUpdate. */
  private events: (() => void)[] = [];

  constructor(private readonly now: () => number = () => Date.now()) {
    this.t0 = now();
    const pair = createMemoryTransportPair(false);
    this.transport = pair.client;
    this.server = new CannedServer(pair.server, { now, keepReceived: false });
    this.server.handle(MoveInput, (m) => this.server.send(MoveAck, { seq: m.seq }));
    this.server.handle(CastSpell, (c) => this.cast(c));
  }

  /** Sends the zone, the spell book, the own character and the spawns, then ticks at 20 Hz. */
  start(): void {
    const t = this.now();
    const server = this.server;
    server.batch(() => {
      server.send(ZoneInfo, DEMO_ZONE);
      server.send(SpellBook, { spells: SPELLS });
      server.send(EnterWorld, {
        zone: DEMO_ZONE.zone,
        entityId: SELF_ID,
        name: 'Aria',
        x: 800,
        y: 560,
        facing: 0,
        speed: 120,
        level: 7,
        health: 180,
        maxHealth: 200,
        mana: 140,
        maxMana: 200,
        spells: SPELLS.map((s) => s.id),
        serverTime: t,
        tick: 0,
        interestRadius: 360,
        moveEpoch: 0,
      });
      server.send(PlayerStats, {
        mana: 140,
        maxMana: 200,
        level: 7,
        kills: 3,
        experience: 620,
        experienceNeeded: 1600,
      });
      const spawn = (
        v: Partial<Omit<SpawnRecord, 'kind'>> & { id: number; name: string; x: number; y: number },
      ) => {
        const { x, y, ...rest } = v;
        this.records.push(
          {
            kind: 'spawn',
            entity: 'player',
            template: 0,
            level: 5,
            health: 150,
            maxHealth: 150,
            speed: 120,
            appearance: 0,
            alive: true,
            ...rest,
          },
          { kind: 'move', id: v.id, x, y, angle: 0, moving: false, jump: false, speed: undefined },
        );
      };
      spawn({
        id: 2,
        name: 'Borin',
        x: 700,
        y: 640,
        level: 6,
        health: this.borinHealth,
        maxHealth: 260,
        appearance: 1,
      });
      spawn({ id: 3, name: 'Cyra', x: 880, y: 660, level: 9, appearance: 3 });
      spawn({ id: 4, name: 'Dax', x: 640, y: 520, level: 8, appearance: 2 });
      spawn({
        id: WOLF,
        entity: 'mob',
        template: 1,
        name: 'Grey Wolf',
        x: 1000,
        y: 500,
        level: 4,
        health: 90,
        maxHealth: 90,
        speed: 70,
      });
      spawn({
        id: BOAR,
        entity: 'mob',
        template: 2,
        name: 'Tusked Boar',
        x: 820,
        y: 420,
        level: 5,
        health: this.boarHealth,
        maxHealth: 400,
        speed: 60,
      });
      spawn({
        id: CORPSE,
        entity: 'mob',
        template: 3,
        name: 'Rat',
        x: 760,
        y: 700,
        level: 1,
        health: 0,
        maxHealth: 30,
        alive: false,
      });
      server.update(this.records.splice(0), t);
      server.send(ChatMessage, {
        channel: 'system',
        fromId: 0,
        from: '',
        to: '',
        text: 'Demo world: no server, the netcode path is real.',
      });
      server.send(ChatMessage, {
        channel: 'say',
        fromId: 3,
        from: 'Cyra',
        to: '',
        text: 'Hold still, Borin, I am healing you.',
      });
    });
    this.timer = setInterval(() => this.step(), DEMO_TICK_MS);
  }

  /** The own character's cast: it starts now, goes after its cast time, lands on its travel. */
  private cast(c: PayloadOf<typeof CastSpell>): void {
    const spell = SPELLS.find((s) => s.id === c.spellId);
    if (!spell) return;
    const t = this.now();
    this.server.batch(() => {
      this.server.send(SpellStart, {
        casterId: SELF_ID,
        spellId: spell.id,
        targetId: c.targetId,
        castTime: spell.castTime,
      });
      if (spell.cooldown > 0)
        this.server.send(Cooldown, { spellId: spell.id, remaining: spell.cooldown + spell.castTime });
    });
    this.at(t + spell.castTime, () =>
      this.event(SpellGo, { casterId: SELF_ID, spellId: spell.id, targetId: c.targetId, travelTime: 350 }),
    );
    this.at(t + spell.castTime + 350, () =>
      this.event(CombatEvent, {
        sourceId: SELF_ID,
        targetId: c.targetId,
        spellId: spell.id,
        kind: spell.kind,
        amount: spell.min + 3,
        crit: false,
      }),
    );
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.server.close();
  }

  /** An event packet of this tick: sent after its WorldUpdate. */
  private event<P extends ServerPacket<string, any>>(def: P, value: PayloadOf<P>): void {
    this.events.push(() => this.server.send(def, value));
  }

  private at(t: number, run: () => void): void {
    this.later.push({ at: t, run });
  }

  private step(): void {
    const now = this.now();
    const t = (now - this.t0) / 1000;
    this.tick++;
    const due = this.later.filter((p) => p.at <= now);
    this.later = this.later.filter((p) => p.at > now);
    // Borin walks a circle, Cyra paces: both turn all the time, so each sends a state a tick.
    const a = t * 0.9;
    this.records.push({
      kind: 'move',
      id: 2,
      x: 700 + Math.cos(a) * 70,
      y: 640 + Math.sin(a) * 70,
      angle: a + Math.PI / 2,
      moving: true,
      jump: false,
      speed: 63,
    });
    const phase = (t * 60) % 240;
    const pace = Math.abs(phase - 120);
    this.records.push({
      kind: 'move',
      id: 3,
      x: 860 + pace,
      y: 660,
      angle: phase < 120 ? Math.PI : 0,
      moving: true,
      jump: false,
      speed: 60,
    });
    // Events are gathered first: they may add records, which the tick's WorldUpdate carries
    // ahead of them.
    for (const p of due) p.run();
    if (now >= this.nextPatrol) {
      const legs = [
        [
          { x: 1150, y: 520 },
          { x: 1150, y: 700 },
        ],
        [
          { x: 1000, y: 700 },
          { x: 1000, y: 500 },
        ],
      ];
      const from = this.patrolLeg % 2 === 0 ? { x: 1000, y: 500 } : { x: 1150, y: 700 };
      this.records.push({
        kind: 'path',
        id: WOLF,
        ...from,
        speed: 70,
        waypoints: legs[this.patrolLeg % 2] ?? [],
      });
      this.patrolLeg++;
      this.nextPatrol = now + 5200;
    }
    if (now >= this.nextCast) {
      this.nextCast = now + 3000;
      this.castFireball(now);
    }
    const events = this.events.splice(0);
    this.server.batch(() => {
      this.server.update(this.records.splice(0), now);
      for (const send of events) send();
    });
  }

  private castFireball(now: number): void {
    this.event(SpellStart, { casterId: 4, spellId: 1, targetId: BOAR, castTime: 1500 });
    this.event(SpellStart, { casterId: 3, spellId: 3, targetId: 2, castTime: 1000 });
    const crit = this.tick % 2 === 0;
    const dmg = crit ? 41 : 22;
    this.at(now + 1000, () => {
      this.event(SpellGo, { casterId: 3, spellId: 3, targetId: 2, travelTime: 0 });
      this.borinHealth = Math.min(260, this.borinHealth + 25);
      this.event(CombatEvent, {
        sourceId: 3,
        targetId: 2,
        spellId: 3,
        kind: 'heal',
        amount: 25,
        crit: false,
      });
      this.records.push({ kind: 'health', id: 2, health: this.borinHealth, maxHealth: 260 });
    });
    this.at(now + 1500, () =>
      this.event(SpellGo, { casterId: 4, spellId: 1, targetId: BOAR, travelTime: 400 }),
    );
    this.at(now + 1900, () => {
      this.boarHealth -= dmg;
      this.event(CombatEvent, { sourceId: 4, targetId: BOAR, spellId: 1, kind: 'damage', amount: dmg, crit });
      if (this.boarHealth <= 0) {
        this.records.push(
          { kind: 'health', id: BOAR, health: 0, maxHealth: 400 },
          { kind: 'death', id: BOAR, killerId: 4 },
        );
        this.boarHealth = 400;
        this.at(now + 4000, () => {
          this.records.push(
            { kind: 'despawn', id: BOAR, reason: 'corpse' },
            {
              kind: 'spawn',
              id: BOAR,
              entity: 'mob',
              template: 2,
              name: 'Tusked Boar',
              level: 5,
              health: 400,
              maxHealth: 400,
              speed: 60,
              appearance: 0,
              alive: true,
            },
            {
              kind: 'move',
              id: BOAR,
              x: 820,
              y: 420,
              angle: 0,
              moving: false,
              jump: false,
              speed: undefined,
            },
          );
        });
      } else {
        this.records.push({ kind: 'health', id: BOAR, health: this.boarHealth, maxHealth: 400 });
      }
    });
    // Borin takes a bite now and then, so the healer has work.
    this.borinHealth = Math.max(60, this.borinHealth - 30);
    this.event(CombatEvent, {
      sourceId: WOLF,
      targetId: 2,
      spellId: 0,
      kind: 'damage',
      amount: 30,
      crit: false,
    });
    this.records.push({ kind: 'health', id: 2, health: this.borinHealth, maxHealth: 260 });
  }
}
