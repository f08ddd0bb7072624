/**
 * The bus and the registry, measured: 1 KB messages and 64 KB messages (a gateway's tick for
 * some hundreds of sessions) from one publisher to one subscriber, in process and through a
 * local nats-server; the round trip of a request/reply; a registry lookup (one JetStream KV
 * get) and a zone claim refresh (one revision-checked update). Writes
 * bench/results/bus-<time>.json and .md.
 *
 * Starts its own nats-server on 127.0.0.1 (Debian's, see test/helpers/nats.ts) unless NATS_URL
 * names one. Not pinned and not a test: figures vary with the machine and what else runs on it.
 *
 *   npm run bench:bus [-- --seconds 3]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Bus } from '../server/cluster/bus.js';
import { InProcessBus } from '../server/cluster/in-process-bus.js';
import { jetStreamRegistry } from '../server/cluster/index.js';
import { NatsBus } from '../server/cluster/nats-bus.js';
import { Role } from '../server/cluster/registry.js';
import { Subjects } from '../server/cluster/subjects.js';
import { startNatsServer, type NatsServer } from '../test/helpers/nats.js';

const args = process.argv.slice(2);
const secondsArg = args.indexOf('--seconds');
const SECONDS = secondsArg >= 0 ? Number(args[secondsArg + 1]) : 3;
/** Messages published between two flushes: the publisher waits for the server, as a tick would. */
const BATCH = 500;

interface Throughput {
  bus: string;
  messageBytes: number;
  messages: number;
  seconds: number;
  messagesPerSecond: number;
  megabytesPerSecond: number;
}

interface Latency {
  what: string;
  samples: number;
  p50Us: number;
  p99Us: number;
  meanUs: number;
}

async function throughput(name: string, publisher: Bus, subscriber: Bus, size: number): Promise<Throughput> {
  const subject = Subjects.gatewayTick(`bench${size}`);
  let received = 0;
  const sub = subscriber.subscribe(subject, () => void received++);
  await subscriber.flush();
  let sent = 0;
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  while (performance.now() < deadline) {
    for (let i = 0; i < BATCH; i++) publisher.publish(subject, new Uint8Array(size));
    sent += BATCH;
    await publisher.flush();
  }
  while (received < sent) await new Promise((r) => setTimeout(r, 1));
  const seconds = (performance.now() - start) / 1000;
  sub.unsubscribe();
  return {
    bus: name,
    messageBytes: size,
    messages: sent,
    seconds: round(seconds, 2),
    messagesPerSecond: Math.round(sent / seconds),
    megabytesPerSecond: round((sent * size) / seconds / 1e6, 1),
  };
}

async function latency(what: string, samples: number, op: () => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < Math.min(200, samples); i++) await op();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await op();
    times.push((performance.now() - t) * 1000);
  }
  times.sort((a, b) => a - b);
  return {
    what,
    samples,
    p50Us: Math.round(times[Math.floor(samples * 0.5)]!),
    p99Us: Math.round(times[Math.floor(samples * 0.99)]!),
    meanUs: Math.round(times.reduce((a, b) => a + b, 0) / samples),
  };
}

async function requestReply(name: string, requester: Bus, responder: Bus): Promise<Latency> {
  const subject = Subjects.gatewayDirect('bench');
  const answer = new Uint8Array(64);
  const sub = responder.subscribe(subject, (m) => void m.respond(answer));
  await responder.flush();
  const result = await latency(`${name} request/reply (64 B each way)`, 5_000, () =>
    requester.request(subject, new Uint8Array(64)),
  );
  sub.unsubscribe();
  return result;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

async function main(): Promise<void> {
  let server: NatsServer | undefined;
  const url = process.env['NATS_URL'] ?? (server = await startNatsServer()).url;
  const throughputs: Throughput[] = [];
  const latencies: Latency[] = [];
  try {
    const local = new InProcessBus();
    for (const size of [1024, 65536]) throughputs.push(await throughput('in-process', local, local, size));
    latencies.push(await requestReply('in-process', local, local));
    await local.close();

    const a = await NatsBus.connect({ servers: url, name: 'bench-publisher' });
    const b = await NatsBus.connect({ servers: url, name: 'bench-subscriber' });
    for (const size of [1024, 65536]) throughputs.push(await throughput('nats', a, b, size));
    latencies.push(await requestReply('nats', a, b));

    const registry = await jetStreamRegistry(a.connection, { prefix: `bench${process.pid}`, ttlMs: 10_000 });
    const host = {
      id: 'zh0',
      instance: 'bench',
      role: Role.ZoneHost,
      host: '127.0.0.1',
      startedAt: Date.now(),
    };
    await registry.announce(host);
    await registry.claimZone('greenvale', host);
    await registry.bindSession(1, host);
    latencies.push(
      await latency('registry zone lookup (one KV get)', 2_000, () => registry.zoneClaim('greenvale')),
    );
    latencies.push(
      await latency('registry session lookup (KV get of the session and of its gateway)', 2_000, () =>
        registry.sessionGateway(1),
      ),
    );
    await registry.close();
    await a.close();
    await b.close();
  } finally {
    await server?.stop();
  }

  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const result = {
    when: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    nats: server ? 'throwaway nats-server on 127.0.0.1 (Debian 2.9.10)' : url,
    note: 'Not pinned; the machine was shared with other work while this ran.',
    secondsPerScenario: SECONDS,
    publishBatch: BATCH,
    throughput: throughputs,
    latency: latencies,
  };
  const dir = join('bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `bus-${stamp}.json`), JSON.stringify(result, null, 2) + '\n');
  const md = [
    `# Bus benchmark ${result.when}`,
    '',
    `Node ${result.node}, ${result.cpus} cores (${result.cpuModel}); ${result.nats}. ${result.note}`,
    `One publisher, one subscriber; the publisher flushes every ${BATCH} messages; ${SECONDS} s per row.`,
    '',
    '| bus | message | messages/s | MB/s |',
    '| --- | ---: | ---: | ---: |',
    ...throughputs.map(
      (t) =>
        `| ${t.bus} | ${t.messageBytes} B | ${t.messagesPerSecond.toLocaleString('en')} | ${t.megabytesPerSecond} |`,
    ),
    '',
    '| round trip | samples | p50 µs | p99 µs | mean µs |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...latencies.map((l) => `| ${l.what} | ${l.samples} | ${l.p50Us} | ${l.p99Us} | ${l.meanUs} |`),
    '',
  ].join('\n');
  writeFileSync(join(dir, `bus-${stamp}.md`), md);
  process.stdout.write(md);
}

main().catch((err) => {
  process.stderr.write(`bench:bus failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
