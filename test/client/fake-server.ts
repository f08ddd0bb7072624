/**
 * The scripted server of the SDK tests: the canned server (shared/client/canned-server.ts,
 * which the page's demo world runs on too) with real SRP (tssrp6a's SRPServerSession), so the
 * client's wire bytes are proven, a character screen and a small world to enter.
 */
import {
  arrayBufferToBigInt,
  bigIntToArrayBuffer,
  SRPParameters,
  SRPRoutines,
  SRPServerSession,
  type SRPServerSessionStep1,
} from 'tssrp6a';
import { CannedServer } from '../../shared/client/canned-server.js';
import type { ByteTransport } from '../../shared/client/transport.js';
import {
  CharacterCreated,
  CharacterList,
  CreateCharacter,
  EnterWorld,
  EnterWorldRequest,
  ListCharacters,
  LoginChallenge,
  LoginOk,
  LoginProof,
  LoginQueue,
  LoginStart,
  LogoutComplete,
  LogoutRequest,
  LogoutStarted,
  Register,
  Registered,
  SpellBook,
  ZoneInfo,
  type MoveRecord,
  type PayloadOf,
  type SpawnRecord,
} from '../../shared/protocol/index.js';

export type { Received } from '../../shared/client/canned-server.js';

/** The canned server with the scripts SDK tests share: real SRP-6a logins and a small world. */
export class FakeServer extends CannedServer {
  constructor(
    transport: ByteTransport,
    /** Server clock for Welcome / Pong. */
    now: () => number = () => Date.now(),
  ) {
    super(transport, { now });
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
