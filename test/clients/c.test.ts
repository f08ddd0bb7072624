/**
 * The C client library (clients/c), built with the system compiler into a temporary
 * directory and checked against the TypeScript codec: its unit tests, every golden vector
 * (decoded to the sample values, re-encoded to the same bytes), payloads cut short (the
 * same error codes), random valid packets from the TypeScript encoder, motion references
 * resolved over random WorldUpdate sequences, SRP-6a's worked example, and the example
 * client playing on a real server beside a TypeScript client, its connection cut and resumed.
 *
 * Skipped, with the reason printed, where there is no `cc`/`make` (everything) or no
 * OpenSSL headers (SRP and the example).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc16, DecodeError, HEADER_SIZE } from '../../shared/codec/index.js';
import {
  ChatMessage,
  MOB_ID_BASE,
  MotionRefs,
  packets,
  WorldUpdate,
  type EntityRecord,
  type Packet,
} from '../../shared/protocol/index.js';
import { GOLDEN_DIR, goldenPath, hex, parseGolden } from '../../tools/golden.js';
import { renderC } from '../../tools/gen/c.js';
import { EXAMPLE, srpFacts } from '../../tools/spec.js';
import {
  angleStep,
  arbitraryPacket,
  coordStep,
  entityRecordArbitrary,
  speedStep,
} from '../helpers/arbitrary.js';
import {
  startGameClient,
  startWorldServer,
  type GameClient,
  type WorldServer,
} from '../helpers/game-client.js';
import { ChildLines, cuttableProxy, type CuttableProxy } from '../helpers/native-client.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const C_DIR = join(ROOT, 'clients/c');

function runs(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

const noCompiler = !runs('cc', ['--version']) || !runs('make', ['--version']);
const noOpenssl = noCompiler || !existsSync('/usr/include/openssl/bn.h');
if (noCompiler) console.warn('clients/c: skipped, no `cc` or `make` on this machine');
else if (noOpenssl)
  console.warn('clients/c: SRP and example tests skipped, no OpenSSL headers (apt-get install libssl-dev)');

/** Turns a decoded TypeScript value into what the C driver prints: bytes as hex, no undefined keys. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return hex(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => [k, plain(x)]),
    );
  }
  return v;
}

/** A whole frame around any payload, with its CRC. */
function frameOf(opcode: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(HEADER_SIZE + payload.length);
  const size = frame.length;
  const crc = crc16(payload);
  frame.set([size & 0xff, size >> 8, opcode & 0xff, opcode >> 8, crc & 0xff, crc >> 8]);
  frame.set(payload, HEADER_SIZE);
  return frame;
}

interface DriverLine {
  opcode?: number;
  name?: string;
  value?: unknown;
  reencoded?: string;
  error?: string;
}

describe('the generated C codec', () => {
  it('is committed as npm run spec renders it from the packet definitions', () => {
    for (const f of renderC()) {
      expect(readFileSync(join(ROOT, f.path), 'utf8'), `${f.path}: run \`npm run spec\``).toBe(f.content);
    }
  });
});

describe.skipIf(noCompiler)('the C client library', () => {
  let build: string;
  const bin = (name: string) => join(build, name);

  /** Runs a built program with stdin; its stdout lines. */
  function run(name: string, args: string[], input = ''): string[] {
    const r = spawnSync(bin(name), args, { input, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}${r.stdout.slice(-2000)}`);
    return r.stdout.split('\n').filter((l) => l !== '');
  }

  function decodeInC(lines: string[]): DriverLine[] {
    return run('driver', ['decode'], lines.join('\n') + '\n').map((l) => JSON.parse(l) as DriverLine);
  }

  beforeAll(() => {
    build = mkdtempSync(join(tmpdir(), 'wyvern-c-'));
    const targets = ['unit', 'driver', ...(noOpenssl ? [] : ['example', 'srp_vector'])].map(bin);
    const r = spawnSync('make', ['-s', '-C', C_DIR, `BUILD=${build}`, ...targets], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`make failed:\n${r.stdout}${r.stderr}`);
  });

  afterAll(() => {
    if (build) rmSync(build, { recursive: true, force: true });
  });

  it('builds with cc -std=c99 -Wall -Wextra -Werror -pedantic and passes its unit tests', () => {
    const out = run('unit', []);
    expect(out.at(-1)).toMatch(/^\d+ checks, 0 failed$/);
  });

  it('decodes every golden vector and re-encodes it to the same bytes', () => {
    const files = readdirSync(GOLDEN_DIR)
      .filter((f) => f.endsWith('.hex'))
      .map((f) => join(GOLDEN_DIR, f));
    expect(files.length).toBe(packets.length);
    expect(run('driver', ['golden', ...files]).at(-1)).toBe(
      `${packets.length} golden vectors: ${packets.length} decoded and re-encoded to the same bytes, 0 failed`,
    );
  });

  it('decodes every golden vector to the sample values the TypeScript codec gives', () => {
    const frames = packets.map((def) => parseGolden(readFileSync(goldenPath(def), 'utf8')));
    const out = decodeInC(frames.map(hex));
    expect(out).toHaveLength(packets.length);
    packets.forEach((def, i) => {
      const frame = frames[i]!;
      expect(out[i], def.name).toEqual({
        opcode: def.opcode,
        name: def.name,
        value: plain(def.decode(frame.subarray(HEADER_SIZE))),
        reencoded: hex(frame),
      });
    });
  });

  it('refuses every golden payload cut short with the error code the TypeScript codec gives', () => {
    const lines: string[] = [];
    const want: DriverLine[] = [];
    for (const def of packets) {
      const payload = parseGolden(readFileSync(goldenPath(def), 'utf8')).subarray(HEADER_SIZE);
      // Every shorter payload, and one with a byte too many.
      const cases = Array.from({ length: payload.length }, (_, n) => payload.subarray(0, n));
      cases.push(Uint8Array.from([...payload, 0x01]));
      for (const bad of cases) {
        let code: string | undefined;
        try {
          def.decode(bad);
        } catch (e) {
          code = (e as DecodeError).code;
        }
        // A WorldUpdate cut between two records is still a WorldUpdate.
        if (code === undefined) continue;
        lines.push(hex(frameOf(def.opcode, bad)));
        want.push({ opcode: def.opcode, error: code });
      }
    }
    expect(decodeInC(lines)).toEqual(want);
  });

  it('decodes random valid packets of every kind from the TypeScript encoder to the same values', () => {
    const lines: string[] = [];
    const want: DriverLine[] = [];
    for (const def of packets) {
      const values = fc.sample(arbitraryPacket(def as Packet), { numRuns: 40, seed: def.opcode });
      const frames = values.map((v) => def.encode(v as never));
      // All of a packet's frames on one line: the driver feeds them in pieces of growing size.
      lines.push(frames.map(hex).join(''));
      for (const frame of frames) {
        want.push({
          opcode: def.opcode,
          name: def.name,
          value: plain(def.decode(frame.subarray(HEADER_SIZE))),
          reencoded: hex(frame),
        });
      }
    }
    expect(decodeInC(lines)).toEqual(want);
  });

  it('resolves motion references over random WorldUpdate sequences as the TypeScript client does', () => {
    // Few ids, so moves, moveBys and paths keep meeting the references earlier records left.
    const id = fc.constantFrom(1, 2, 3, 7, MOB_ID_BASE, MOB_ID_BASE + 5);
    const anyRecord = fc.tuple(entityRecordArbitrary, id).map(([r, i]): EntityRecord => ({ ...r, id: i }));
    // And walkers as a server sends them: mid-zone, at walking speeds, states a few ms old.
    const mid = fc.integer({ min: 20000, max: 40000 }).map(coordStep);
    const point = fc.record({ x: mid, y: mid });
    const speed = fc.option(fc.integer({ min: 0, max: 3000 }).map(speedStep), { nil: undefined });
    const age = fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined });
    const angle = fc.integer({ min: 0, max: 255 }).map(angleStep);
    const walker = fc.oneof(
      fc.record({
        kind: fc.constant('move' as const),
        id,
        x: mid,
        y: mid,
        angle,
        moving: fc.boolean(),
        jump: fc.constant(false),
        speed,
        age,
      }),
      fc.record({
        kind: fc.constant('moveBy' as const),
        id,
        dx: fc.integer({ min: -64, max: 63 }),
        dy: fc.integer({ min: -64, max: 63 }),
        angle: fc.option(angle, { nil: undefined }),
        moving: fc.boolean(),
        speed,
        age,
      }),
      fc.record({
        kind: fc.constant('path' as const),
        id,
        x: mid,
        y: mid,
        speed,
        waypoints: fc.array(point, { maxLength: 4 }),
        age,
      }),
      fc.record({
        kind: fc.constant('pathHere' as const),
        id,
        speed,
        waypoints: fc.array(point, { maxLength: 4 }),
        age,
      }),
    );
    const record = fc.oneof(anyRecord, walker as fc.Arbitrary<EntityRecord>);
    const sequence = fc.record({
      tick: fc.integer({ min: 0, max: 1_000_000 }),
      time: fc.oneof(fc.integer({ min: 0, max: 2 ** 41 }), fc.double({ min: 0, max: 2e12, noNaN: true })),
      updates: fc.array(
        fc.record({
          tick: fc.integer({ min: 0, max: 3 }),
          time: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 0xffffffff })),
          records: fc.array(record, { maxLength: 12 }),
        }),
        { minLength: 1, maxLength: 12 },
      ),
    });
    const lines: string[] = [];
    const want: unknown[] = [];
    for (const s of fc.sample(sequence, { numRuns: 300, seed: 26 })) {
      const refs = new MotionRefs();
      refs.enter(s.tick, s.time);
      lines.push(`enter ${s.tick} ${s.time}`);
      for (const u of s.updates) {
        const frame = WorldUpdate.encode(u);
        lines.push(hex(frame));
        const decoded = WorldUpdate.decode(frame.subarray(HEADER_SIZE));
        refs.resolve(decoded);
        want.push(plain(decoded));
      }
    }
    const got = run('driver', ['resolve'], lines.join('\n') + '\n').map((l) => JSON.parse(l) as unknown);
    expect(got).toHaveLength(want.length);
    // One sequence at a time, so a failure shows a small diff.
    for (let i = 0; i < want.length; i++) expect(got[i], `update ${i}`).toEqual(want[i]);
  });

  describe.skipIf(noOpenssl)('SRP-6a and the example client', () => {
    it("computes PROTOCOL.md's SRP-6a worked example as tssrp6a does", async () => {
      const f = await srpFacts();
      const h = (n: bigint) => n.toString(16);
      const out = run(
        'srp_vector',
        [EXAMPLE.password, h(EXAMPLE.salt), h(EXAMPLE.a), h(f.example.B)].map((s, i) =>
          i > 0 && s.length % 2 ? `0${s}` : s,
        ),
      );
      const got = Object.fromEntries(out.map((l) => l.split('=') as [string, string]));
      expect(BigInt(`0x${got.v}`)).toBe(f.example.v);
      expect(BigInt(`0x${got.A}`)).toBe(f.example.A);
      expect(BigInt(`0x${got.M1}`)).toBe(f.example.M1);
      expect(BigInt(`0x${got.M2}`)).toBe(f.example.M2);
    });

    it('logs in against the server half of SRP-6a and is refused with a wrong password', () => {
      expect(run('srp_vector', ['--self-test'])).toEqual([
        'srp self-test: right password accepted, wrong password refused',
      ]);
    });

    describe('on a live server', () => {
      let world: WorldServer;
      let watcher: GameClient;
      let proxy: CuttableProxy;
      let example: ChildLines | undefined;

      beforeAll(async () => {
        // A linger longer than the test's cut, so a resume finds the character in the world.
        world = await startWorldServer({ LINGER_MS: '8000', COMBAT_LINGER_MS: '8000' });
        proxy = await cuttableProxy(world.server.tcpPort);
        watcher = await startGameClient(
          { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort },
          { transport: 'ws', name: 'Watcher' },
        );
      });

      afterAll(async () => {
        example?.child.kill('SIGKILL');
        watcher?.close();
        await proxy?.close();
        await world?.stop();
      });

      it('registers, enters, walks and talks beside a TypeScript client, and resumes after its connection is cut', async () => {
        const { log, client } = watcher;
        const since = log.mark();
        const c = (example = new ChildLines(
          spawn(
            bin('example'),
            [
              ...['--port', String(proxy.port), '--account', 'cwalker', '--password', 'c-walker-pw'],
              ...['--name', 'Cwalker', '--say', 'hello from C', '--walk', '800', '--seconds', '8'],
              ...['--resume-say', 'back from C'],
            ],
            { stdio: ['ignore', 'pipe', 'pipe'] },
          ),
        ));
        const killer = setTimeout(() => c.child.kill('SIGKILL'), 30_000);
        try {
          const spawned = await log.expectRecord('spawn', { predicate: (r) => r.name === 'Cwalker', since });
          expect(spawned).toMatchObject({ entity: 'player', alive: true });
          const id = spawned.id;
          const start = await log.expectRecord('move', { predicate: (r) => r.id === id, since });
          client.say('hello from TS');
          await log.expectRecord('move', { predicate: (r) => r.id === id && r.moving, since });
          const stopped = await log.expectRecord('move', {
            predicate: (r) => r.id === id && !r.moving && Math.hypot(r.x - start.x, r.y - start.y) > 1,
            since,
          });
          // 800 ms at the character's 120 units/s, give or take a heartbeat.
          const walked = Math.hypot(stopped.x - start.x, stopped.y - start.y);
          expect(walked).toBeGreaterThan(60);
          expect(walked).toBeLessThan(130);
          const chat = await log.expect(ChatMessage, { predicate: (m) => m.text === 'hello from C', since });
          expect(chat).toMatchObject({ channel: 'say', from: 'Cwalker', fromId: id });
          await c.expect(/^\[say\] Watcher: hello from TS$/);
          await c.expect(/^\[say\] Cwalker: hello from C$/);
          const stop = await c.expect(/^stopped at \((-?[\d.]+), (-?[\d.]+)\)$/);

          // Cut: it connects again and resumes where it stood; the watcher never sees it leave.
          const beforeCut = log.mark();
          const mark = c.mark();
          proxy.cut();
          await c.expect(/^disconnected: /, mark);
          const resumed = await c.expect(/^resumed in (\d+) ms at \((-?[\d.]+), (-?[\d.]+)\)/, mark);
          console.log(`C example: ${resumed[0]}`);
          expect(Math.abs(Number(resumed[2]) - Number(stop[1]))).toBeLessThanOrEqual(0.1);
          expect(Math.abs(Number(resumed[3]) - Number(stop[2]))).toBeLessThanOrEqual(0.1);
          // What it says after the resume reaches the watcher, and what the watcher says reaches it.
          await log.expect(ChatMessage, {
            predicate: (m) => m.fromId === id && m.text === 'back from C',
            since: beforeCut,
          });
          // Its view is built again from the spawns the resume brings.
          await c.expect(/^\+ player Watcher \(id \d+\)/, mark);
          client.say('welcome back');
          await c.expect(/^\[say\] Watcher: welcome back$/, mark);
          expect(log.records('despawn', (d) => d.id === id, beforeCut)).toEqual([]);
          expect(await c.exited).toBe(0);
          expect(log.records('despawn', (d) => d.id === id, beforeCut)).toEqual([]);
        } catch (e) {
          c.child.kill('SIGKILL');
          await c.exited;
          throw new Error(`${String(e)}\nthe C example's output:\n${c.output()}`, { cause: e });
        } finally {
          clearTimeout(killer);
        }
        const out = c.lines.join('\n');
        expect(out).toContain('registered account cwalker');
        expect(out).toContain('entered Testvale as Cwalker');
        expect(out).toMatch(/\+ player Watcher \(id \d+\)/);
        expect(out).toContain('[say] Cwalker: hello from C');
        expect(out).toContain('[say] Cwalker: back from C');
        expect(out).toMatch(/view: \d+ in sight:.* Watcher\(100,100\)/);
      }, 45_000);
    });
  });
});
