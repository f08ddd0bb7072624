/** The zone host's batch for one gateway: one message a tick, more only past the bus's limit. */
import { describe, expect, it } from 'vitest';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import { InProcessBus, Subjects } from '../../server/cluster/index.js';
import { readTagged, type Tagged } from '../../server/cluster/inner/define.js';
import { GatewayBatch, LeftReason } from '../../server/cluster/wire.js';
import { GatewayLink } from '../../server/zone/gateway-link.js';

/** A frame of `size` bytes (header filled in, payload `fill`). */
function frame(size: number, fill: number): Uint8Array {
  const f = new Uint8Array(size).fill(fill);
  f[0] = size & 0xff;
  f[1] = size >>> 8;
  f[2] = 1;
  f[3] = 0;
  return f;
}

async function collect(max?: number) {
  const bus = new InProcessBus();
  const link = new GatewayLink('g1', bus, 'zh', max);
  const messages: Tagged<typeof GatewayBatch>[][] = [];
  bus.subscribe(Subjects.gatewayTick('g1'), (m) => {
    expect(m.data.length).toBeLessThanOrEqual(max ?? 1024 * 1024);
    const records: Tagged<typeof GatewayBatch>[] = [];
    readTagged(GatewayBatch, m.data, (r) =>
      records.push(r.kind === 'Bytes' ? { ...r, frames: r.frames.slice() } : r),
    );
    messages.push(records);
  });
  return { bus, link, messages };
}

describe('GatewayLink', () => {
  it('sends one message a tick: joined records, each session once, then left records', async () => {
    const { bus, link, messages } = await collect();
    const a = link.output(1);
    const b = link.output(2);
    a.out.raw(frame(10, 1));
    a.commit();
    b.out.raw(frame(20, 2));
    b.commit();
    a.out.raw(frame(8, 3));
    a.commit();
    link.entered(2, 40, 7);
    link.exited(9, LeftReason.Left);
    link.publish();
    link.publish();
    await bus.flush();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.map((r) => [r.kind, r.session])).toEqual([
      ['Joined', 2],
      ['Bytes', 1],
      ['Bytes', 2],
      ['Left', 9],
    ]);
    const bytes = messages[0]![1]!;
    expect(bytes.kind === 'Bytes' && bytes.frames.length).toBe(18);
    expect(a.out.pos).toBe(0);
  });

  it('cuts a tick over the limit between whole frames, in order, each message within the limit', async () => {
    const max = 1000;
    const { bus, link, messages } = await collect(max);
    const outs = [1, 2, 3].map((s) => link.output(s));
    const sent = new Map<number, number[]>();
    for (const [i, o] of outs.entries()) {
      for (let k = 0; k < 12; k++) {
        const f = frame(HEADER_SIZE + 40 + k * 7, (i * 16 + k) & 0xff);
        o.out.raw(f);
        sent.set(o.session, [...(sent.get(o.session) ?? []), ...f]);
      }
      o.commit();
    }
    link.entered(1, 5, 5);
    link.exited(3, LeftReason.Left);
    link.publish();
    await bus.flush();
    expect(messages.length).toBeGreaterThan(1);
    const all = messages.flat();
    expect(all[0]!.kind).toBe('Joined');
    expect(all.at(-1)!.kind).toBe('Left');
    const got = new Map<number, number[]>();
    for (const r of all) {
      if (r.kind !== 'Bytes') continue;
      // Each record holds whole frames.
      let at = 0;
      while (at < r.frames.length) at += r.frames[at]! | (r.frames[at + 1]! << 8);
      expect(at).toBe(r.frames.length);
      got.set(r.session, [...(got.get(r.session) ?? []), ...r.frames]);
    }
    expect(got).toEqual(sent);
  });
});
