/**
 * One behaviour suite for every Bus. Each implementation's test file calls
 * `busSuite(name, harness)`; `pair()` gives two ends as two processes would hold them (the
 * in-process bus gives the same bus twice: both roles live in one process).
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { BusError, BusErrorCode, busMetrics, type Bus } from '../../server/cluster/bus.js';
import { Subjects } from '../../server/cluster/subjects.js';
import { until } from './until.js';

export interface BusHarness {
  pair(): Promise<{ a: Bus; b: Bus }>;
  /** Largest payload the bus takes. */
  maxPayload: number;
}

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (s: string) => new TextEncoder().encode(s);
const read = (b: Uint8Array) => new TextDecoder().decode(b);

async function busErrorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof BusError) return err.code;
    throw err;
  }
  throw new Error('expected a BusError');
}

function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof BusError) return err.code;
    throw err;
  }
  throw new Error('expected a BusError');
}

let nextId = 0;
/** A fresh id per test, so tests sharing one server never hear each other. */
const fresh = (prefix: string) => `${prefix}${process.pid}x${nextId++}`;

export function busSuite(name: string, harness: BusHarness): void {
  describe(`${name} bus`, () => {
    const opened: Bus[] = [];
    afterEach(async () => {
      for (const bus of opened.splice(0).reverse()) await bus.close();
    });

    async function pair(): Promise<{ a: Bus; b: Bus }> {
      const p = await harness.pair();
      opened.push(p.a, p.b);
      return p;
    }

    it("delivers a zone's input bytes to the subscriber of that zone only", async () => {
      const { a, b } = await pair();
      const zone = fresh('z');
      const got: string[] = [];
      const other: string[] = [];
      b.subscribe(Subjects.zoneInput(zone), (m) => got.push(read(m.data)));
      b.subscribe(Subjects.zoneInput(fresh('z')), (m) => other.push(read(m.data)));
      await b.flush();
      a.publish(Subjects.zoneInput(zone), text('move 1'));
      a.publish(Subjects.zoneInput(zone), text('move 2'));
      await until(() => got.length === 2);
      expect(got).toEqual(['move 1', 'move 2']);
      expect(other).toEqual([]);
    });

    it('gives lent bytes back once no subscriber can read them: written over from then on, never heard so', async () => {
      const { a, b } = await pair();
      const zone = fresh('z');
      const got: string[] = [];
      b.subscribe(Subjects.zoneInput(zone), (m) => got.push(read(m.data)));
      await b.flush();
      const data = text('lent 1');
      let released = 0;
      a.publish(Subjects.zoneInput(zone), data, () => {
        released++;
        // The earliest a publisher may write into them again.
        data.fill(0x21);
      });
      await until(() => got.length === 1 && released > 0);
      expect(got).toEqual(['lent 1']);
      expect(released).toBe(1);
    });

    it('keeps the order of one publisher’s messages', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      const got: number[] = [];
      b.subscribe(Subjects.gatewayTick(gateway), (m) => got.push(m.data[0]! | (m.data[1]! << 8)));
      await b.flush();
      for (let i = 0; i < 500; i++) a.publish(Subjects.gatewayTick(gateway), bytes(i & 0xff, i >> 8));
      await until(() => got.length === 500);
      expect(got).toEqual([...Array(500).keys()]);
    });

    it('a wildcard subscription hears every zone’s inputs and nothing else', async () => {
      const { a, b } = await pair();
      const got: string[] = [];
      b.subscribe(Subjects.everyZoneInput, (m) => got.push(m.subject));
      await b.flush();
      const [z1, z2] = [fresh('z'), fresh('z')];
      a.publish(Subjects.gatewayTick(fresh('gw')), bytes(1));
      a.publish(Subjects.zoneInput(z1), bytes(2));
      a.publish(Subjects.zoneInput(z2), bytes(3));
      await until(() => got.length >= 2);
      await a.flush();
      expect(got).toContain(Subjects.zoneInput(z1));
      expect(got).toContain(Subjects.zoneInput(z2));
      expect(got.every((s) => s.startsWith('wyvern.zone.'))).toBe(true);
    });

    it('a queue group gets each message once while plain subscribers get them all', async () => {
      const { a, b } = await pair();
      // A subject of this test's own (the server is shared by every test).
      const tag = fresh('q');
      const subject = Subjects.hostWho(tag);
      const first: string[] = [];
      const second: string[] = [];
      const watcher: string[] = [];
      b.subscribe(subject, (m) => first.push(read(m.data)), { queue: 'handlers' });
      b.subscribe(subject, (m) => second.push(read(m.data)), { queue: 'handlers' });
      b.subscribe(subject, (m) => watcher.push(read(m.data)));
      await b.flush();
      const sent = [...Array(40).keys()].map((i) => `${tag}:${i}`);
      for (const s of sent) a.publish(subject, text(s));
      await until(() => watcher.length === 40 && first.length + second.length === 40);
      expect([...first, ...second].sort()).toEqual([...sent].sort());
      expect(first.length).toBeGreaterThan(0);
      expect(second.length).toBeGreaterThan(0);
      expect(watcher).toEqual(sent);
    });

    it('stops delivering after unsubscribe', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      const got: number[] = [];
      const sub = b.subscribe(Subjects.gatewayDirect(gateway), (m) => got.push(m.data[0]!));
      await b.flush();
      a.publish(Subjects.gatewayDirect(gateway), bytes(1));
      await until(() => got.length === 1);
      sub.unsubscribe();
      sub.unsubscribe();
      await b.flush();
      a.publish(Subjects.gatewayDirect(gateway), bytes(2));
      // A later message on another subject marks that the first one would have arrived by now.
      const marker: number[] = [];
      b.subscribe(Subjects.gatewayTick(gateway), (m) => marker.push(m.data[0]!));
      await b.flush();
      a.publish(Subjects.gatewayTick(gateway), bytes(3));
      await until(() => marker.length === 1);
      expect(got).toEqual([1]);
    });

    it('answers a request with the responder’s bytes', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      b.subscribe(Subjects.gatewayDirect(gateway), (m) => {
        m.respond(text(`hello ${read(m.data)}`));
      });
      await b.flush();
      const answer = await a.request(Subjects.gatewayDirect(gateway), text('Arwen'), { timeoutMs: 5_000 });
      expect(read(answer)).toBe('hello Arwen');
    });

    it('an async responder may answer later', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      b.subscribe(Subjects.gatewayDirect(gateway), async (m) => {
        await new Promise((r) => setTimeout(r, 20));
        m.respond(bytes(m.data.length));
      });
      await b.flush();
      expect([
        ...(await a.request(Subjects.gatewayDirect(gateway), bytes(1, 2, 3), { timeoutMs: 5_000 })),
      ]).toEqual([3]);
    });

    it('a request nobody listens to fails at once with no responders', async () => {
      const { a } = await pair();
      const started = Date.now();
      const code = await busErrorCode(
        a.request(Subjects.gatewayDirect(fresh('nobody')), bytes(1), { timeoutMs: 20_000 }),
      );
      expect(code).toBe(BusErrorCode.NoResponders);
      expect(Date.now() - started).toBeLessThan(20_000);
    });

    it('a request nobody answers times out', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      let heard = 0;
      b.subscribe(Subjects.gatewayDirect(gateway), () => void heard++);
      await b.flush();
      expect(
        await busErrorCode(a.request(Subjects.gatewayDirect(gateway), bytes(1), { timeoutMs: 150 })),
      ).toBe(BusErrorCode.Timeout);
      expect(heard).toBe(1);
    });

    it('a publish on a plain message cannot be answered', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      const answered: boolean[] = [];
      b.subscribe(Subjects.gatewayDirect(gateway), (m) => answered.push(m.respond(bytes(0))));
      await b.flush();
      a.publish(Subjects.gatewayDirect(gateway), bytes(1));
      await until(() => answered.length === 1);
      expect(answered).toEqual([false]);
    });

    it('a handler that throws or rejects is counted and the others still get the message', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      const got: number[] = [];
      const before = b.stats().handlerErrors;
      b.subscribe(Subjects.gatewayTick(gateway), () => {
        throw new Error('boom');
      });
      b.subscribe(Subjects.gatewayTick(gateway), async () => {
        throw new Error('async boom');
      });
      b.subscribe(Subjects.gatewayTick(gateway), (m) => got.push(m.data[0]!));
      await b.flush();
      a.publish(Subjects.gatewayTick(gateway), bytes(7));
      a.publish(Subjects.gatewayTick(gateway), bytes(8));
      await until(() => got.length === 2 && b.stats().handlerErrors - before === 4);
      expect(got).toEqual([7, 8]);
    });

    it('counts messages and bytes both ways and exposes them to Prometheus', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      let heard = 0;
      b.subscribe(Subjects.gatewayTick(gateway), () => void heard++);
      await b.flush();
      const outBefore = a.stats();
      const inBefore = b.stats();
      a.publish(Subjects.gatewayTick(gateway), new Uint8Array(1000));
      a.publish(Subjects.gatewayTick(gateway), new Uint8Array(24));
      await until(() => heard === 2);
      const out = a.stats();
      const got = b.stats();
      expect(out.messagesOut - outBefore.messagesOut).toBe(2);
      expect(out.bytesOut - outBefore.bytesOut).toBe(1024);
      expect(got.messagesIn - inBefore.messagesIn).toBe(2);
      expect(got.bytesIn - inBefore.bytesIn).toBe(1024);
      expect(got.connected).toBe(true);

      const registry = new Registry();
      busMetrics(registry, a);
      const metrics = await registry.getMetricsAsJSON();
      const bytesTotal = metrics.find((m) => m.name === 'wyvern_bus_bytes_total')!;
      const outValue = bytesTotal.values.find((v) => v.labels['direction'] === 'out')!.value;
      expect(outValue).toBe(a.stats().bytesOut);
      expect(outValue).toBeGreaterThanOrEqual(1024);
      const connected = metrics.find((m) => m.name === 'wyvern_bus_connected')!;
      expect(connected.values[0]!.value).toBe(1);
    });

    it('refuses a payload over the limit with a clear error', async () => {
      const { a } = await pair();
      const big = new Uint8Array(harness.maxPayload + 1);
      expect(thrownCode(() => a.publish(Subjects.gatewayTick(fresh('gw')), big))).toBe(BusErrorCode.TooLarge);
      expect(await busErrorCode(a.request(Subjects.gatewayTick(fresh('gw')), big))).toBe(
        BusErrorCode.TooLarge,
      );
    });

    it('drain delivers what is in flight, then the bus is closed', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      const got: number[] = [];
      b.subscribe(Subjects.gatewayTick(gateway), (m) => got.push(m.data[0]!));
      await b.flush();
      for (let i = 0; i < 50; i++) a.publish(Subjects.gatewayTick(gateway), bytes(i));
      await a.drain();
      await until(() => got.length === 50);
      expect(got).toEqual([...Array(50).keys()]);
      expect(thrownCode(() => a.publish(Subjects.gatewayTick(gateway), bytes(0)))).toBe(BusErrorCode.Closed);
    });

    it('close rejects a request in flight', async () => {
      const { a, b } = await pair();
      const gateway = fresh('gw');
      b.subscribe(Subjects.gatewayDirect(gateway), () => {});
      await b.flush();
      const pending = a.request(Subjects.gatewayDirect(gateway), bytes(1), { timeoutMs: 20_000 });
      const code = busErrorCode(pending);
      await new Promise((r) => setTimeout(r, 20));
      await a.close();
      expect(await code).toBe(BusErrorCode.Closed);
    });
  });
}
