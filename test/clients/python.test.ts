/**
 * The Python client (clients/python) against this codebase: its own unit tests (every golden
 * vector, SRP, motion references); a fuzz where the TypeScript encoder makes random valid
 * packets and the Python decoder must read the same values (and write the same bytes back),
 * and random WorldUpdate streams that both sides' motion references must resolve alike; and a
 * live session of the command-line client on a real server beside a TypeScript client.
 * Skipped, saying so, where python3 is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChatMessage,
  MOB_ID_BASE,
  MotionRefs,
  packets,
  WorldUpdate,
  type EntityRecord,
  type Packet,
} from '../../shared/protocol/index.js';
import { crc16 } from '../../shared/codec/index.js';
import { arbitraryPacket, coordStep, speedStep, angleStep } from '../helpers/arbitrary.js';
import { hex, valueJson } from '../../tools/golden.js';
import {
  sleep,
  startGameClient,
  startWorldServer,
  walkTo,
  type GameClient,
  type WorldServer,
} from '../helpers/game-client.js';
import { ChildLines, cuttableProxy } from '../helpers/native-client.js';

const PY_DIR = path.resolve(import.meta.dirname, '../../clients/python');
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const hasPython = python.status === 0;
if (!hasPython) console.warn('python3 not found: skipping the Python client tests (clients/python)');

/** JSON as both sides read it: -0 and 0 are one number on the wire's JSON. */
function plain(json: string): unknown {
  return JSON.parse(json, (_k, v: unknown) => (Object.is(v, -0) ? 0 : v));
}

/** Runs the Python decode driver over request lines; resolves with its answer lines. */
function pyDriver(requests: readonly object[]): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'tests.decode_stream'], { cwd: PY_DIR });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`decode_stream.py exited ${code}: ${err}`));
      resolve(
        out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => plain(l) as Record<string, unknown>),
      );
    });
    child.stdin.end(requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
  });
}

describe.skipIf(!hasPython)('the Python client', () => {
  it("passes its own unit tests: every golden vector, SRP's worked example, motion references", () => {
    const run = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
      cwd: PY_DIR,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = run.stderr;
    expect(report, report).toMatch(/\nOK\b/);
    expect(run.status).toBe(0);
    const ran = Number(/Ran (\d+) tests?/.exec(report)?.[1]);
    expect(ran).toBeGreaterThanOrEqual(20);
  });

  it('decodes random packets of every kind the TypeScript encoder makes to the same values and bytes', async () => {
    const seed = 26;
    const cases: { def: Packet; frame: Uint8Array }[] = [];
    for (const def of packets) {
      for (const value of fc.sample(arbitraryPacket(def, { listCap: 6 }), { numRuns: 25, seed })) {
        cases.push({ def, frame: def.encode(value as never) });
      }
    }
    const answers = await pyDriver(cases.map((c) => ({ frame: hex(c.frame) })));
    expect(answers).toHaveLength(cases.length);
    for (const [i, { def, frame }] of cases.entries()) {
      const decoded = def.decode(frame.subarray(6));
      const answer = answers[i]!;
      const what = `${def.name} (seed ${seed}, case ${i}): ${hex(frame)}`;
      expect(answer.error, what).toBeUndefined();
      expect(answer.value, what).toEqual(plain(valueJson(decoded)));
      expect(answer.frame, what).toBe(hex(frame));
    }
  });

  it('refuses the same corrupted frames with the same error codes', async () => {
    const cases: { frame: Uint8Array; code: string }[] = [];
    const rng = fc.sample(fc.integer({ min: 0, max: 0xffff }), { numRuns: 2000, seed: 7 });
    let k = 0;
    for (const def of packets) {
      for (const value of fc.sample(arbitraryPacket(def, { listCap: 3 }), { numRuns: 6, seed: 3 })) {
        const frame = def.encode(value as never);
        if (frame.length <= 6) continue;
        // Flip one payload byte and fix the CRC: the payload itself is what is judged.
        const bad = frame.slice();
        bad[6 + (rng[k++ % rng.length]! % (bad.length - 6))]! ^= 1 << (rng[k++ % rng.length]! % 8);
        let code = '';
        try {
          def.decode(bad.subarray(6));
        } catch (e) {
          code = (e as { code: string }).code;
        }
        if (code) cases.push({ frame: reframe(def.opcode, bad.subarray(6)), code });
      }
    }
    expect(cases.length).toBeGreaterThan(20);
    const answers = await pyDriver(cases.map((c) => ({ frame: hex(c.frame) })));
    for (const [i, c] of cases.entries()) expect(answers[i]!.error, hex(c.frame)).toBe(c.code);
  });

  it('resolves random WorldUpdate streams against motion references as the TypeScript client does', async () => {
    const players = [1, 2, 3];
    const mobs = [MOB_ID_BASE + 1, MOB_ID_BASE + 2];
    const point = fc.record({
      x: fc.integer({ min: 0, max: 65535 }).map(coordStep),
      y: fc.integer({ min: 0, max: 65535 }).map(coordStep),
    });
    const speed = fc.option(fc.integer({ min: 0, max: 4000 }).map(speedStep), { nil: undefined });
    const age = fc.option(fc.integer({ min: 1, max: 1500 }), { nil: undefined });
    const motion = (id: number): fc.Arbitrary<EntityRecord> =>
      fc.oneof(
        fc.record({
          kind: fc.constant('move' as const),
          id: fc.constant(id),
          x: point.map((p) => p.x),
          y: point.map((p) => p.y),
          angle: fc.integer({ min: 0, max: 255 }).map(angleStep),
          moving: fc.boolean(),
          jump: fc.constant(false),
          speed,
          age,
        }),
        fc.record({
          kind: fc.constant('moveBy' as const),
          id: fc.constant(id),
          dx: fc.integer({ min: -200, max: 200 }),
          dy: fc.integer({ min: -200, max: 200 }),
          angle: fc.option(fc.integer({ min: 0, max: 255 }).map(angleStep), { nil: undefined }),
          moving: fc.boolean(),
          speed,
          age,
        }),
        fc.record({
          kind: fc.constant('path' as const),
          id: fc.constant(id),
          x: point.map((p) => p.x),
          y: point.map((p) => p.y),
          speed,
          waypoints: fc.array(point, { maxLength: 4 }),
          age,
        }),
        fc.record({
          kind: fc.constant('pathHere' as const),
          id: fc.constant(id),
          speed,
          waypoints: fc.array(point, { maxLength: 4 }),
          age,
        }),
      );
    const spawnOf = (id: number): EntityRecord => ({
      kind: 'spawn',
      id,
      entity: id >= MOB_ID_BASE ? 'mob' : 'player',
      template: 0,
      name: 'X',
      level: 1,
      health: 5,
      maxHealth: 5,
      speed: 7,
      appearance: 0,
      alive: true,
    });
    const frameArb = fc
      .tuple(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 400 }),
        fc
          .array(fc.constantFrom(...players, ...mobs), { maxLength: 5 })
          .chain((ids) => fc.tuple(...ids.map(motion))),
      )
      .map(([tick, time, records]) => ({ tick, time, records: records.sort((a, b) => a.id - b.id) }));
    const streams = fc.sample(fc.array(frameArb, { minLength: 1, maxLength: 12 }), { numRuns: 60, seed: 61 });
    const requests: object[] = [];
    const expected: unknown[] = [];
    for (const stream of streams) {
      const refs = new MotionRefs();
      refs.enter(100, 1_763_000_000_000);
      requests.push({ enter: [100, 1_763_000_000_000] });
      expected.push({});
      const first = [...players, ...mobs].flatMap((id): EntityRecord[] => [
        spawnOf(id),
        { kind: 'move', id, x: 500, y: 500, angle: 0, moving: true, jump: false, speed: undefined },
      ]);
      for (const u of [{ tick: 1, time: 50, records: first }, ...stream]) {
        const frame = WorldUpdate.encode(u);
        const decoded = WorldUpdate.decode(frame.subarray(6));
        refs.resolve(decoded);
        requests.push({ resolve: hex(frame) });
        expected.push({ value: plain(valueJson(decoded)) });
      }
    }
    const answers = await pyDriver(requests);
    expect(answers).toHaveLength(expected.length);
    for (const [i, want] of expected.entries())
      expect(answers[i], `request ${i}: ${JSON.stringify(requests[i])}`).toEqual(want);
  });
});

function reframe(opcode: number, payload: Uint8Array): Uint8Array {
  // Any packet with this payload: the TypeScript encoder frames it with the right CRC.
  const out = new Uint8Array(6 + payload.length);
  out.set(payload, 6);
  const crc = crc16(payload);
  out[0] = out.length & 0xff;
  out[1] = out.length >> 8;
  out[2] = opcode & 0xff;
  out[3] = opcode >> 8;
  out[4] = crc & 0xff;
  out[5] = crc >> 8;
  return out;
}

describe.skipIf(!hasPython)('the Python command-line client on a live server', () => {
  let world: WorldServer;
  let watcher: GameClient;
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  let py: ChildLines | undefined;

  beforeAll(async () => {
    world = await startWorldServer({ LINGER_MS: '8000', COMBAT_LINGER_MS: '8000' });
    proxy = await cuttableProxy(world.server.tcpPort);
    watcher = await startGameClient(
      { tcpPort: world.server.tcpPort, httpPort: world.server.httpPort },
      { transport: 'ws', name: 'Watcher' },
    );
  });

  afterAll(async () => {
    py?.child.kill();
    watcher?.close();
    await proxy?.close();
    await world?.stop();
  });

  it('registers, enters, walks and chats beside a TypeScript client, and resumes after its connection is cut', async () => {
    py = new ChildLines(
      spawn(
        'python3',
        ['-m', 'wyvern_client', '--port', String(proxy.port), '--user', 'pyplayer', '--character', 'Pyra'],
        { cwd: PY_DIR, env: { ...process.env, WYVERN_PASSWORD: 'python-password' } },
      ),
    );
    await py.expect(/^Registered account pyplayer$/);
    const entered = await py.expect(/^Entered \S+ as Pyra \(lvl 1, player #(\d+)\) at (\d+),(\d+)/);
    const id = Number(entered[1]);
    const { log, client } = watcher;

    // The TypeScript client sees it come, and sees it walk to where it stops.
    await log.expectRecord('spawn', { predicate: (s) => s.id === id && s.name === 'Pyra' });
    const since = log.mark();
    py.send('move 160 140');
    await py.expect(/^Arrived at 160,140$/);
    await log.expectRecord('move', { predicate: (m) => m.id === id && m.moving, since });
    await log.expectRecord('move', { predicate: (m) => m.id === id && !m.moving, since });
    const seen = client.world.get(id)!;
    const drawn = client.world.positionAt(seen, client.serverNow() + 2000);
    expect(Math.hypot(drawn.x - 160, drawn.y - 140)).toBeLessThan(1);

    // Each hears the other.
    py.send('/say hello from python');
    await log.expect(ChatMessage, { predicate: (m) => m.fromId === id && m.text === 'hello from python' });
    client.say('hello from typescript');
    await py.expect(/^\[say\] Watcher: hello from typescript$/);

    // The Python client dead-reckons the TypeScript client to where it walked.
    await walkTo(watcher, { x: 130, y: 120 });
    await sleep(300);
    let mark = py.mark();
    py.send('look');
    const look = await py.expect(
      new RegExp(`^  Watcher \\(lvl 1, player #${watcher.entityId}\\) at ([\\d.]+),([\\d.]+) (\\w+)`),
      mark,
    );
    expect(Math.hypot(Number(look[1]) - 130, Number(look[2]) - 120)).toBeLessThan(1);
    expect(look[3]).toBe('standing');

    // Cut: it resumes where it stood, and the watcher never sees it leave.
    const beforeCut = log.mark();
    mark = py.mark();
    proxy.cut();
    await py.expect(/^Disconnected: /, mark);
    const resumed = await py.expect(/^Resumed in \d+ ms: at (\d+),(\d+)/, mark);
    console.log(`Python client: ${resumed[0]}`);
    expect([Number(resumed[1]), Number(resumed[2])]).toEqual([160, 140]);
    py.send('/say back again');
    await log.expect(ChatMessage, {
      predicate: (m) => m.fromId === id && m.text === 'back again',
      since: beforeCut,
    });
    py.send('move 170 140');
    await py.expect(/^Arrived at 170,140$/, mark);
    expect(log.records('despawn', (d) => d.id === id, beforeCut)).toEqual([]);

    // End of input: it logs out and leaves the world.
    py.endInput();
    expect(await py.exited).toBe(0);
    await log.expectRecord('despawn', {
      predicate: (d) => d.id === id && d.reason === 'left',
      since: beforeCut,
    });
  }, 60_000);
});
