/** The shared bus suite in process, and what only the in-process bus promises. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PAYLOAD } from '../../server/cluster/bus.js';
import { InProcessBus } from '../../server/cluster/in-process-bus.js';
import { Subjects } from '../../server/cluster/subjects.js';
import { busSuite } from './bus-suite.js';

busSuite('in-process', {
  async pair() {
    const bus = new InProcessBus();
    return { a: bus, b: bus };
  },
  maxPayload: DEFAULT_MAX_PAYLOAD,
});

describe('in-process bus', () => {
  it('hands subscribers the very bytes published, without a copy', async () => {
    const bus = new InProcessBus();
    const sent = new Uint8Array([1, 2, 3]);
    const got: Uint8Array[] = [];
    bus.subscribe(Subjects.gatewayTick('gw0'), (m) => got.push(m.data));
    bus.publish(Subjects.gatewayTick('gw0'), sent);
    await bus.flush();
    expect(got[0]).toBe(sent);
    await bus.close();
  });

  it('gives lent bytes back after the last of their handlers has run, and at once when nobody listens', async () => {
    const bus = new InProcessBus();
    const log: string[] = [];
    bus.subscribe(Subjects.gatewayTick('gw0'), () => log.push('handler 1'));
    bus.subscribe(Subjects.gatewayTick('gw0'), () => log.push('handler 2'));
    bus.publish(Subjects.gatewayTick('gw0'), new Uint8Array(3), () => log.push('released'));
    expect(log).toEqual([]);
    await bus.flush();
    expect(log).toEqual(['handler 1', 'handler 2', 'released']);
    bus.publish(Subjects.gatewayTick('nobody'), new Uint8Array(3), () => log.push('released at once'));
    expect(log.at(-1)).toBe('released at once');
    await bus.close();
  });

  it('never runs a subscriber inside publish; a tick’s messages arrive together after it', async () => {
    const bus = new InProcessBus();
    const log: string[] = [];
    bus.subscribe(Subjects.gatewayTick('gw0'), (m) => log.push(`got ${m.data[0]}`));
    log.push('tick start');
    bus.publish(Subjects.gatewayTick('gw0'), new Uint8Array([1]));
    bus.publish(Subjects.gatewayTick('gw0'), new Uint8Array([2]));
    log.push('tick end');
    await bus.flush();
    expect(log).toEqual(['tick start', 'tick end', 'got 1', 'got 2']);
    await bus.close();
  });

  it('delivers what a handler publishes in the same run, after what was already queued', async () => {
    const bus = new InProcessBus();
    const log: number[] = [];
    bus.subscribe(Subjects.zoneInput('greenvale'), (m) => {
      log.push(m.data[0]!);
      if (m.data[0] === 1) bus.publish(Subjects.zoneInput('greenvale'), new Uint8Array([3]));
    });
    bus.publish(Subjects.zoneInput('greenvale'), new Uint8Array([1]));
    bus.publish(Subjects.zoneInput('greenvale'), new Uint8Array([2]));
    await bus.flush();
    expect(log).toEqual([1, 2, 3]);
    await bus.close();
  });
});
