/**
 * A scripted server for SDK tests: it speaks real frames over any ByteTransport (the
 * in-memory pair, a TCP socket, a WebSocket), answers with handlers the test installs, and
 * can run real SRP (tssrp6a's SRPServerSession) so the client's wire bytes are proven.
 * Entity news goes out as the real server sends it: WorldUpdate frames of entity records.
 */
import {
  arrayBufferToBigInt,
  bigIntToArrayBuffer,
  SRPParameters,
  SRPRoutines,
  SRPServerSession,
  type SRPServerSessionStep1,
} from 'tssrp6a';
import { FrameDecoder } from '../../shared/codec/frame.js';
import type { ByteTransport } from '../../shared/client/transport.js';
import {
  byOpcode,
  CharacterCreated,
  CharacterList,
  CreateCharacter,
  EnterWorld,
  EnterWorldRequest,
  ErrorPacket,
  Hello,
  ListCharacters,
  LoginChallenge,
  LoginOk,
  LoginProof,
  LoginQueue,
  LoginStart,
  LogoutComplete,
  LogoutRequest,
  LogoutStarted,
  Ping,
  Pong,
  PROTOCOL_VERSION,
  Register,
  Registered,
  SpellBook,
  Welcome,
  WorldUpdate,
  ZoneInfo,
  type ClientPacket,
  type EntityRecord,
  type MoveRecord,
  type PayloadOf,
  type ServerPacket,
  type SpawnRecord,
} from '../../shared/protocol/index.js';

export interface Received {
  name: string;
  payload: any;
}

type Handler = (payload: any) => void | Promise<void>;

export class FakeServer {
  readonly received: Received[] = [];
  private readonly decoder = new FrameDecoder();
  private readonly handlers = new Map<number, Handler>();
  private readonly waiters: { name: string; resolve: (r: Received) => void }[] = [];
  closed = false;
  /** The tick of the newest WorldUpdate sent. */
  tick = 0;
  /** The server time the client holds for the newest WorldUpdate (or EnterWorld) sent. */
  private sentTime = 0;

  constructor(
    readonly transport: ByteTransport,
    /** Server clock for Welcome / Pong. */
    readonly now: () => number = () => Date.now(),
  ) {
    transport.onBytes = (bytes) => {
      this.decoder.push(bytes);
      for (let frame = this.decoder.next(); frame; frame = this.decoder.next()) {
        const def = byOpcode(frame.opcode);
        if (!def) throw new Error(`fake server: unknown opcode ${frame.opcode}`);
        const r = { name: def.name, payload: def.decode(frame.payload) };
        this.received.push(r);
        const i = this.waiters.findIndex((w) => w.name === r.name);
        if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(r);
        const handler = this.handlers.get(def.opcode);
        if (handler) void handler(r.payload);
      }
    };
    transport.onClose = () => {
      this.closed = true;
    };
  }

  send<P extends ServerPacket<string, any>>(def: P, value: PayloadOf<P>): void {
    if (def.opcode === EnterWorld.opcode) {
      // WorldUpdate heads count on from here.
      const enter = value as PayloadOf<typeof EnterWorld>;
      this.tick = enter.tick;
      this.sentTime = enter.serverTime;
    }
    this.transport.send(def.encode(value));
  }

  /** One tick's WorldUpdate: `records` happened at server time `time` (now by default, whole ms on the wire). */
  update(records: EntityRecord[], time = this.now()): void {
    // The head counts on from the previous WorldUpdate (or EnterWorld), as the server's does.
    const dt = Math.max(0, Math.round(time - this.sentTime));
    this.sentTime += dt;
    this.tick++;
    this.send(WorldUpdate, { tick: 1, time: dt, records });
  }

  sendRaw(bytes: Uint8Array): void {
    this.transport.send(bytes);
  }

  refuse(request: { opcode: number }, code: string, reason = '', fatal = false): void {
    this.send(ErrorPacket, { code, reason, opcode: request.opcode, fatal });
    if (fatal) this.transport.close();
  }

  handle<P extends ClientPacket<string, any>>(
    def: P,
    handler: (payload: PayloadOf<P>) => void | Promise<void>,
  ): this {
    this.handlers.set(def.opcode, handler as Handler);
    return this;
  }

  /** The next packet of this name from the client (one already received counts if not yet taken). */
  next(name: string): Promise<Received> {
    return new Promise((resolve) => this.waiters.push({ name, resolve }));
  }

  names(): string[] {
    return this.received.map((r) => r.name);
  }

  close(): void {
    this.transport.close();
  }

  /** Hello -> Welcome, Ping -> Pong. */
  speakSession(serverName = 'fake'): this {
    this.handle(Hello, (h) => {
      if (h.protocolVersion !== PROTOCOL_VERSION)
        return this.refuse(Hello, 'ERR_VERSION', 'old client', true);
      this.send(Welcome, {
        protocolVersion: PROTOCOL_VERSION,
        serverName,
        tickRate: 20,
        serverTime: this.now(),
        connectionId: 1,
      });
    });
    this.handle(Ping, (p) =>
      this.send(Pong, { seq: p.seq, clientTime: p.clientTime, serverTime: this.now() }),
    );
    return this;
  }

  /**
   * Register, LoginStart and LoginProof with real SRP-6a, keyed by lower-cased account.
   * `queue` LoginQueue updates are sent before the challenge; `forgeM2` answers with a wrong proof.
   */
  speakSrp(options: { queue?: number; forgeM2?: boolean; accounts?: SrpAccounts } = {}): SrpAccounts {
    const accounts: SrpAccounts = options.accounts ?? new Map();
    const routines = new SRPRoutines(new SRPParameters());
    let login: { account: string; step1: SRPServerSessionStep1 } | undefined;
    this.handle(Register, (r) => {
      const key = r.account.toLowerCase();
      if (accounts.has(key)) return this.refuse(Register, 'ERR_ACCOUNT_TAKEN');
      accounts.set(key, { salt: r.salt, verifier: r.verifier });
      this.send(Registered, { account: r.account });
    });
    this.handle(LoginStart, async (s) => {
      const key = s.account.toLowerCase();
      const acct = accounts.get(key);
      if (!acct) return this.refuse(LoginStart, 'ERR_BAD_LOGIN', 'no such account');
      for (let i = options.queue ?? 0; i >= 1; i--)
        this.send(LoginQueue, { position: i, queueLength: options.queue! });
      const step1 = await new SRPServerSession(routines).step1(key, toBig(acct.salt), toBig(acct.verifier));
      login = { account: key, step1 };
      this.send(LoginChallenge, { salt: acct.salt, B: toBytes(step1.B) });
    });
    this.handle(LoginProof, async (p) => {
      if (!login) return this.refuse(LoginProof, 'ERR_WRONG_STATE');
      let M2: bigint;
      try {
        M2 = await login.step1.step2(toBig(p.A), toBig(p.M1));
      } catch {
        return this.refuse(LoginProof, 'ERR_BAD_LOGIN', 'bad proof');
      }
      if (options.forgeM2) M2 ^= 1n;
      this.send(LoginOk, {
        M2: toBytes(M2),
        accountId: 7,
        account: login.account,
        resumeToken: new Uint8Array(32).fill(9),
        deviceToken: new Uint8Array(32).fill(4),
      });
    });
    return accounts;
  }

  /** A character screen and a world to enter: one zone, two spells; `enter` overrides EnterWorld's fields. */
  speakCharacters(
    characters: PayloadOf<typeof CharacterList>['characters'] = [],
    obstacles: PayloadOf<typeof ZoneInfo>['obstacles'] = [],
    enter: Partial<PayloadOf<typeof EnterWorld>> = {},
  ): this {
    this.handle(ListCharacters, () => this.send(CharacterList, { characters }));
    this.handle(CreateCharacter, (c) => {
      const character = {
        id: characters.length + 1,
        name: c.name,
        level: 1,
        zone: 'meadow',
        appearance: c.appearance,
      };
      characters.push(character);
      this.send(CharacterCreated, { character });
    });
    this.handle(EnterWorldRequest, (r) => {
      const ch = characters.find((c) => c.id === r.characterId);
      if (!ch) return this.refuse(EnterWorldRequest, 'ERR_NO_SUCH_CHARACTER');
      this.send(ZoneInfo, {
        zone: 'meadow',
        x: 0,
        y: 0,
        width: 1024,
        height: 1024,
        obstacles,
        neighbours: [],
        cellSize: 64,
        respawnDelay: 500,
      });
      this.send(SpellBook, { spells: [fireball, heal] });
      this.send(EnterWorld, enterWorld({ entityId: ch.id, name: ch.name, serverTime: this.now(), ...enter }));
    });
    this.handle(LogoutRequest, () => {
      this.send(LogoutStarted, { delay: 20 });
      setTimeout(() => this.send(LogoutComplete, {}), 20);
    });
    return this;
  }
}

export type SrpAccounts = Map<string, { salt: Uint8Array; verifier: Uint8Array }>;

export function toBig(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : arrayBufferToBigInt(new Uint8Array(bytes).buffer);
}

export function toBytes(n: bigint): Uint8Array {
  return new Uint8Array(bigIntToArrayBuffer(n));
}

export const fireball: PayloadOf<typeof SpellBook>['spells'][number] = {
  id: 1,
  name: 'Fireball',
  kind: 'damage',
  castTime: 1500,
  cooldown: 0,
  manaCost: 20,
  range: 300,
  projectileSpeed: 400,
  min: 10,
  max: 20,
  colour: 0xff6600,
};

export const heal: PayloadOf<typeof SpellBook>['spells'][number] = {
  ...fireball,
  id: 2,
  name: 'Heal',
  kind: 'heal',
  projectileSpeed: 0,
};

/** A spawn record (a wolf unless told otherwise); the caller follows it with a move or path. */
export function spawnRecord(over: Partial<Omit<SpawnRecord, 'kind'>> & { id: number }): SpawnRecord {
  return {
    kind: 'spawn',
    entity: 'mob',
    template: 3,
    name: 'Grey Wolf',
    level: 5,
    health: 80,
    maxHealth: 80,
    speed: 100,
    appearance: 0,
    alive: true,
    ...over,
  };
}

/** A movement state: standing at (x, y) facing `angle`, or walking along it with `moving`. */
export function moveRecord(
  id: number,
  x: number,
  y: number,
  over: Partial<Omit<MoveRecord, 'kind' | 'id' | 'x' | 'y'>> = {},
): MoveRecord {
  return { kind: 'move', id, x, y, angle: 0, moving: false, jump: false, speed: undefined, ...over };
}

export function enterWorld(over: Partial<PayloadOf<typeof EnterWorld>> = {}): PayloadOf<typeof EnterWorld> {
  return {
    zone: 'meadow',
    entityId: 1,
    name: 'Ayla',
    x: 100,
    y: 100,
    facing: 0,
    speed: 120,
    level: 1,
    health: 100,
    maxHealth: 100,
    mana: 50,
    maxMana: 50,
    spells: [1, 2],
    serverTime: 1_000_000,
    tick: 1,
    interestRadius: 400,
    moveEpoch: 0,
    ...over,
  };
}
