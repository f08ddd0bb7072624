import { describe, expect, it } from 'vitest';
import type { Bus } from '../../server/cluster/bus.js';
import { InProcessBus } from '../../server/cluster/in-process-bus.js';
import { Route, SubjectError, Subjects, zoneId } from '../../server/cluster/subjects.js';
import { innerWire } from '../../server/cluster/wire.js';

describe('subjects', () => {
  it('names each route under wyvern.', () => {
    expect(Subjects.zoneInput('greenvale')).toBe('wyvern.zone.greenvale.in');
    expect(Subjects.zoneHandoff('ashmoor')).toBe('wyvern.zone.ashmoor.handoff');
    expect(Subjects.hostWho('zh-0')).toBe('wyvern.host.zh-0.who');
    expect(Subjects.gatewayTick('gw-0')).toBe('wyvern.gw.gw-0.tick');
    expect(Subjects.gatewayDirect('gw-0')).toBe('wyvern.gw.gw-0.direct');
  });

  it('takes a zone by its lower-cased name', () => {
    expect(zoneId('Greenvale')).toBe('greenvale');
  });

  it.each(['', 'a.b', 'a b', '*', '>', 'x'.repeat(65), 'zoné'])('refuses %j as an id', (id) => {
    expect(() => Subjects.zoneInput(id)).toThrow(SubjectError);
    expect(() => Subjects.gatewayTick(id)).toThrow(SubjectError);
  });

  it("hears on a pattern every zone's inputs and nothing else of the zone", async () => {
    const bus = new InProcessBus();
    const heard: string[] = [];
    bus.subscribe(Subjects.everyZoneInput, (m) => heard.push(m.subject));
    bus.publish(Subjects.zoneInput('greenvale'), new Uint8Array(0));
    bus.publish(Subjects.zoneInput('ashmoor'), new Uint8Array(0));
    bus.publish(Subjects.zoneBorder('greenvale'), new Uint8Array(0));
    await bus.flush();
    expect(heard).toEqual(['wyvern.zone.greenvale.in', 'wyvern.zone.ashmoor.in']);
    await bus.close();
  });

  it('carries one declared message on each route (server/cluster/wire.ts), and each declared route is one', () => {
    const declared = [
      ...innerWire.streams.flatMap((s) => s.routes.map((route) => [route, s.name])),
      ...innerWire.bodies.flatMap((b) => (b.route ? [[b.route, b.name]] : [])),
    ];
    expect(Object.fromEntries(declared)).toEqual({
      zoneInput: 'ZoneInputs',
      zoneHandoff: 'HandoffRequest',
      gatewayTick: 'GatewayBatch',
      gatewayDirect: 'GatewayBatch',
      gatewayWhisper: 'WhisperDelivery',
      hostWho: 'WhoRequest',
      zoneBorder: 'BorderStrip',
    });
    expect(declared.map(([route]) => route).sort()).toEqual(Object.values(Route).sort());
  });
});

/**
 * What must not compile, for tsc (`npm run typecheck`) to check: never called. Publish takes
 * only subjects made by Subjects, never a hand-built string or a pattern.
 */
export function wontCompile(bus: Bus): void {
  // @ts-expect-error a hand-built string is not a Subject
  bus.publish('wyvern.zone.greenvale.in', new Uint8Array(0));
  // @ts-expect-error a pattern cannot be published to
  bus.publish(Subjects.everyZoneInput, new Uint8Array(0));
  // @ts-expect-error nor requested on
  void bus.request(Subjects.everyZoneInput, new Uint8Array(0));
}
