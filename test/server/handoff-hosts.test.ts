/**
 * Hand-off between two zone hosts on the realm level: two Realms on one in-process bus, one
 * running Greenvale and the other Ashmoor, spoken to as a gateway would (no sockets, ticks
 * run by hand). A player walking east is handed from one host to the other: the second host
 * tells the gateway MOVED, sends the session ZoneInfo and ZoneChanged, and acks its moves.
 * A hand-off that is not taken (nobody runs Ashmoor, the request came too late) gives the
 * player back to Greenvale; one whose answer was lost is asked again and taken once. A walker
 * whose character a newer session took while its request was out leaves once given back.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { blocked } from '../../shared/game/movement.js';
import { Reader } from '../../shared/codec/reader.js';
import {
  ChatMessage,
  ChatSend,
  MoveAck,
  MoveInput,
  PositionCorrection,
  ZoneChanged,
} from '../../shared/protocol/index.js';
import {
  BusError,
  BusErrorCode,
  InProcessBus,
  Subjects,
  zoneId,
  type Bus,
  type Subject,
} from '../../server/cluster/index.js';
import { readTagged, type Tagged } from '../../server/cluster/inner/define.js';
import {
  GatewayBatch,
  HandoffAnswer,
  HandoffRequest,
  MovedOn,
  Join,
  Packet,
  ZoneInputs,
} from '../../server/cluster/wire.js';
import { silentLogger } from '../../server/log.js';
import { CharacterSaver, openStore, type Store } from '../../server/store/index.js';
import { loadWorldData, type WorldData } from '../../server/world/index.js';
import { Realm } from '../../server/zone/realm.js';
import { account, character } from '../store/builders.js';

const DATA = path.resolve(import.meta.dirname, '../../data');

/** The whole frames in `bytes`: each one's opcode and payload. */
function frameList(bytes: Uint8Array): { opcode: number; payload: Uint8Array }[] {
  const out: { opcode: number; payload: Uint8Array }[] = [];
  for (let at = 0; at + 6 <= bytes.length;) {
    const size = bytes[at]! | (bytes[at + 1]! << 8);
    out.push({ opcode: bytes[at + 2]! | (bytes[at + 3]! << 8), payload: bytes.subarray(at + 6, at + size) });
    at += size;
  }
  return out;
}

function opcodes(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at + 6 <= bytes.length;) {
    out.push(bytes[at + 2]! | (bytes[at + 3]! << 8));
    at += bytes[at]! | (bytes[at + 1]! << 8);
  }
  return out;
}

describe('a hand-off between two zone hosts', () => {
  let data: WorldData;
  let store: Store;
  let bus: InProcessBus;
  let west: Realm;
  let east: Realm;
  let now: number;
  /** Server ms at the crosser's client clock's 0. */
  let clientEpoch = 0;
  const batches: { host: string; records: Tagged<typeof GatewayBatch>[] }[] = [];

  beforeEach(async () => {
    data = loadWorldData(DATA);
    store = await openStore('sqlite::memory:');
    bus = new InProcessBus();
    now = 1_700_000_000_000;
    batches.length = 0;
    west = realm('zh-w', 'Greenvale');
    east = realm('zh-e', 'Ashmoor');
    bus.subscribe(Subjects.gatewayTick('a'), (m) => {
      const records: Tagged<typeof GatewayBatch>[] = [];
      readTagged(GatewayBatch, m.data, (r) =>
        records.push(r.kind === 'Bytes' ? { ...r, frames: r.frames.slice() } : r),
      );
      const host = new TextDecoder().decode(m.data.subarray(1, 1 + m.data[0]!));
      batches.push({ host, records });
    });
  });

  function realm(hostId: string, zone: string, options: { bus?: Bus; skewMs?: number } = {}): Realm {
    return new Realm({
      data,
      zones: [zone],
      store,
      saver: new CharacterSaver(store),
      bus: options.bus ?? bus,
      hostId,
      log: silentLogger,
      tickRate: 20,
      autosaveMs: 60_000,
      clock: () => now + (options.skewMs ?? 0),
      seed: 1,
    });
  }

  afterEach(async () => {
    await west.stop();
    await east.stop();
    await bus.close();
    await store.close();
  });

  async function tick(): Promise<void> {
    now += 50;
    west.runTick();
    east.runTick();
    await bus.flush();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }

  function send(zone: string, write: (w: Writer) => void): void {
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway: 'a', epoch: 0, to: 0, seq: 0 });
    write(w);
    bus.publish(Subjects.zoneInput(zoneId(zone)), w.finish());
  }

  /** The crosser's character, in the world on Greenvale near the border, as session 1 of gateway a. */
  async function enterCrosser(): Promise<{ id: number; y: number }> {
    let y = 300;
    while (blocked({ x: 1990, y }, [...data.zones[0]!.obstacles, ...data.zones[1]!.obstacles], 40)) y += 10;
    const acct = await store.createAccount(account());
    const c = await store.createCharacter(
      character(acct.id, { name: 'Crosser', zone: 'Greenvale', x: 1980, y }),
    );
    send('Greenvale', (w) => Join.write(w, { session: 1, account: acct.id, character: c.id }));
    for (let i = 0; i < 40 && !batches.some((b) => b.records.some((r) => r.kind === 'Joined')); i++) {
      await tick();
    }
    // Both hosts hear each other's strips: the border opens.
    for (let i = 0; i < 4; i++) await tick();
    return { id: c.id, y };
  }

  /**
   * Walks the crosser east from x 1980 (6 units a tick, as its gateway would send the moves
   * to the zone it last heard of) for `steps` steps, or until `stop` says so; the zone it is in.
   */
  async function walkEast(y: number, steps: number, stop = () => false): Promise<string> {
    let zone = 'Greenvale';
    let x = 1980;
    clientEpoch = now - 50;
    for (let seq = 1; seq <= steps && !stop(); seq++) {
      x += 6;
      const at = x;
      send(zone, (w) =>
        Packet.write(w, {
          session: 1,
          receivedAt: now,
          opcode: MoveInput.opcode,
          payload: (out) =>
            MoveInput.payload.write(out, {
              seq,
              x: at,
              y,
              facing: 0,
              moving: true,
              speed: 120,
              clientTime: seq * 50,
              epoch: 0,
            }),
        }),
      );
      await tick();
      const moved = batches.flatMap((b) => b.records).find((r) => r.kind === 'Moved');
      if (moved && moved.kind === 'Moved') zone = moved.zone;
    }
    return zone;
  }

  const frames = (host: string) =>
    batches
      .filter((b) => b.host === host)
      .flatMap((b) => b.records.flatMap((r) => (r.kind === 'Bytes' ? opcodes(r.frames) : [])));
  const records = (kind: Tagged<typeof GatewayBatch>['kind']) =>
    batches.flatMap((b) => b.records).filter((r) => r.kind === kind);

  it('hands the walker over: MOVED from the new host, ZoneChanged to the client, its moves acked there, none refused', async () => {
    const c = await enterCrosser();
    const zone = await walkEast(c.y, 20);
    expect(zone).toBe('Ashmoor');
    const movedBatch = batches.find((b) => b.records.some((r) => r.kind === 'Moved'))!;
    expect(movedBatch.host).toBe('zh-e');
    expect(frames('zh-e')).toContain(ZoneChanged.opcode);
    expect(frames('zh-e')).toContain(MoveAck.opcode);
    expect([...frames('zh-w'), ...frames('zh-e')]).not.toContain(PositionCorrection.opcode);
    expect(batches.flatMap((b) => b.records).some((r) => r.kind === 'Left')).toBe(false);
    // Saved with its new zone at once (not at the next autosave, a minute away): a login or a
    // resume on another gateway reads the row's zone to find the host that holds it.
    for (let i = 0; i < 10 && (await store.getCharacter(c.id))?.zone !== 'Ashmoor'; i++) await tick();
    expect((await store.getCharacter(c.id))?.zone).toBe('Ashmoor');
  });

  /** The crosser walks east until Greenvale corrects it; it must be Greenvale's again, on its ground. */
  async function expectGivenBack(c: { id: number; y: number }): Promise<void> {
    const corrected = () => frames('zh-w').includes(PositionCorrection.opcode);
    expect(await walkEast(c.y, 40, corrected)).toBe('Greenvale');
    for (let i = 0; i < 4; i++) await tick();
    expect(corrected()).toBe(true);
    expect(records('Moved')).toEqual([]);
    expect(records('Left')).toEqual([]);
    const greenvale = west.zones.get('Greenvale')!.world;
    const p = [...greenvale.players.values()].find((q) => q.characterId === c.id);
    expect(p?.x).toBeLessThanOrEqual(2000 - 8);
    expect(east.playerCount).toBe(0);
    // It walks on in Greenvale: its next move (from where it was put, in the move epoch the
    // correction started) is acked there.
    const acks = frames('zh-w').filter((o) => o === MoveAck.opcode).length;
    send('Greenvale', (w) =>
      Packet.write(w, {
        session: 1,
        receivedAt: now,
        opcode: MoveInput.opcode,
        payload: (out) =>
          MoveInput.payload.write(out, {
            seq: 1000,
            x: p!.x - 6,
            y: p!.y,
            facing: Math.PI,
            moving: false,
            speed: 120,
            // The client's clock goes on from the walk's: its input is due as it arrives.
            clientTime: now - clientEpoch,
            epoch: p!.moveEpoch,
          }),
      }),
    );
    // Delivered after this tick ran: applied and acked at the next.
    await tick();
    await tick();
    expect(frames('zh-w').filter((o) => o === MoveAck.opcode).length).toBe(acks + 1);
  }

  it('gives the walker back to its zone, on its own ground, when nobody runs the zone beyond', async () => {
    const c = await enterCrosser();
    // Ashmoor's host is gone, though Greenvale's border to it is still open (its last strip
    // is recent): the hand-off finds nobody to take it.
    await east.stop();
    await expectGivenBack(c);
  });

  it('gives the walker back when its hand-off reaches the next host too late', async () => {
    await east.stop();
    // Ashmoor's host runs a second ahead: every request is older than it accepts.
    east = realm('zh-e', 'Ashmoor', { skewMs: 1000 });
    const c = await enterCrosser();
    await expectGivenBack(c);
  });

  it('asks again when the answer is lost, and the walker is taken once', async () => {
    await west.stop();
    // West's bus loses the first answer to a hand-off (taken on the other side).
    let lose = 1;
    const lossy: Bus = {
      publish: (subject, data) => bus.publish(subject, data),
      subscribe: (subject, handler, options) => bus.subscribe(subject, handler, options),
      request: async (subject, data, options) => {
        const answer = await bus.request(subject, data, options);
        if (subject.endsWith('.handoff') && lose-- > 0)
          throw new BusError(BusErrorCode.Timeout, 'answer lost');
        return answer;
      },
      flush: () => bus.flush(),
      stats: () => bus.stats(),
      drain: () => bus.drain(),
      close: () => bus.close(),
    };
    west = realm('zh-w', 'Greenvale', { bus: lossy });
    const c = await enterCrosser();
    expect(await walkEast(c.y, 20)).toBe('Ashmoor');
    expect(lose).toBe(-1);
    expect(records('Moved')).toHaveLength(1);
    expect(records('Left')).toEqual([]);
    expect([west.playerCount, east.playerCount]).toEqual([0, 1]);
    expect(frames('zh-w')).not.toContain(PositionCorrection.opcode);
  });

  it('sends a walker away once given back if a newer session took its character while its hand-off was out', async () => {
    await west.stop();
    // West's hand-off requests wait until released, then find nobody.
    let asked = false;
    let release = (): void => undefined;
    const gated: Bus = {
      publish: (subject, data) => bus.publish(subject, data),
      subscribe: (subject, handler, options) => bus.subscribe(subject, handler, options),
      request: async (subject, data, options) => {
        if (!subject.endsWith('.handoff')) return bus.request(subject, data, options);
        asked = true;
        await new Promise<void>((resolve) => (release = resolve));
        throw new BusError(BusErrorCode.NoResponders, 'nobody runs the zone');
      },
      flush: () => bus.flush(),
      stats: () => bus.stats(),
      drain: () => bus.drain(),
      close: () => bus.close(),
    };
    west = realm('zh-w', 'Greenvale', { bus: gated });
    const toB: Tagged<typeof GatewayBatch>[] = [];
    bus.subscribe(Subjects.gatewayTick('b'), (m) => readTagged(GatewayBatch, m.data, (r) => toB.push(r)));
    const c = await enterCrosser();
    expect(await walkEast(c.y, 40, () => asked)).toBe('Greenvale');
    // While the request is out, the account enters the same character through gateway b.
    const { accountId } = (await store.getCharacter(c.id))!;
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway: 'b', epoch: 0, to: 0, seq: 0 });
    Join.write(w, { session: 2, account: accountId, character: c.id });
    bus.publish(Subjects.zoneInput(zoneId('Greenvale')), w.finish());
    await tick();
    release();
    for (let i = 0; i < 40 && !toB.some((r) => r.kind === 'Joined'); i++) await tick();
    // The walker came back only to leave; b's session has the character, from its save.
    expect(toB.filter((r) => r.kind === 'Joined')).toMatchObject([{ session: 2 }]);
    expect(records('Left')).toMatchObject([{ session: 1 }]);
    expect(west.playerCount).toBe(1);
  });

  it('sends the moves made while its hand-off was out on to the host that took it, in order: the walker stops there where its client stopped', async () => {
    await west.stop();
    // West's hand-off requests wait until released (a bus outage), then are answered.
    let asked = false;
    let release = (): void => undefined;
    const gated: Bus = {
      publish: (subject, data) => bus.publish(subject, data),
      subscribe: (subject, handler, options) => bus.subscribe(subject, handler, options),
      request: async (subject, data, options) => {
        if (!subject.endsWith('.handoff')) return bus.request(subject, data, options);
        if (!asked) {
          asked = true;
          await new Promise<void>((resolve) => (release = resolve));
        }
        return bus.request(subject, data, options);
      },
      flush: () => bus.flush(),
      stats: () => bus.stats(),
      drain: () => bus.drain(),
      close: () => bus.close(),
    };
    west = realm('zh-w', 'Greenvale', { bus: gated });
    const c = await enterCrosser();
    clientEpoch = now - 50;
    let x = 1980;
    let seq = 0;
    const move = (moving: boolean) => {
      const at = (x += moving ? 6 : 0);
      const n = ++seq;
      // Its gateway has not heard MOVED: everything goes to Greenvale.
      send('Greenvale', (w) =>
        Packet.write(w, {
          session: 1,
          receivedAt: now,
          opcode: MoveInput.opcode,
          payload: (out) =>
            MoveInput.payload.write(out, {
              seq: n,
              x: at,
              y: c.y,
              facing: 0,
              moving,
              speed: 120,
              clientTime: n * 50,
              epoch: 0,
            }),
        }),
      );
    };
    for (let i = 0; i < 40 && !asked; i++) {
      move(true);
      await tick();
    }
    expect(asked).toBe(true);
    // Five more steps and a stop while the request is out.
    for (let i = 0; i < 5; i++) {
      move(true);
      await tick();
    }
    move(false);
    await tick();
    release();
    for (let i = 0; i < 20 && records('Moved').length === 0; i++) await tick();
    for (let i = 0; i < 10; i++) await tick();
    expect(records('Moved')).toHaveLength(1);
    const p = [...east.zones.get('Ashmoor')!.world.players.values()].find((q) => q.characterId === c.id);
    expect(p?.moving).toBe(false);
    expect(p?.x).toBeCloseTo(x, 0);
    expect(frames('zh-e')).not.toContain(PositionCorrection.opcode);
  });

  it("applies a handed walker's late packets, forwarded by the old host, before those its gateway then sends straight to the new one", async () => {
    await west.stop();
    // West's forwards to Ashmoor wait while gated (its host busy, a slow link).
    let gated = false;
    const late: [Subject, Uint8Array][] = [];
    const slow: Bus = {
      publish: (subject, data) => {
        if (gated && subject === Subjects.zoneInput(zoneId('Ashmoor'))) late.push([subject, data.slice()]);
        else bus.publish(subject, data);
      },
      subscribe: (subject, handler, options) => bus.subscribe(subject, handler, options),
      request: (subject, data, options) => bus.request(subject, data, options),
      flush: () => bus.flush(),
      stats: () => bus.stats(),
      drain: () => bus.drain(),
      close: () => bus.close(),
    };
    west = realm('zh-w', 'Greenvale', { bus: slow });
    const c = await enterCrosser();
    // Until its gateway hears MOVED: what it sends from then on goes straight to Ashmoor.
    expect(await walkEast(c.y, 20, () => records('Moved').length > 0)).toBe('Ashmoor');
    const say = (text: string) => (w: Writer) =>
      Packet.write(w, {
        session: 1,
        receivedAt: now,
        opcode: ChatSend.opcode,
        payload: (out) => ChatSend.payload.write(out, { channel: 'say', text }),
      });
    gated = true;
    // A line the gateway sent to Greenvale just before it heard MOVED (forwarded, late), then
    // its MOVEDON there, then a line it sends straight to Ashmoor, in its own stream.
    send('Greenvale', say('first'));
    send('Greenvale', (w) => MovedOn.write(w, { session: 1 }));
    const w = new Writer(64);
    ZoneInputs.begin(w, { gateway: 'a', epoch: 7, to: 0, seq: 1 });
    say('second')(w);
    bus.publish(Subjects.zoneInput(zoneId('Ashmoor')), w.finish());
    for (let i = 0; i < 4; i++) await tick();
    gated = false;
    for (const [subject, data] of late.splice(0)) bus.publish(subject, data);
    for (let i = 0; i < 4; i++) await tick();
    // The sayer hears its own lines, as everyone near does: in the order it said them.
    const heard = batches
      .filter((b) => b.host === 'zh-e')
      .flatMap((b) => b.records.flatMap((r) => (r.kind === 'Bytes' ? frameList(r.frames) : [])))
      .filter((f) => f.opcode === ChatMessage.opcode)
      .map((f) => ChatMessage.payload.read(new Reader().reset(f.payload)).text);
    expect(heard).toEqual(['first', 'second']);
  });

  it('refuses a hand-off request it cannot read, and goes on', async () => {
    const subject = Subjects.zoneHandoff(zoneId('Ashmoor'));
    for (const bytes of [new Uint8Array(0), Uint8Array.of(1, 97, 6), Uint8Array.of(200, 1, 2, 3, 4)]) {
      expect(HandoffAnswer.decode(await bus.request(subject, bytes))).toEqual({ answer: 'refused' });
    }
    // A request without its HANDOFF record is refused too.
    const w = new Writer(16);
    HandoffRequest.begin(w, { gateway: 'a', epoch: 0 });
    expect(HandoffAnswer.decode(await bus.request(subject, w.finish()))).toEqual({ answer: 'refused' });
    // And a real crossing still works after them.
    const c = await enterCrosser();
    expect(await walkEast(c.y, 20)).toBe('Ashmoor');
  });
});
