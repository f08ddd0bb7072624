/**
 * A zone host standing by for zones it does not hold (a standby for every zone, or a host
 * whose zones are claimed one by one), over an in-process bus: a zone runs here the moment
 * its claim is held, each zone on its own, and until then its traffic is left to the host
 * that runs it. The tick is run by hand.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { ChatSend, EnterWorld, ErrorPacket, WhoList } from '../../shared/protocol/index.js';
import { InProcessBus, Subjects, zoneId } from '../../server/cluster/index.js';
import { readTagged, type Tagged } from '../../server/cluster/inner/define.js';
import { GatewayBatch, Join, Packet, ZoneInputs } from '../../server/cluster/wire.js';
import { silentLogger } from '../../server/log.js';
import { CharacterSaver, openStore, type Store } from '../../server/store/index.js';
import { loadWorldData, type WorldData } from '../../server/world/index.js';
import { Realm } from '../../server/zone/realm.js';
import { account, character } from '../store/builders.js';

const DATA = path.resolve(import.meta.dirname, '../../data');

describe('a zone host standing by for its zones', () => {
  let data: WorldData;
  let store: Store;
  let bus: InProcessBus;
  let realm: Realm;
  let now: number;
  /** The zones whose claim this host holds. */
  let held: Set<string>;
  let runningNow: string[];
  let joined: Tagged<typeof GatewayBatch>[];
  let first: string;
  let second: string;

  async function tick(): Promise<void> {
    now += 50;
    realm.runTick();
    await bus.flush();
  }

  /** Ticks a while (joins wait for the store). */
  async function ticks(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await tick();
    }
  }

  async function newCharacter(name: string, zone: string): Promise<{ accountId: number; id: number }> {
    const acct = await store.createAccount(account());
    const z = data.zones.find((d) => d.name === zone)!;
    const c = await store.createCharacter(
      character(acct.id, { name, zone, x: z.playerSpawn.x, y: z.playerSpawn.y }),
    );
    return { accountId: acct.id, id: c.id };
  }

  function join(zone: string, session: number, c: { accountId: number; id: number }): void {
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway: 'a', epoch: 0, to: 0, seq: 0 });
    Join.write(w, { session: session, account: c.accountId, character: c.id });
    bus.publish(Subjects.zoneInput(zoneId(zone)), w.finish());
  }

  async function who(): Promise<string[]> {
    const list = WhoList.decode(await bus.request(Subjects.hostWho('zh-s'), new Uint8Array(0)));
    return list.players.map((p) => `${p.zone}:${p.name}`).sort();
  }

  beforeEach(async () => {
    data = loadWorldData(DATA);
    [first, second] = data.zones.map((z) => z.name) as [string, string];
    store = await openStore('sqlite::memory:');
    bus = new InProcessBus();
    now = 1_700_000_000_000;
    held = new Set();
    runningNow = [];
    joined = [];
    realm = new Realm({
      data,
      store,
      saver: new CharacterSaver(store),
      bus,
      hostId: 'zh-s',
      log: silentLogger,
      tickRate: 20,
      autosaveMs: 60_000,
      clock: () => now,
      seed: 1,
      holds: (zone) => held.has(zone),
      onRunning: (zone) => runningNow.push(zone),
    });
    bus.subscribe(Subjects.gatewayTick('a'), (m) =>
      readTagged(GatewayBatch, m.data, (r) => {
        if (r.kind === 'Joined') joined.push(r);
      }),
    );
  });

  afterEach(async () => {
    await realm.stop();
    await bus.close();
    await store.close();
  });

  it('runs no zone it does not hold, and answers who with nobody', async () => {
    await ticks(3);
    expect(data.zones.map((z) => realm.running(z.name))).toEqual([false, false]);
    expect(await who()).toEqual([]);
  });

  it('leaves the joins of a zone it does not hold to the host that runs it', async () => {
    join(first, 1, await newCharacter('Ana', first));
    await ticks(10);
    expect(joined).toEqual([]);
    // Claimed later: the join that was another host's is not entered here then either.
    held.add(first);
    realm.claimed(first);
    await ticks(10);
    expect(joined).toEqual([]);
    expect(realm.playerCount).toBe(0);
  });

  it('runs the second zone the moment it is claimed while the first is still held elsewhere', async () => {
    held.add(second);
    realm.claimed(second);
    expect(runningNow).toEqual([second]);
    expect(realm.running(second)).toBe(true);
    expect(realm.running(first)).toBe(false);
    join(second, 2, await newCharacter('Bea', second));
    await ticks(10);
    expect(joined.map((r) => r.kind === 'Joined' && r.session)).toEqual([2]);
    expect(await who()).toEqual([`${second}:Bea`]);

    // Then the first, on its own.
    held.add(first);
    realm.claimed(first);
    expect(runningNow).toEqual([second, first]);
    join(first, 3, await newCharacter('Cyd', first));
    await ticks(10);
    expect(await who()).toEqual([`${first}:Cyd`, `${second}:Bea`].sort());
  });

  it('takes the first message of a zone claimed a moment ago, before its next tick', async () => {
    const cid = await newCharacter('Dax', first);
    held.add(first);
    // No claimed() call and no tick yet: the message itself finds the claim held.
    join(first, 4, cid);
    await bus.flush();
    expect(realm.running(first)).toBe(true);
    await ticks(10);
    expect(joined.map((r) => r.kind === 'Joined' && r.session)).toEqual([4]);
  });

  it('stops a zone whose claim lapses and runs it on where it stood once held again', async () => {
    held.add(first);
    realm.claimed(first);
    join(first, 5, await newCharacter('Eve', first));
    await ticks(10);
    expect(realm.playerCount).toBe(1);
    held.delete(first);
    await tick();
    expect(realm.running(first)).toBe(false);
    held.add(first);
    await tick();
    // Unbroken: the same zone, its player still in it; not a take-over.
    expect(realm.playerCount).toBe(1);
    expect(runningNow).toEqual([first]);
  });

  it('refuses a line said in a stopped zone to its sayer, and sends its players their state once it runs again', async () => {
    const frames: number[] = [];
    bus.subscribe(Subjects.gatewayTick('a'), (m) =>
      readTagged(GatewayBatch, m.data, (r) => {
        if (r.kind !== 'Bytes' || r.session !== 6) return;
        for (let at = 0; at + 6 <= r.frames.length;) {
          frames.push(r.frames[at + 2]! | (r.frames[at + 3]! << 8));
          at += r.frames[at]! | (r.frames[at + 1]! << 8);
        }
      }),
    );
    held.add(first);
    realm.claimed(first);
    join(first, 6, await newCharacter('Fay', first));
    await ticks(10);
    held.delete(first);
    await tick();
    frames.length = 0;
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway: 'a', epoch: 0, to: 0, seq: 0 });
    Packet.write(w, {
      session: 6,
      receivedAt: now,
      opcode: ChatSend.opcode,
      payload: (out) => ChatSend.payload.write(out, { channel: 'say', text: 'anyone?' }),
    });
    bus.publish(Subjects.zoneInput(zoneId(first)), w.finish());
    await bus.flush();
    await tick();
    expect(frames).toEqual([ErrorPacket.opcode]);
    held.add(first);
    await tick();
    await tick();
    expect(frames).toContain(EnterWorld.opcode);
  });
});
