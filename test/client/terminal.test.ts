import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TcpTransport } from '../../tools/net/tcp-transport.js';
import {
  CastSpell,
  ChatMessage,
  ChatSend,
  CombatEvent,
  Cooldown,
  EnterWorldRequest,
  LogoutRequest,
  MOB_ID_BASE,
  SpellGo,
  SpellStart,
  Who,
  WhoList,
  Whisper,
} from '../../shared/protocol/index.js';
import { FakeServer, moveRecord, spawnRecord, type SrpAccounts } from './fake-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WOLF = MOB_ID_BASE + 4;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A TCP server playing a small world: one wolf that dies to the first Fireball. With
 * `whisperOnEnter`, Bo whispers it to the character as it enters.
 */
async function worldServer(whisperOnEnter?: string): Promise<{ port: number; connections: FakeServer[] }> {
  const connections: FakeServer[] = [];
  const accounts: SrpAccounts = new Map();
  const server = net.createServer((socket) => {
    const fake = new FakeServer(new TcpTransport(socket)).speakSession();
    fake.speakSrp({ accounts });
    fake.speakCharacters();
    const enter = fake['handlers'].get(EnterWorldRequest.opcode)!;
    fake.handle(EnterWorldRequest, async (r) => {
      await enter(r);
      const t = fake.now();
      fake.update(
        [spawnRecord({ id: WOLF, health: 40, maxHealth: 40, speed: 90 }), moveRecord(WOLF, 812, 430)],
        t,
      );
      // It walks west and stops: an explicit stop, where it stands from then on.
      fake.update([moveRecord(WOLF, 810, 430, { moving: true, angle: Math.PI })], t + 1);
      fake.update([moveRecord(WOLF, 808, 430, { angle: Math.PI })], t + 2);
      // As the server sends a tick: the health in the WorldUpdate, then the combat event.
      fake.update([{ kind: 'health', id: 1, health: 95, maxHealth: 100 }], t + 3);
      fake.send(CombatEvent, {
        sourceId: WOLF,
        targetId: 1,
        spellId: 0,
        kind: 'damage',
        amount: 5,
        crit: false,
      });
      if (whisperOnEnter !== undefined)
        fake.send(ChatMessage, {
          channel: 'whisper',
          fromId: 2,
          from: 'Bo',
          to: 'Ayla',
          text: whisperOnEnter,
        });
    });
    fake.handle(CastSpell, (c) => {
      fake.send(SpellStart, { casterId: 1, spellId: c.spellId, targetId: c.targetId, castTime: 1500 });
      // As the server completes a cast: its cooldown starts, then it goes, in one write.
      socket.cork();
      fake.send(Cooldown, { spellId: c.spellId, remaining: 8000 });
      fake.send(SpellGo, { casterId: 1, spellId: c.spellId, targetId: c.targetId, travelTime: 100 });
      socket.uncork();
      // As the server sends a tick: one write, the WorldUpdate first, then the combat events.
      socket.cork();
      fake.update([
        { kind: 'health', id: c.targetId, health: 0, maxHealth: 40 },
        { kind: 'death', id: c.targetId, killerId: 1 },
      ]);
      fake.send(CombatEvent, {
        sourceId: 1,
        targetId: c.targetId,
        spellId: c.spellId,
        kind: 'damage',
        amount: 42,
        crit: true,
      });
      socket.uncork();
    });
    fake.handle(ChatSend, (c) =>
      fake.send(ChatMessage, { channel: c.channel, fromId: 1, from: 'Ayla', to: '', text: c.text }),
    );
    // The server echoes a delivered whisper to its sender.
    fake.handle(Whisper, (w) =>
      fake.send(ChatMessage, { channel: 'whisper', fromId: 1, from: 'Ayla', to: w.to, text: w.text }),
    );
    fake.handle(Who, () =>
      fake.send(WhoList, {
        total: 2,
        players: [
          { name: 'Ayla', level: 1, zone: 'meadow' },
          { name: 'Bo', level: 3, zone: 'meadow' },
        ],
      }),
    );
    connections.push(fake);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.close();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as net.AddressInfo).port, connections };
}

function runClient(
  args: string[],
  script: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/client.ts', ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(script);
  });
}

/** A world with a wall just east of the player (at 100,100) and a wolf behind it, and `more`. */
async function walledServer(
  more: { id: number; x: number; y: number }[],
  gone: number[] = [],
): Promise<number> {
  const accounts: SrpAccounts = new Map();
  const server = net.createServer((socket) => {
    const fake = new FakeServer(new TcpTransport(socket)).speakSession();
    fake.speakSrp({ accounts });
    fake.speakCharacters([], [{ x: 115, y: 40, w: 10, h: 120 }]);
    const enter = fake['handlers'].get(EnterWorldRequest.opcode)!;
    fake.handle(EnterWorldRequest, async (r) => {
      await enter(r);
      const mobs = [{ id: WOLF, x: 140, y: 100 }, ...more];
      fake.update(mobs.flatMap((m) => [spawnRecord({ id: m.id }), moveRecord(m.id, m.x, m.y)]));
      if (gone.length > 0)
        setTimeout(() => fake.update(gone.map((id) => ({ kind: 'despawn', id, reason: 'outOfRange' }))), 100);
    });
    cleanups.push(() => fake.close());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

/**
 * A busy view: six wolves come into view, two go at 100 ms, and the four left walk a step
 * every 100 ms for two seconds.
 */
async function busyServer(): Promise<number> {
  const accounts: SrpAccounts = new Map();
  const server = net.createServer((socket) => {
    const fake = new FakeServer(new TcpTransport(socket)).speakSession();
    fake.speakSrp({ accounts });
    fake.speakCharacters();
    const enter = fake['handlers'].get(EnterWorldRequest.opcode)!;
    fake.handle(EnterWorldRequest, async (r) => {
      await enter(r);
      const ids = [0, 1, 2, 3, 4, 5].map((i) => WOLF + i);
      fake.update(ids.flatMap((id, i) => [spawnRecord({ id }), moveRecord(id, 200 + 20 * i, 300)]));
      const timers = [
        setTimeout(
          () => fake.update(ids.slice(4).map((id) => ({ kind: 'despawn', id, reason: 'outOfRange' }))),
          100,
        ),
      ];
      for (let step = 1; step <= 20; step++) {
        timers.push(
          setTimeout(
            () =>
              fake.update(ids.slice(0, 4).map((id, i) => moveRecord(id, 200 + 20 * i + step, 300 + step))),
            100 + step * 100,
          ),
        );
      }
      cleanups.push(() => timers.forEach(clearTimeout));
    });
    cleanups.push(() => fake.close());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

/** A wolf that comes into view, and moves while the logout is under way. */
async function logoutMoverServer(): Promise<number> {
  const accounts: SrpAccounts = new Map();
  const server = net.createServer((socket) => {
    const fake = new FakeServer(new TcpTransport(socket)).speakSession();
    fake.speakSrp({ accounts });
    fake.speakCharacters();
    const enter = fake['handlers'].get(EnterWorldRequest.opcode)!;
    fake.handle(EnterWorldRequest, async (r) => {
      await enter(r);
      fake.update([spawnRecord({ id: WOLF }), moveRecord(WOLF, 200, 300)]);
    });
    const logout = fake['handlers'].get(LogoutRequest.opcode)!;
    fake.handle(LogoutRequest, async (r) => {
      fake.update([moveRecord(WOLF, 210, 300)]);
      await logout(r);
    });
    cleanups.push(() => fake.close());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

describe('terminal client', () => {
  it('registers, enters the world, runs a piped script and logs out', async () => {
    const { port, connections } = await worldServer();
    // The spawns follow EnterWorld: a script gives them a moment before looking around.
    const script = [
      'wait 300',
      'target nearest',
      'cast 1',
      '/say',
      '/say hello',
      '/w Bo psst',
      'help',
      'who',
      'move 110 100',
      'where',
      'dance',
      '',
    ].join('\n');
    const { code, stdout, stderr } = await runClient(
      ['--port', String(port), '--user', 'ayla', '--password', 'ayla-password', '--linger', '1100'],
      script,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const expected = [
      'Registered account ayla',
      'Logged in as ayla',
      'Created character Ayla',
      'Entered meadow as Ayla (lvl 1, player #1) at 100,100: 100/100 hp, 50/50 mana',
      'Spells: 1 Fireball (#1), 2 Heal (#2)',
      `Target: Grey Wolf (lvl 5, mob #${WOLF}) at 808,430, 781 away`,
      'You begin casting Fireball at Grey Wolf (1.5 s)',
      'You cast Fireball at Grey Wolf',
      'Your Fireball hits Grey Wolf for 42 (critical)',
      'Grey Wolf dies, killed by you',
      `Grey Wolf hits you for 5 (95/100 hp)`,
      'Nothing sent: /say needs something to say (/say TEXT).',
      '[say] Ayla: hello',
      '2 online: Ayla (lvl 1, meadow), Bo (lvl 3, meadow)',
      'Arrived at 110,100',
      'You are at 110,100 in meadow (95/100 hp, 50/50 mana, target Grey Wolf)',
      'Unknown command "dance" (type help)',
      'Logging out in 0.0 s...',
      'Logged out.',
    ];
    for (const line of expected) expect(lines, `missing: ${line}`).toContain(line);
    // What came into view and moved is told in the second's summary.
    expect(stdout).toContain(`Grey Wolf (lvl 5, mob #${WOLF}) appears at 812,430`);
    // A cast that went reads as done: its cooldown is no news until a cast is refused for it.
    expect(stdout).not.toMatch(/cooldown|not ready/);
    // The killing blow is told before the death it caused.
    expect(lines.indexOf('Your Fireball hits Grey Wolf for 42 (critical)')).toBeLessThan(
      lines.indexOf('Grey Wolf dies, killed by you'),
    );
    expect(lines.filter((l) => l === '[whisper to Bo] psst')).toHaveLength(1);
    expect(lines).toContain(
      '  cast N [TARGET_ID]   cast spell N (1-2 in your spell book, or a spell id) at the target',
    );
    expect(connections[0]!.received.filter((r) => r.name === 'ChatSend')).toHaveLength(1);
    const moves = connections[0]!.received.filter((r) => r.name === 'MoveInput').map((r) => r.payload);
    expect(moves.length).toBeGreaterThan(0);
    expect(moves.at(-1)).toMatchObject({ x: 110, y: 100 });
    expect(moves.map((m) => m.seq)).toEqual(moves.map((_, i) => i + 1));
  });

  it('answers the last whisper with /r, and says so when nobody has whispered yet', async () => {
    const args = (port: number) => ['--port', String(port), '--user', 'ayla', '--password', 'ayla-password'];
    const quiet = await worldServer();
    const early = await runClient(args(quiet.port), 'wait 200\n/r anyone?\n');
    expect(early.stdout).toContain('Nobody has whispered to you yet: /w name message.\n');
    expect(quiet.connections[0]!.received.some((r) => r.name === 'Whisper')).toBe(false);

    const busy = await worldServer('still there?');
    const { stdout } = await runClient(args(busy.port), 'wait 300\n/r on my way\n/reply\n/who\n');
    expect(stdout).toContain('[whisper from Bo] still there?\n');
    expect(stdout).toContain('[whisper to Bo] on my way\n');
    expect(stdout).toContain('Reply to Bo with /r message.\n');
    expect(stdout).toContain('2 online: Ayla (lvl 1, meadow), Bo (lvl 3, meadow)\n');
    const whispers = busy.connections[0]!.received.filter((r) => r.name === 'Whisper').map((r) => r.payload);
    expect(whispers).toEqual([{ to: 'Bo', text: 'on my way' }]);
  });

  it('refuses to register an account with a short password, before sending anything', async () => {
    const { port, connections } = await worldServer();
    const { code, stderr } = await runClient(
      ['--port', String(port), '--user', 'shorty', '--password', 'abc'],
      '',
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/Choose a password of at least 8 characters/);
    expect(connections[0]!.received.some((r) => r.name === 'Register')).toBe(false);
  });

  it('exits non-zero with the reason in words when the login is refused', async () => {
    const { port } = await worldServer();
    const first = await runClient(
      ['--port', String(port), '--user', 'bobby', '--password', 'right-password', '--register'],
      '',
    );
    expect(first.code).toBe(0);
    const { code, stderr } = await runClient(
      ['--port', String(port), '--user', 'bobby', '--password', 'wrong-password'],
      '',
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/Wrong account name or password\. \(ERR_BAD_LOGIN/);
  });

  it('targets the nearest mob in sight, and says so when every mob is behind a wall', async () => {
    const args = (port: number, user: string) => [
      '--port',
      String(port),
      '--user',
      user,
      '--password',
      `${user}-password`,
    ];
    const open = await walledServer([{ id: WOLF + 1, x: 100, y: 180 }]);
    const a = await runClient(args(open, 'ayla'), 'wait 300\ntarget nearest\n');
    expect(a.stdout).toContain(`Target: Grey Wolf (lvl 5, mob #${WOLF + 1}) at 100,180, 80 away\n`);
    const walled = await walledServer([]);
    const b = await runClient(args(walled, 'brin'), 'wait 300\ntarget nearest\n');
    expect(b.stdout).toContain(
      `Target: Grey Wolf (lvl 5, mob #${WOLF}) at 140,100, 40 away (behind a wall: a 165-unit walk)\n`,
    );
  });

  it('walks toward the target until its spells reach it', async () => {
    const port = await walledServer([{ id: WOLF + 1, x: 100, y: 400 }]);
    const { stdout } = await runClient(
      ['--port', String(port), '--user', 'dana', '--password', 'dana-password'],
      'wait 300\nmove target\ntarget nearest\nmove target\nmove target\n',
    );
    expect(stdout).toContain('No target (target nearest, or target ID).\n');
    // The spell book's one range is 300: it stops 240 short of the wolf, 300 away.
    expect(stdout).toContain('Walking to 100,160\nArrived at 100,160\n');
    expect(stdout).toContain(`Grey Wolf (lvl 5, mob #${WOLF + 1}) is within reach, 240 away.\n`);
  });

  it('names which mob of a pack leaves view', async () => {
    const port = await walledServer([{ id: WOLF + 1, x: 100, y: 180 }], [WOLF + 1]);
    const { stdout } = await runClient(
      ['--port', String(port), '--user', 'cato', '--password', 'cato-password'],
      'wait 400\n',
    );
    expect(stdout).toContain(`Grey Wolf (mob #${WOLF + 1}) leaves view\n`);
  });

  it('sums up what comes, goes and moves in view at most once a second, and says each with --verbose', async () => {
    const args = (port: number, user: string) => [
      '--port',
      String(port),
      '--user',
      user,
      '--password',
      `${user}-password`,
    ];
    const viewLine = /appear|leave view|leaves view|moved|walks on from|stands at/;
    const quiet = await runClient(args(await busyServer(), 'quinn'), 'wait 2600\n');
    expect(quiet.code).toBe(0);
    const summaries = quiet.stdout.split('\n').filter((l) => viewLine.test(l));
    // 2.6 s of a busy view and the last lines on the way out: a line a second.
    expect(summaries.length, quiet.stdout).toBeGreaterThanOrEqual(2);
    expect(summaries.length, quiet.stdout).toBeLessThanOrEqual(4);
    const names = [0, 1, 2, 3].map((i) => `Grey Wolf (mob #${WOLF + i}) at ${200 + 20 * i},300`).join(', ');
    expect(quiet.stdout).toContain(`6 appear: ${names} and 2 more`);
    expect(quiet.stdout).toContain(
      `2 leave view: Grey Wolf (mob #${WOLF + 4}), Grey Wolf (mob #${WOLF + 5})`,
    );
    expect(quiet.stdout).toContain('4 entities moved');
    expect(quiet.stdout).not.toMatch(/walks on from|stands at/);

    const verbose = await runClient([...args(await busyServer(), 'vera'), '--verbose'], 'wait 2600\n');
    expect(verbose.code).toBe(0);
    const lines = verbose.stdout.split('\n');
    for (let i = 0; i < 6; i++) {
      expect(lines).toContain(`Grey Wolf (lvl 5, mob #${WOLF + i}) appears at ${200 + 20 * i},300`);
    }
    expect(lines).toContain(`Grey Wolf (mob #${WOLF + 4}) leaves view`);
    expect(lines).toContain(`Grey Wolf (mob #${WOLF + 5}) leaves view`);
    expect(lines).toContain(`Grey Wolf (mob #${WOLF}) stands at 220,320`);
    expect(lines.filter((l) => / stands at /.test(l)).length).toBeGreaterThanOrEqual(40);
    expect(verbose.stdout).not.toMatch(/entities moved|\d appear:/);
  });

  it('says nothing after "Logged out." (what moved during the logout is not summed up)', async () => {
    const port = await logoutMoverServer();
    const run = await runClient(
      ['--port', String(port), '--user', 'lola', '--password', 'lola-password'],
      'wait 1200\n',
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.at(-1), run.stdout).toBe('Logged out.');
  });
});
