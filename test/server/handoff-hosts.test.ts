/**
 * Hand-off between two zone hosts on the realm level: two Realms on one in-process bus, one
 * running Greenvale and the other Ashmoor, spoken to as a gateway would (no sockets, ticks
 * run by hand). A player walking east is handed from one host to the other: the second host
 * tells the gateway MOVED, sends the session ZoneInfo and ZoneChanged, and acks its moves.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';
import { blocked } from '../../shared/game/movement.js';
import { MoveAck, MoveInput, PositionCorrection, ZoneChanged } from '../../shared/protocol/index.js';
import { InProcessBus, Subjects, zoneId } from '../../server/cluster/index.js';
import {
  beginZoneInputs,
  GatewayRecord,
  readGatewayBatch,
  writeJoinRecord,
  writePacketRecord,
  type GatewayBatchRecord,
} from '../../server/cluster/wire.js';
import { silentLogger } from '../../server/log.js';
import { CharacterSaver, openStore, type Store } from '../../server/store/index.js';
import { loadWorldData, type WorldData } from '../../server/world/index.js';
import { Realm } from '../../server/zone/realm.js';
import { account, character } from '../store/builders.js';

const DATA = path.resolve(import.meta.dirname, '../../data');

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
  const batches: { host: string; records: GatewayBatchRecord[] }[] = [];

  beforeEach(async () => {
    data = loadWorldData(DATA);
    store = await openStore('sqlite::memory:');
    bus = new InProcessBus();
    now = 1_700_000_000_000;
    batches.length = 0;
    const realm = (hostId: string, zone: string) =>
      new Realm({
        data,
        zones: [zone],
        store,
        saver: new CharacterSaver(store),
        bus,
        hostId,
        log: silentLogger,
        tickRate: 20,
        autosaveMs: 60_000,
        clock: () => now,
        seed: 1,
      });
    west = realm('zh-w', 'Greenvale');
    east = realm('zh-e', 'Ashmoor');
    bus.subscribe(Subjects.gatewayTick('a'), (m) => {
      const records: GatewayBatchRecord[] = [];
      readGatewayBatch(m.data, (r) =>
        records.push(r.kind === GatewayRecord.Bytes ? { ...r, bytes: r.bytes.slice() } : r),
      );
      const host = new TextDecoder().decode(m.data.subarray(1, 1 + m.data[0]!));
      batches.push({ host, records });
    });
  });

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
    beginZoneInputs(w, 'a');
    write(w);
    bus.publish(Subjects.zoneInput(zoneId(zone)), w.finish());
  }

  it('hands the walker over: MOVED from the new host, ZoneChanged to the client, its moves acked there, none refused', async () => {
    let y = 300;
    while (blocked({ x: 1990, y }, [...data.zones[0]!.obstacles, ...data.zones[1]!.obstacles], 40)) y += 10;
    const acct = await store.createAccount(account());
    const c = await store.createCharacter(
      character(acct.id, { name: 'Crosser', zone: 'Greenvale', x: 1980, y }),
    );
    send('Greenvale', (w) => writeJoinRecord(w, 1, acct.id, c.id));
    for (
      let i = 0;
      i < 40 && !batches.some((b) => b.records.some((r) => r.kind === GatewayRecord.Joined));
      i++
    ) {
      await tick();
    }
    // Both hosts hear each other's strips: the border opens.
    for (let i = 0; i < 4; i++) await tick();
    let zone = 'Greenvale';
    let x = 1980;
    for (let seq = 1; seq <= 20; seq++) {
      x += 6;
      const at = x;
      send(zone, (w) =>
        writePacketRecord(w, 1, now, MoveInput.opcode, (out) =>
          MoveInput.payload.write(out, {
            seq,
            x: at,
            y,
            facing: 0,
            moving: true,
            speed: 120,
            clientTime: seq * 50,
          }),
        ),
      );
      await tick();
      const moved = batches.flatMap((b) => b.records).find((r) => r.kind === GatewayRecord.Moved);
      if (moved && moved.kind === GatewayRecord.Moved) zone = moved.zone;
    }
    expect(zone).toBe('Ashmoor');
    const movedBatch = batches.find((b) => b.records.some((r) => r.kind === GatewayRecord.Moved))!;
    expect(movedBatch.host).toBe('zh-e');
    const frames = (host: string) =>
      batches
        .filter((b) => b.host === host)
        .flatMap((b) => b.records.flatMap((r) => (r.kind === GatewayRecord.Bytes ? opcodes(r.bytes) : [])));
    expect(frames('zh-e')).toContain(ZoneChanged.opcode);
    expect(frames('zh-e')).toContain(MoveAck.opcode);
    expect([...frames('zh-w'), ...frames('zh-e')]).not.toContain(PositionCorrection.opcode);
    expect(batches.flatMap((b) => b.records).some((r) => r.kind === GatewayRecord.Left)).toBe(false);
    // Saved with its new zone at once (not at the next autosave, a minute away): a login or a
    // resume on another gateway reads the row's zone to find the host that holds it.
    for (let i = 0; i < 10 && (await store.getCharacter(c.id))?.zone !== 'Ashmoor'; i++) await tick();
    expect((await store.getCharacter(c.id))?.zone).toBe('Ashmoor');
  });
});
