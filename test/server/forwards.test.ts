/**
 * A zone host's forwards: the inputs its gateways still send it for a session it handed to
 * another host go on to that host, as they were sent, for a while; a detach for such a
 * session goes the same way.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { InProcessBus, Subjects, zoneId } from '../../server/cluster/index.js';
import { readTagged, type Tagged } from '../../server/cluster/inner/define.js';
import { Detach, Packet, ZoneInputs } from '../../server/cluster/wire.js';
import { Forwards } from '../../server/zone/forwards.js';

describe('forwards of a session handed to another host', () => {
  let bus: InProcessBus;
  let now: number;
  let forwards: Forwards;
  /** What reached Ashmoor's zone input, with the gateway each message names. */
  let heard: { gateway: string; record: Tagged<typeof ZoneInputs> }[];

  const input = (session: number) => ({
    session,
    receivedAt: 1234.5,
    opcode: 0x0201,
    payload: new Uint8Array([1, 2, 3]),
  });

  beforeEach(() => {
    bus = new InProcessBus();
    now = 1_000_000;
    forwards = new Forwards(bus, () => now);
    heard = [];
    bus.subscribe(Subjects.zoneInput(zoneId('Ashmoor')), (m) =>
      readTagged(ZoneInputs, m.data, (record, { gateway }) => heard.push({ gateway, record })),
    );
  });

  it('sends a handed session’s input on to the host that took it, as its gateway sent it', async () => {
    forwards.add('gw-a', 7, 'Ashmoor');
    forwards.forward('gw-a', Packet, input(7));
    forwards.forward('gw-a', Packet, input(8));
    forwards.forward('gw-b', Packet, input(7));
    await bus.flush();
    expect(heard).toEqual([{ gateway: 'gw-a', record: { kind: 'Packet', ...input(7) } }]);
  });

  it('stops sending on once its time is up, and forgets the session', async () => {
    forwards.add('gw-a', 7, 'Ashmoor');
    now += 10_001;
    forwards.forward('gw-a', Packet, input(7));
    await bus.flush();
    expect(heard).toEqual([]);
    expect(forwards.size).toBe(0);
  });

  it('sends nothing on for a session come back to this host', async () => {
    forwards.add('gw-a', 7, 'Ashmoor');
    forwards.forget('gw-a', 7);
    forwards.forward('gw-a', Packet, input(7));
    await bus.flush();
    expect(heard).toEqual([]);
  });

  it('tells the host that took it that its connection is gone', async () => {
    forwards.detach('gw-a', 7, 'Ashmoor');
    forwards.forward('gw-a', Detach, { session: 7 });
    await bus.flush();
    expect(heard).toEqual([{ gateway: 'gw-a', record: { kind: 'Detach', session: 7 } }]);
  });
});
