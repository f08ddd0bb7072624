import { describe, expect, it } from 'vitest';
import { InProcessBus } from '../../server/cluster/in-process-bus.js';
import { SubjectError, Subjects, zoneId } from '../../server/cluster/subjects.js';

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

  it('publish takes only subjects made here, and subscribe also their patterns', async () => {
    const bus = new InProcessBus();
    // @ts-expect-error a hand-built string is not a Subject
    expect(() => bus.publish('wyvern.zone.greenvale.in', new Uint8Array(0))).not.toThrow();
    // @ts-expect-error a pattern cannot be published to
    expect(() => bus.publish(Subjects.everyZoneInput, new Uint8Array(0))).not.toThrow();
    bus.subscribe(Subjects.everyZoneInput, () => {}).unsubscribe();
    await bus.close();
  });
});
