/**
 * The gateway role without sockets or a zone host: a session enters, the "host" answers with
 * batches published by hand, and what the gateway sends back on the zone's inputs is read.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Frame, HEADER_SIZE } from '../../shared/codec/frame.js';
import { Writer } from '../../shared/codec/writer.js';
import {
  ChatMessage,
  ChatSend,
  EnterWorldRequest,
  MoveAck,
  MoveInput,
  Whisper,
  Who,
  WhoList,
} from '../../shared/protocol/index.js';
import { ErrorPacket } from '../../shared/protocol/session.js';
import { InProcessBus, Subjects } from '../../server/cluster/index.js';
import { readTagged, type Tagged } from '../../server/cluster/inner/define.js';
import {
  Bytes,
  GatewayBatch,
  Joined,
  Left,
  LeftReason,
  Moved,
  Refused,
  ResendInputs,
  TicksGone,
  ZoneInputs,
} from '../../server/cluster/wire.js';
import { loadConfig } from '../../server/config.js';
import { Gateway, type GatewayLookups } from '../../server/gateway/gateway.js';
import { silentLogger } from '../../server/log.js';
import { Session } from '../../server/session/session.js';
import type { CharacterRecord } from '../../server/store/index.js';
import { FlushScheduler } from '../../server/transport/flush.js';
import { MemoryConnection } from '../../server/transport/memory.js';
import { until } from '../cluster/until.js';

const CHARACTER = { id: 7, accountId: 1, name: 'Ana', zone: 'Greenvale' } as CharacterRecord;

/** A client's frame as the dispatch core hands it to the router: header read, payload not. */
function frameOf(bytes: Uint8Array): Frame {
  return new Frame(bytes[2]! | (bytes[3]! << 8), bytes, HEADER_SIZE, bytes.length);
}

describe('the gateway', () => {
  let bus: InProcessBus;
  let gateway: Gateway;
  let session: Session;
  let conn: MemoryConnection;
  let inputs: Tagged<typeof ZoneInputs>[];
  let scheduler: FlushScheduler;
  /** The gateway's clock (ms). */
  let now: number;

  /** A batch from zone host `host` with tick seq `seq` (0: on .direct), in the host's `epoch`. */
  function batch(host: string, seq: number, write: (w: Writer) => void, epoch = 1): void {
    const w = new Writer(64);
    // Named to this gateway, as a host names it once it has heard from it.
    GatewayBatch.begin(w, { host, epoch, to: gateway.epoch, seq });
    write(w);
    bus.publish(seq === 0 ? Subjects.gatewayDirect('g') : Subjects.gatewayTick('g'), w.finish());
  }

  /** Until what was published has been handled, and the gateway's inputs of that turn sent and read. */
  async function settle(): Promise<void> {
    await bus.flush();
    await new Promise((resolve) => setImmediate(resolve));
    await bus.flush();
  }

  beforeEach(async () => {
    // Keeping what it sends, as over NATS: these tests ask for lost messages again.
    bus = new InProcessBus({ lossless: false });
    scheduler = new FlushScheduler(() => {});
    now = 1_700_000_000_000;
    gateway = new Gateway({
      id: 'g',
      clock: () => now,
      bus,
      store: { getCharacter: (id) => Promise.resolve(id === CHARACTER.id ? CHARACTER : undefined) },
      zones: ['Greenvale'],
      log: silentLogger,
      flush: () => scheduler.flushAll(),
    });
    conn = new MemoryConnection({ limits: { softLimit: 1024, hardLimit: 1 << 20 }, scheduler });
    session = new Session(conn, loadConfig({}, []).rates, silentLogger);
    session.accountId = 1;
    session.state = 'authenticated';
    inputs = [];
    bus.subscribe(Subjects.zoneInput('greenvale'), (m) =>
      readTagged(ZoneInputs, m.data, (r) => inputs.push(r)),
    );
    gateway.world(session, EnterWorldRequest, { characterId: 7 });
    await settle();
    await settle();
    expect(inputs).toEqual([{ kind: 'Join', session: session.id, account: 1, character: 7 }]);
    inputs.length = 0;
  });

  afterEach(async () => {
    gateway.close();
    await bus.close();
  });

  it('puts the session in the world on JOINED, appends its bytes, and takes it out on LEFT', async () => {
    const frame = MoveAck.encode({ seq: 3 });
    batch('zh', 1, (w) => {
      Joined.write(w, { session: session.id, entity: 40, character: 7 });
      Bytes.write(w, { session: session.id, frames: frame });
    });
    await settle();
    expect(session).toMatchObject({ state: 'inWorld', entityId: 40, characterId: 7 });
    expect(conn.writes).toEqual([frame]);
    batch('zh', 2, (w) => Left.write(w, { session: session.id, reason: LeftReason.Left }));
    await settle();
    expect(session).toMatchObject({ state: 'authenticated', entityId: undefined });
  });

  it('asks the host again for a missing tick message and hands on what followed it, in order, once it comes', async () => {
    const frame = (seq: number) => MoveAck.encode({ seq });
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
    await settle();
    // 2 is lost on the way; 3 comes and waits for it.
    batch('zh', 3, (w) => Bytes.write(w, { session: session.id, frames: frame(3) }));
    await settle();
    expect(inputs).toEqual([{ kind: 'ResendTicks', session: 0, from: 2 }]);
    expect(conn.writes).toEqual([]);
    // Sent again: 2, then 3 once more.
    batch('zh', 2, (w) => Bytes.write(w, { session: session.id, frames: frame(2) }));
    batch('zh', 3, (w) => Bytes.write(w, { session: session.id, frames: frame(3) }));
    await settle();
    expect(Buffer.concat(conn.writes)).toEqual(Buffer.concat([frame(2), frame(3)]));
    expect(gateway.lostTicks).toBe(0);
    // A marker (no records) saying 4 was sent: it is asked for too.
    inputs.length = 0;
    batch('zh', 4, () => {});
    await settle();
    expect(inputs).toEqual([{ kind: 'ResendTicks', session: 0, from: 4 }]);
  });

  it('sends the sessions of a host their state when the host says a missing tick message is no longer kept', async () => {
    const ack = (seq: number) => MoveAck.encode({ seq });
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
    batch('zh', 2, (w) => Bytes.write(w, { session: session.id, frames: ack(2) }));
    await settle();
    // 3 never comes.
    batch('zh', 4, (w) => Bytes.write(w, { session: session.id, frames: ack(4) }));
    await settle();
    expect(inputs).toEqual([{ kind: 'ResendTicks', session: 0, from: 3 }]);
    // The host no longer has it: what it sent up to 4 is to be given up.
    batch('zh', 0, (w) => TicksGone.write(w, { session: 0, before: 5 }));
    await settle();
    expect(inputs.filter((r) => r.kind === 'Resync')).toEqual([{ kind: 'Resync', session: session.id }]);
    expect(gateway.lostTicks).toBe(1);
    expect(Buffer.concat(conn.writes)).toEqual(Buffer.concat([ack(2), ack(4)]));
    // Another host's count is its own, and a host that restarts counts from 1 in a new epoch.
    batch('other', 1, (w) => Bytes.write(w, { session: session.id, frames: ack(11) }));
    batch('zh', 1, (w) => Bytes.write(w, { session: session.id, frames: ack(21) }), 2);
    await settle();
    expect(gateway.lostTicks).toBe(1);
    expect(Buffer.concat(conn.writes.slice(2))).toEqual(Buffer.concat([ack(11), ack(21)]));
  });

  it("asks a host first heard past seq 1 for what it sent before: a zone's first tick message, lost, carried the walker's MOVED", async () => {
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
    await settle();
    inputs.length = 0;
    // The registry says who runs Ashmoor: what this gateway asks of that host goes there.
    gateway.zoneClaim('ashmoor', { id: 'zh-e', instance: 'i1' });
    const asked: Tagged<typeof ZoneInputs>[] = [];
    bus.subscribe(Subjects.zoneInput('ashmoor'), (m) => readTagged(ZoneInputs, m.data, (r) => asked.push(r)));
    // Ashmoor's host took the walker; its first message to this gateway (MOVED, ZoneChanged) is lost.
    batch('zh-e', 2, (w) => Bytes.write(w, { session: session.id, frames: MoveAck.encode({ seq: 2 }) }));
    await settle();
    expect(asked).toEqual([{ kind: 'ResendTicks', session: 0, from: 1 }]);
    expect(conn.writes).toEqual([]);
    batch('zh-e', 1, (w) => {
      Moved.write(w, { session: session.id, zone: 'Ashmoor' });
      Bytes.write(w, { session: session.id, frames: MoveAck.encode({ seq: 1 }) });
    });
    batch('zh-e', 2, (w) => Bytes.write(w, { session: session.id, frames: MoveAck.encode({ seq: 2 }) }));
    await settle();
    expect(Buffer.concat(conn.writes)).toEqual(
      Buffer.concat([MoveAck.encode({ seq: 1 }), MoveAck.encode({ seq: 2 })]),
    );
    expect(gateway.lostTicks).toBe(0);
    // Greenvale's host is told nothing more for the session comes to it (MOVEDON).
    expect(inputs.filter((r) => r.kind === 'MovedOn')).toEqual([{ kind: 'MovedOn', session: session.id }]);
  });

  it('tells the host when the connection goes over the soft limit and when it is back under', async () => {
    const frame = MoveAck.encode({ seq: 3 });
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
    await settle();
    conn.socketBytes = 5000;
    batch('zh', 2, (w) => Bytes.write(w, { session: session.id, frames: frame }));
    await settle();
    expect(inputs).toEqual([{ kind: 'Behind', session: session.id, behind: true }]);
    conn.socketBytes = 0;
    batch('zh', 3, (w) => Bytes.write(w, { session: session.id, frames: frame }));
    await settle();
    expect(inputs.at(-1)).toEqual({ kind: 'Behind', session: session.id, behind: false });
  });

  it('tells a sayer its line was not heard when the host asks for the message it went in after it is no longer kept', async () => {
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
    await settle();
    gateway.zone(session, ChatSend, frameOf(ChatSend.encode({ channel: 'say', text: 'hello?' })));
    gateway.zone(
      session,
      MoveInput,
      frameOf(
        MoveInput.encode({ seq: 1, x: 1, y: 1, facing: 0, moving: false, speed: 0, clientTime: 1, epoch: 0 }),
      ),
    );
    await settle();
    expect(inputs.map((r) => r.kind)).toEqual(['Packet', 'Packet']);
    const asked: Tagged<typeof ZoneInputs>[] = [];
    bus.subscribe(Subjects.zoneInput('greenvale'), (m) =>
      readTagged(ZoneInputs, m.data, (r) => {
        if (r.kind === 'InputsGone') asked.push(r);
      }),
    );
    // The zone's host missed everything (a bus outage longer than the gateway keeps its messages).
    now += 16_000;
    const w = new Writer(64);
    GatewayBatch.begin(w, { host: 'zh', epoch: 1, to: gateway.epoch, seq: 0 });
    ResendInputs.write(w, { session: 0, zone: 'greenvale', from: 1 });
    bus.publish(Subjects.gatewayDirect('g'), w.finish());
    await settle();
    // Every message up to the newest is given up, and the sayer is told: once, for its one line.
    expect(asked).toEqual([{ kind: 'InputsGone', session: 0, before: 3 }]);
    const opcodeOf = (b: Uint8Array) => b[2]! | (b[3]! << 8);
    const errors = conn.writes.filter((b) => opcodeOf(b) === ErrorPacket.opcode);
    expect(errors.map((b) => ErrorPacket.decode(b.subarray(HEADER_SIZE)))).toEqual([
      expect.objectContaining({ code: 'ERR_INTERNAL', opcode: ChatSend.opcode, fatal: false }),
    ]);
  });

  it("counts a zone's inputs afresh for a new host of it, and never sends that host again what the other one took", async () => {
    const heads: { to: number; seq: number }[] = [];
    bus.subscribe(Subjects.zoneInput('greenvale'), (m) =>
      readTagged(ZoneInputs, m.data, (r, { to, seq }) => {
        if (r.kind === 'Packet' || r.kind === 'InputsGone') heads.push({ to, seq });
      }),
    );
    const move = (seq: number) =>
      frameOf(
        MoveInput.encode({ seq, x: 1, y: 1, facing: 0, moving: false, speed: 0, clientTime: seq, epoch: 0 }),
      );
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }), 11);
    await settle();
    gateway.zone(session, MoveInput, move(1));
    await settle();
    gateway.zone(session, MoveInput, move(2));
    await settle();
    // Greenvale's host restarted (a new epoch): its inputs count from 1 again, named to it.
    batch('zh', 1, (w) => Bytes.write(w, { session: session.id, frames: MoveAck.encode({ seq: 2 }) }), 12);
    await settle();
    gateway.zone(session, MoveInput, move(3));
    await settle();
    // It asks for everything from 1: it gets its own message, not the two the other one took.
    const w = new Writer(64);
    GatewayBatch.begin(w, { host: 'zh', epoch: 12, to: gateway.epoch, seq: 0 });
    ResendInputs.write(w, { session: 0, zone: 'greenvale', from: 1 });
    bus.publish(Subjects.gatewayDirect('g'), w.finish());
    await settle();
    expect(heads).toEqual([
      { to: 11, seq: 2 },
      { to: 11, seq: 3 },
      { to: 12, seq: 1 },
      { to: 12, seq: 1 },
    ]);
  });

  it("passes a zone packet's payload on as the frame carried it, without decoding it", async () => {
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
    await settle();
    const move = { seq: 9, x: 10, y: 20, facing: 0, moving: true, speed: 120, clientTime: 5, epoch: 0 };
    const frame = MoveInput.encode(move);
    // Bytes the gateway has no business reading: a payload cut short is passed on all the same.
    const cut = frame.slice(0, frame.length - 3);
    // Every decode of a MoveInput (decode, decodeFrame, decodeInto) reads through its payload's codec.
    const reads = vi.spyOn(MoveInput.payload, 'read');
    const readsInto = vi.spyOn(MoveInput.payload, 'readInto');
    try {
      gateway.zone(session, MoveInput, frameOf(frame));
      gateway.zone(session, MoveInput, frameOf(cut));
      await settle();
      expect(reads).not.toHaveBeenCalled();
      expect(readsInto).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
      readsInto.mockRestore();
    }
    expect(inputs).toEqual([
      expect.objectContaining({ kind: 'Packet', opcode: MoveInput.opcode, payload: frame.subarray(6) }),
      expect.objectContaining({ kind: 'Packet', opcode: MoveInput.opcode, payload: cut.subarray(6) }),
    ]);
    const first = inputs[0]!;
    expect(first.kind === 'Packet' && MoveInput.decode(first.payload)).toEqual(move);
  });

  it("answers a REFUSED zone packet as bad input: a fatal Error with the host's code and reason, and a close", async () => {
    batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
    await settle();
    conn.writes.length = 0;
    const w = new Writer(64);
    GatewayBatch.begin(w, { host: 'zh', epoch: 1, to: gateway.epoch, seq: 0 });
    Refused.write(w, {
      session: session.id,
      opcode: MoveInput.opcode,
      code: 'ERR_SHORT',
      reason: 'MoveInput: short payload',
    });
    bus.publish(Subjects.gatewayDirect('g'), w.finish());
    await settle();
    scheduler.flushAll();
    const sent = conn.writes.map((b) => ErrorPacket.decode(b.subarray(6)));
    expect(sent).toEqual([
      { code: 'ERR_SHORT', reason: 'MoveInput: short payload', opcode: MoveInput.opcode, fatal: true },
    ]);
    expect(session.closing).toBe(true);
  });

  describe("when the zone's host is gone", () => {
    const zh = { id: 'zh', instance: 'one' };
    const text = () => {
      scheduler.flushAll();
      return new TextDecoder().decode(Buffer.concat(conn.writes));
    };

    beforeEach(async () => {
      gateway.zoneClaim('greenvale', zh);
      batch('zh', 1, (w) => Joined.write(w, { session: session.id, entity: 40, character: 7 }));
      await settle();
      conn.writes.length = 0;
      gateway.zoneClaim('greenvale', undefined);
      await settle();
    });

    it('tells the session ERR_ZONE_DOWN once, keeps it in the world, and drops its zone packets', async () => {
      expect(text()).toContain('ERR_ZONE_DOWN');
      expect(session).toMatchObject({ state: 'inWorld', closing: false });
      gateway.zone(session, ChatSend, frameOf(ChatSend.encode({ channel: 'say', text: 'anyone?' })));
      gateway.zoneClaim('greenvale', undefined);
      await settle();
      expect(inputs).toEqual([]);
      expect(text().split('ERR_ZONE_DOWN').length).toBe(2);
    });

    it('enters the character again when another host claims the zone, until that host says JOINED', async () => {
      gateway.zoneClaim('greenvale', { id: 'standby', instance: 'two' });
      await settle();
      expect(inputs).toEqual([{ kind: 'Join', session: session.id, account: 1, character: 7 }]);
      // Not heard (the host was not listening yet): the JOIN goes again.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await settle();
      expect(inputs.filter((r) => r.kind === 'Join').length).toBeGreaterThanOrEqual(2);
      batch('standby', 1, (w) => Joined.write(w, { session: session.id, entity: 41, character: 7 }));
      await settle();
      expect(session).toMatchObject({ state: 'inWorld', entityId: 41 });
      inputs.length = 0;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await settle();
      expect(inputs).toEqual([]);
      gateway.zone(session, ChatSend, frameOf(ChatSend.encode({ channel: 'say', text: 'back' })));
      await settle();
      expect(inputs.map((r) => r.kind)).toEqual(['Packet']);
    });

    it('asks the same host for the whole state again when its claim only seemed to lapse', async () => {
      gateway.zoneClaim('greenvale', zh);
      await settle();
      expect(inputs).toEqual([{ kind: 'Resync', session: session.id }]);
    });
  });
});

describe('world requests between gateways', () => {
  const ANA = { id: 7, accountId: 1, name: 'Ana', zone: 'Greenvale' } as CharacterRecord;
  const BOB = { id: 8, accountId: 2, name: 'Bob', zone: 'Greenvale' } as CharacterRecord;
  let bus: InProcessBus;
  const gateways: Gateway[] = [];
  const schedulers: FlushScheduler[] = [];

  /** Until the bus and the gateways' requests are done, and every connection written. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await bus.flush();
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const s of schedulers) s.flushAll();
  }

  /** Gateway `id` with `character` in the world on one session (JOINED by host zh). */
  async function gatewayWith(
    id: string,
    character: CharacterRecord,
    lookups: GatewayLookups,
    hosts: string[],
  ) {
    const scheduler = new FlushScheduler(() => {});
    schedulers.push(scheduler);
    const gateway = new Gateway({
      id,
      bus,
      store: { getCharacter: (cid) => Promise.resolve(cid === character.id ? character : undefined) },
      zones: ['Greenvale'],
      log: silentLogger,
      flush: () => scheduler.flushAll(),
      lookups,
      zoneHosts: () => hosts,
    });
    gateways.push(gateway);
    const conn = new MemoryConnection({ limits: { softLimit: 1024, hardLimit: 1 << 20 }, scheduler });
    const session = new Session(conn, loadConfig({}, []).rates, silentLogger);
    session.accountId = character.accountId;
    session.state = 'authenticated';
    gateway.world(session, EnterWorldRequest, { characterId: character.id });
    await settle();
    const w = new Writer(64);
    GatewayBatch.begin(w, { host: 'zh', epoch: 1, to: gateway.epoch, seq: 0 });
    Joined.write(w, { session: session.id, entity: character.id * 10, character: character.id });
    bus.publish(Subjects.gatewayDirect(id), w.finish());
    await settle();
    expect(session.state).toBe('inWorld');
    return { gateway, session, conn };
  }

  const decoded = (conn: MemoryConnection) =>
    conn.writes.map((bytes) => {
      const opcode = bytes[2]! | (bytes[3]! << 8);
      return opcode === ChatMessage.opcode ? { chat: ChatMessage.decode(bytes.subarray(6)) } : { opcode };
    });

  beforeEach(() => {
    bus = new InProcessBus();
  });

  afterEach(async () => {
    for (const g of gateways.splice(0)) g.close();
    schedulers.length = 0;
    await bus.close();
  });

  it("has the target's gateway, as the registry names it, deliver the whisper this one built, and echoes it", async () => {
    const holders: Record<string, { gateway: string; name: string }> = {
      bob: { gateway: 'h', name: 'Bob' },
      ana: { gateway: 'g', name: 'Ana' },
    };
    const looked: string[] = [];
    const lookups: GatewayLookups = {
      characterGateway: (name) => {
        looked.push(name);
        const held = holders[name.toLowerCase()];
        return Promise.resolve(
          held && {
            name: held.name,
            accountId: 0,
            gateway: { id: held.gateway, instance: 'i' },
          },
        );
      },
      sessionGateway: () => Promise.resolve(undefined),
    };
    const ana = await gatewayWith('g', ANA, lookups, []);
    const bob = await gatewayWith('h', BOB, lookups, []);
    ana.gateway.world(ana.session, Whisper, { to: 'BOB', text: 'psst' });
    await settle();
    const sent = { channel: 'whisper', fromId: 70, from: 'Ana', to: 'Bob', text: 'psst' };
    expect(decoded(bob.conn)).toEqual([{ chat: sent }]);
    expect(decoded(ana.conn)).toEqual([{ chat: sent }]);
    expect(looked).toEqual(['BOB']);

    // Listed on a gateway that has no such character in the world: not online.
    holders['ghost'] = { gateway: 'h', name: 'Ghost' };
    ana.gateway.world(ana.session, Whisper, { to: 'ghost', text: 'boo' });
    await settle();
    expect(decoded(ana.conn).at(-1)).toEqual({ opcode: ErrorPacket.opcode });
    expect(bob.conn.writes).toHaveLength(1);
  });

  it('tells the whisperer which whisper was not delivered when the world does not answer (a bus outage)', async () => {
    let registryDown = true;
    const lookups: GatewayLookups = {
      characterGateway: () =>
        registryDown
          ? Promise.reject(new Error('TIMEOUT'))
          : Promise.resolve({ name: 'Bob', accountId: 2, gateway: { id: 'h', instance: 'i' } }),
      sessionGateway: () => Promise.resolve(undefined),
    };
    const ana = await gatewayWith('g', ANA, lookups, []);
    // Each frame of each write (a flush may carry several).
    const reasons = (): string[] => {
      const said: string[] = [];
      for (const bytes of ana.conn.writes) {
        for (let at = 0; at < bytes.length;) {
          const size = bytes[at]! | (bytes[at + 1]! << 8);
          if ((bytes[at + 2]! | (bytes[at + 3]! << 8)) === ErrorPacket.opcode) {
            const e = ErrorPacket.decode(bytes.subarray(at + HEADER_SIZE, at + size));
            said.push(`${e.code} ${e.opcode === Whisper.opcode ? 'Whisper' : e.opcode} ${e.reason}`);
          }
          at += size;
        }
      }
      return said;
    };
    // The registry does not answer: two whispers refused, each told apart by its target and words.
    ana.gateway.world(ana.session, Whisper, { to: 'Bob', text: 'meet at the bridge' });
    ana.gateway.world(ana.session, Whisper, { to: 'Bob', text: 'x'.repeat(300) });
    await settle();
    const [first, second] = reasons();
    expect(first).toMatch(/^ERR_INTERNAL Whisper /);
    expect(first).toContain('to Bob');
    expect(first).toContain('"meet at the bridge"');
    expect(first).toContain('not delivered');
    // A long line is quoted shortened, within what an Error's reason holds.
    expect(second).toContain('to Bob');
    expect(second!.length).toBeLessThan(200);
    expect(second).toContain('x…"');

    // The target's gateway does not answer in time: refused the same way.
    registryDown = false;
    bus.subscribe(Subjects.gatewayWhisper('h'), () => {});
    ana.gateway.world(ana.session, Whisper, { to: 'Bob', text: 'still there?' });
    await until(async () => {
      await settle();
      return reasons().length === 3;
    }, 10_000);
    expect(reasons()[2]).toMatch(/^ERR_INTERNAL Whisper .*to Bob.*"still there\?".*not delivered/);
  });

  it('asks every zone host for who and merges the answers zone by zone, counting everyone', async () => {
    const answer = (players: { name: string; level: number; zone: string }[], total = players.length) => {
      const w = new Writer(64);
      WhoList.payload.write(w, { total, players });
      return w.finish();
    };
    bus.subscribe(Subjects.hostWho('zh-1'), (m) =>
      m.respond(answer([{ name: 'Cyd', level: 3, zone: 'Northmoor' }])),
    );
    bus.subscribe(Subjects.hostWho('zh-2'), (m) =>
      m.respond(answer([{ name: 'Dot', level: 5, zone: 'Greenvale' }], 250)),
    );
    const lookups: GatewayLookups = {
      characterGateway: () => Promise.resolve(undefined),
      sessionGateway: () => Promise.resolve(undefined),
    };
    const ana = await gatewayWith('g', ANA, lookups, ['zh-1', 'zh-2', 'zh-gone']);
    ana.gateway.world(ana.session, Who, {});
    await settle();
    const reply = ana.conn.writes.at(-1)!;
    expect(WhoList.decode(reply.subarray(6))).toEqual({
      total: 251,
      players: [
        { name: 'Dot', level: 5, zone: 'Greenvale' },
        { name: 'Cyd', level: 3, zone: 'Northmoor' },
      ],
    });
  });
});
