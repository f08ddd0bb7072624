/** The zone host's batch for one gateway: one message a tick, more only past the bus's limit. */
import { describe, expect, it } from 'vitest';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import { InProcessBus, Subjects, type Bus } from '../../server/cluster/index.js';
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

  it("lends each message's buffer to the bus and writes it again only once given back: a tick sent in parts arrives as written", async () => {
    const max = 400;
    const bus = new InProcessBus();
    const link = new GatewayLink('g1', bus, 'zh', max);
    const seen: { buffer: ArrayBufferLike; bytes: number[] }[] = [];
    bus.subscribe(Subjects.gatewayTick('g1'), (m) =>
      seen.push({ buffer: m.data.buffer, bytes: [...m.data] }),
    );
    // What each message must be: read back from a copy taken as it is published.
    const published: number[][] = [];
    const publish = bus.publish.bind(bus);
    bus.publish = (subject, data, release) => {
      published.push([...data]);
      publish(subject, data, release);
    };
    const tick = async (fill: number) => {
      for (let s = 1; s <= 10; s++) {
        const o = link.output(s);
        o.out.raw(frame(100, fill + s));
        o.commit();
      }
      link.publish();
      await bus.flush();
    };
    await tick(0);
    // Several messages in one tick, each written while the ones before it waited for delivery.
    const first = seen.length;
    expect(first).toBeGreaterThan(2);
    await tick(16);
    await tick(32);
    expect(seen.map((m) => m.bytes)).toEqual(published);
    // The buffers went round: a later tick's messages were written into the first tick's.
    const firstBuffers = new Set(seen.slice(0, first).map((m) => m.buffer));
    expect(seen.slice(first).some((m) => firstBuffers.has(m.buffer))).toBe(true);
  });

  it('gives every message a buffer of its own on a bus that keeps what it is given', () => {
    const kept: Uint8Array[] = [];
    const copies: number[][] = [];
    const keeper = {
      publish: (_subject: string, data: Uint8Array) => {
        kept.push(data);
        copies.push([...data]);
      },
    } as unknown as Bus;
    const link = new GatewayLink('g1', keeper, 'zh', 400);
    for (let t = 0; t < 3; t++) {
      for (let s = 1; s <= 6; s++) {
        const o = link.output(s);
        o.out.raw(frame(100, t * 16 + s));
        o.commit();
      }
      link.publish();
    }
    expect(kept.length).toBeGreaterThan(3);
    expect(new Set(kept.map((d) => d.buffer)).size).toBe(kept.length);
    expect(kept.map((d) => [...d])).toEqual(copies);
  });

  it('keeps its tick messages to send again over a bus that may lose them, and none in process', async () => {
    for (const lossless of [false, true]) {
      const bus = new InProcessBus({ lossless });
      const seen: number[][] = [];
      bus.subscribe(Subjects.gatewayTick('g1'), (m) => seen.push([...m.data]));
      const link = new GatewayLink('g1', bus, 'zh');
      for (let t = 1; t <= 3; t++) {
        const o = link.output(1);
        o.out.raw(frame(20, t));
        o.commit();
        link.publish();
      }
      await bus.flush();
      expect(link.resend(2)).toBe(!lossless);
      await bus.flush();
      expect(seen.slice(3)).toEqual(lossless ? [] : seen.slice(1, 3));
      await bus.close();
    }
  });
});
