/**
 * The zone-host role on its own, spoken to over an in-process bus as two gateways would:
 * joins and moves go in as zone-input records, and each tick comes back as ONE message per
 * gateway carrying every one of its sessions' bytes. No sockets; the tick is run by hand.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import {
  EnterWorld,
  MoveAck,
  MoveInput,
  WhoList,
  WorldUpdate,
  ZoneInfo,
} from '../../shared/protocol/index.js';
import { InProcessBus, Subjects, zoneId } from '../../server/cluster/index.js';
import { readTagged, type Tagged } from '../../server/cluster/inner/define.js';
import {
  Behind,
  GatewayBatch,
  Join,
  LeftReason,
  Packet,
  Resync,
  ZoneInputs,
} from '../../server/cluster/wire.js';
import { createLogger } from '../../server/log.js';
import { CharacterSaver, openStore, type Store } from '../../server/store/index.js';
import { loadWorldData, type WorldData } from '../../server/world/index.js';
import { Realm } from '../../server/zone/realm.js';
import { account, character } from '../store/builders.js';

const DATA = path.resolve(import.meta.dirname, '../../data');

interface Received {
  records: Tagged<typeof GatewayBatch>[];
}

/** The opcodes of the whole frames in `bytes`, in order. */
function opcodes(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at + 6 <= bytes.length;) {
    const size = bytes[at]! | (bytes[at + 1]! << 8);
    out.push(bytes[at + 2]! | (bytes[at + 3]! << 8));
    at += size;
  }
  return out;
}

function bytesFor(batch: Received, session: number): number[] {
  return batch.records.flatMap((r) => (r.kind === 'Bytes' && r.session === session ? opcodes(r.frames) : []));
}

describe('the zone host over the bus', () => {
  let data: WorldData;
  let store: Store;
  let bus: InProcessBus;
  let realm: Realm;
  let now: number;
  const ticks: { a: Received[]; b: Received[] } = { a: [], b: [] };
  /** What the realm logged, as pino's JSON objects. */
  let logged: { level: number; msg: string }[];

  function send(gateway: string, write: (w: Writer) => void): void {
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway: gateway, epoch: 0, to: 0, seq: 0 });
    write(w);
    bus.publish(Subjects.zoneInput(zoneId(data.zones[0]!.name)), w.finish());
  }

  async function tick(): Promise<void> {
    now += 50;
    realm.runTick();
    await bus.flush();
  }

  /** Ticks until `done` holds (joins wait for the store), at most `max` ticks. */
  async function tickUntil(done: () => boolean, max = 40): Promise<void> {
    for (let i = 0; i < max && !done(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await tick();
    }
    expect(done()).toBe(true);
  }

  async function newCharacter(name: string): Promise<number> {
    const acct = await store.createAccount(account());
    const zone = data.zones[0]!;
    const c = await store.createCharacter(
      character(acct.id, { name, zone: zone.name, x: zone.playerSpawn.x, y: zone.playerSpawn.y }),
    );
    return c.id;
  }

  beforeEach(async () => {
    data = loadWorldData(DATA);
    store = await openStore('sqlite::memory:');
    bus = new InProcessBus();
    now = 1_700_000_000_000;
    ticks.a = [];
    ticks.b = [];
    logged = [];
    realm = new Realm({
      data,
      store,
      saver: new CharacterSaver(store),
      bus,
      log: createLogger('info', {
        write: (line: string) => void logged.push(JSON.parse(line) as { level: number; msg: string }),
      }),
      tickRate: 20,
      autosaveMs: 60_000,
      clock: () => now,
      seed: 1,
    });
    for (const gw of ['a', 'b'] as const) {
      bus.subscribe(Subjects.gatewayTick(gw), (m) => {
        const records: Tagged<typeof GatewayBatch>[] = [];
        readTagged(GatewayBatch, m.data, (r) =>
          records.push(r.kind === 'Bytes' ? { ...r, frames: r.frames.slice() } : r),
        );
        ticks[gw].push({ records });
      });
    }
  });

  afterEach(async () => {
    await realm.stop();
    await bus.close();
    await store.close();
  });

  it('sends each gateway one message a tick with every one of its sessions, joined before their bytes', async () => {
    const [c1, c2, c3] = [await newCharacter('Ana'), await newCharacter('Bea'), await newCharacter('Cyd')];
    send('a', (w) => {
      Join.write(w, { session: 11, account: 1, character: c1 });
      Join.write(w, { session: 12, account: 2, character: c2 });
    });
    send('b', (w) => Join.write(w, { session: 11, account: 3, character: c3 }));
    await tickUntil(() => ticks.a.length > 0 && ticks.b.length > 0);
    // Joins wait for the store: let every one land, then look at one tick alone.
    await tickUntil(() => ticks.a.flatMap((t) => t.records).filter((r) => r.kind === 'Joined').length === 2);
    const first = ticks.a.find((t) => t.records.some((r) => r.kind === 'Joined'))!;
    expect(first.records[0]!.kind).toBe('Joined');
    const enterA = ticks.a.flatMap((t) => bytesFor(t, 11));
    expect(enterA.slice(0, 1)).toEqual([ZoneInfo.opcode]);
    expect(enterA).toContain(EnterWorld.opcode);
    expect(ticks.b.flatMap((t) => bytesFor(t, 11))).toContain(EnterWorld.opcode);

    const before = { a: ticks.a.length, b: ticks.b.length };
    await tick();
    await tick();
    // One message per gateway per tick, never one per session.
    expect(ticks.a.length - before.a).toBeLessThanOrEqual(2);
    expect(ticks.b.length - before.b).toBeLessThanOrEqual(2);
    for (const t of ticks.a) {
      const sessions = t.records.filter((r) => r.kind === 'Bytes').map((r) => r.session);
      expect(new Set(sessions).size).toBe(sessions.length);
    }
  });

  it('applies a move from one gateway and shows it to a session on the other', async () => {
    const [c1, c2] = [await newCharacter('Dax'), await newCharacter('Eve')];
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    send('b', (w) => Join.write(w, { session: 1, account: 2, character: c2 }));
    const joined = (gw: 'a' | 'b') => ticks[gw].some((t) => t.records.some((r) => r.kind === 'Joined'));
    await tickUntil(() => joined('a') && joined('b'));
    await tick();
    const spawn = data.zones[0]!.playerSpawn;
    ticks.a.length = ticks.b.length = 0;
    send('a', (w) =>
      Packet.write(w, {
        session: 1,
        receivedAt: now,
        opcode: MoveInput.opcode,
        payload: (out) =>
          MoveInput.payload.write(out, {
            seq: 1,
            x: spawn.x,
            y: spawn.y,
            facing: 0,
            moving: true,
            speed: 4,
            clientTime: 1000,
            epoch: 0,
          }),
      }),
    );
    await bus.flush();
    await tick();
    expect(ticks.a.flatMap((t) => bytesFor(t, 1))).toContain(MoveAck.opcode);
    expect(ticks.b.flatMap((t) => bytesFor(t, 1))).toContain(WorldUpdate.opcode);
  });

  it("refuses a zone packet whose payload does not decode to its gateway at once, applies nothing of that session's after it, and serves the others", async () => {
    const [c1, c2, c3] = [await newCharacter('Kit'), await newCharacter('Lou'), await newCharacter('Max')];
    send('a', (w) => {
      Join.write(w, { session: 1, account: 1, character: c1 });
      Join.write(w, { session: 2, account: 2, character: c2 });
    });
    send('b', (w) => Join.write(w, { session: 1, account: 3, character: c3 }));
    const joinedCount = () =>
      [...ticks.a, ...ticks.b].flatMap((t) => t.records).filter((r) => r.kind === 'Joined').length;
    await tickUntil(() => joinedCount() === 3);
    await tick();
    const direct: Tagged<typeof GatewayBatch>[] = [];
    bus.subscribe(Subjects.gatewayDirect('a'), (m) =>
      readTagged(GatewayBatch, m.data, (r) => direct.push(r)),
    );
    const spawn = data.zones[0]!.playerSpawn;
    const move = (seq: number) => ({
      seq,
      x: spawn.x,
      y: spawn.y,
      facing: 0,
      moving: true,
      speed: 4,
      clientTime: 1000 + seq,
      epoch: 0,
    });
    const payload = (seq: number) => MoveInput.encode(move(seq)).subarray(6);
    ticks.a.length = ticks.b.length = 0;
    send('a', (w) => {
      // Cut short, then one byte too many, then a good one: only the first is answered.
      Packet.write(w, {
        session: 1,
        receivedAt: now,
        opcode: MoveInput.opcode,
        payload: payload(1).subarray(0, 5),
      });
      Packet.write(w, {
        session: 1,
        receivedAt: now,
        opcode: MoveInput.opcode,
        payload: Uint8Array.of(...payload(2), 0),
      });
      Packet.write(w, { session: 1, receivedAt: now, opcode: MoveInput.opcode, payload: payload(3) });
      Packet.write(w, { session: 2, receivedAt: now, opcode: MoveInput.opcode, payload: payload(4) });
    });
    send('b', (w) =>
      Packet.write(w, { session: 1, receivedAt: now, opcode: MoveInput.opcode, payload: payload(5) }),
    );
    await bus.flush();
    expect(direct).toEqual([
      {
        kind: 'Refused',
        session: 1,
        opcode: MoveInput.opcode,
        code: 'ERR_SHORT',
        reason: expect.stringMatching(/./) as string,
      },
    ]);
    await tick();
    expect(ticks.a.flatMap((t) => bytesFor(t, 1))).not.toContain(MoveAck.opcode);
    expect(ticks.a.flatMap((t) => bytesFor(t, 2))).toContain(MoveAck.opcode);
    expect(ticks.b.flatMap((t) => bytesFor(t, 1))).toContain(MoveAck.opcode);
    // The same answer as the dispatch core's for those bytes.
    expect(() => MoveInput.decode(payload(1).subarray(0, 5))).toThrow(
      (direct[0] as { reason: string }).reason,
    );
  });

  it('skips motion for a session its gateway reports behind', async () => {
    const [c1, c2] = [await newCharacter('Fay'), await newCharacter('Gus')];
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    send('b', (w) => Join.write(w, { session: 1, account: 2, character: c2 }));
    const joined = (gw: 'a' | 'b') => ticks[gw].some((t) => t.records.some((r) => r.kind === 'Joined'));
    await tickUntil(() => joined('a') && joined('b'));
    await tick();
    send('b', (w) => Behind.write(w, { session: 1, behind: true }));
    const spawn = data.zones[0]!.playerSpawn;
    send('a', (w) =>
      Packet.write(w, {
        session: 1,
        receivedAt: now,
        opcode: MoveInput.opcode,
        payload: (out) =>
          MoveInput.payload.write(out, {
            seq: 1,
            x: spawn.x,
            y: spawn.y,
            facing: 0,
            moving: true,
            speed: 4,
            clientTime: 1000,
            epoch: 0,
          }),
      }),
    );
    await bus.flush();
    ticks.b.length = 0;
    await tick();
    // Behind: the walker's motion is not in b's bytes this tick (nothing else changed).
    expect(ticks.b.flatMap((t) => bytesFor(t, 1))).not.toContain(WorldUpdate.opcode);
    send('b', (w) => Behind.write(w, { session: 1, behind: false }));
    await bus.flush();
    await tick();
    // Caught up: a resync of the view's motion.
    expect(ticks.b.flatMap((t) => bytesFor(t, 1))).toContain(WorldUpdate.opcode);
  });

  it('answers who on its own subject with the players of its zones, whichever gateway holds them', async () => {
    const [c1, c2] = [await newCharacter('Hal'), await newCharacter('Ivy')];
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    send('b', (w) => Join.write(w, { session: 5, account: 2, character: c2 }));
    const joined = (gw: 'a' | 'b') => ticks[gw].some((t) => t.records.some((r) => r.kind === 'Joined'));
    await tickUntil(() => joined('a') && joined('b'));
    const who = WhoList.decode(await bus.request(Subjects.hostWho('zone-host'), new Uint8Array(0)));
    expect(who.total).toBe(2);
    expect(who.players.map((p) => p.name).sort()).toEqual(['Hal', 'Ivy']);
  });

  it('numbers its tick messages to each gateway 1, 2, 3, ...', async () => {
    const seqs: number[] = [];
    bus.subscribe(Subjects.gatewayTick('a'), (m) =>
      GatewayBatch.read(m.data, {
        begin: ({ seq }) => seqs.push(seq),
        Joined() {},
        Bytes() {},
        Left() {},
        Moved() {},
        Refused() {},
        ResendInputs() {},
        TicksGone() {},
      }),
    );
    // A quiet tick sends nothing: each join here makes one that does.
    for (const [i, name] of ['Jon', 'Joe', 'Jim'].entries()) {
      const c = await newCharacter(name);
      send('a', (w) => Join.write(w, { session: i + 1, account: i + 1, character: c }));
      await tickUntil(() => seqs.length >= i + 1);
    }
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('sends a session its whole state anew when its gateway lost a tick message', async () => {
    const [c1, c2] = [await newCharacter('Kim'), await newCharacter('Lou')];
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    send('b', (w) => Join.write(w, { session: 1, account: 2, character: c2 }));
    const joined = (gw: 'a' | 'b') =>
      ticks[gw].filter((t) => t.records.some((r) => r.kind === 'Joined')).length;
    await tickUntil(() => joined('a') === 1 && joined('b') === 1);
    await tick();
    ticks.a.length = ticks.b.length = 0;
    send('a', (w) => Resync.write(w, { session: 1 }));
    await bus.flush();
    await tick();
    // JOINED again, then what entering tells: where it is, and everything it sees as spawns.
    expect(joined('a')).toBe(1);
    const again = ticks.a.flatMap((t) => bytesFor(t, 1));
    expect(again.slice(0, 1)).toEqual([ZoneInfo.opcode]);
    expect(again).toContain(EnterWorld.opcode);
    expect(again).toContain(WorldUpdate.opcode);
    // The other side sees nothing of it: no spawn, no despawn of the resynced player.
    expect(joined('b')).toBe(0);
    expect(ticks.b.flatMap((t) => bytesFor(t, 1))).not.toContain(EnterWorld.opcode);
  });

  const joinedIn = (gw: 'a' | 'b', session: number) =>
    ticks[gw].flatMap((t) => t.records).find((r) => r.kind === 'Joined' && r.session === session) as
      { entity: number } | undefined;

  it("lets a gone gateway's characters go as after dropped connections, and a restarted one's session ids start clean", async () => {
    const [c1, c2] = [await newCharacter('Hal'), await newCharacter('Ivy')];
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    send('b', (w) => Join.write(w, { session: 1, account: 2, character: c2 }));
    await tickUntil(() => joinedIn('a', 1) !== undefined && joinedIn('b', 1) !== undefined);
    expect(realm.playerCount).toBe(2);
    realm.gatewayGone('a');
    // No linger configured here: the character leaves at the next tick, as on a DETACH.
    await tickUntil(() => realm.playerCount === 1);
    ticks.a.length = 0;
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    await tickUntil(() => joinedIn('a', 1) !== undefined);
    expect(realm.playerCount).toBe(2);
  });

  it('logs a gateway that stopped as planned at info, and one that was lost as a warning', async () => {
    const [c1, c2] = [await newCharacter('Kit'), await newCharacter('Lee')];
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    send('b', (w) => Join.write(w, { session: 1, account: 2, character: c2 }));
    await tickUntil(() => joinedIn('a', 1) !== undefined && joinedIn('b', 1) !== undefined);
    const about = (gone: string) => logged.filter((l) => l.msg.includes(gone));
    realm.gatewayGone('a', 'stopped');
    expect(about('gateway')).toEqual([
      expect.objectContaining({ level: 30, msg: 'gateway stopped as planned: its characters linger' }),
    ]);
    logged.length = 0;
    realm.gatewayGone('b', 'lost');
    expect(about('gateway')).toEqual([
      expect.objectContaining({ level: 40, msg: 'gateway gone: its characters linger' }),
    ]);
    // Either way the characters are let go as after dropped connections.
    await tickUntil(() => realm.playerCount === 0);
  });

  it('takes a character in the world for another gateway over in place when its player enters through this one', async () => {
    const c1 = await newCharacter('Jon');
    send('a', (w) => Join.write(w, { session: 1, account: 1, character: c1 }));
    await tickUntil(() => joinedIn('a', 1) !== undefined);
    const entity = joinedIn('a', 1)!.entity;
    send('b', (w) => Join.write(w, { session: 7, account: 1, character: c1 }));
    await tickUntil(() => joinedIn('b', 7) !== undefined);
    expect(joinedIn('b', 7)!.entity).toBe(entity);
    expect(realm.playerCount).toBe(1);
    const left = ticks.a.flatMap((t) => t.records).filter((r) => r.kind === 'Left');
    // Taken over, not left: gateway a tells that connection so (Bye takenOver).
    expect(left).toEqual([{ kind: 'Left', session: 1, reason: LeftReason.TakenOver }]);
    expect(ticks.b.flatMap((t) => bytesFor(t, 7))).toContain(EnterWorld.opcode);
  });
});
