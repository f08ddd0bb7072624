/**
 * A zone host that stalls past its claim (SIGSTOP, as a long pause or a partition would) while
 * a standby takes its zone, over a real nats-server: when it wakes it must not run the zone
 * beside the standby. It stops the zone at once (its claim is no longer held), drops what it
 * had of it when it finds the claim taken, saves nothing of its stale players, and stands by
 * to claim the zone again, which it does when the other host dies.
 *
 * What a player would lose without this: the woken host goes on autosaving the character
 * where it stood before the stall, over the saves of the host it now plays on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EnterWorld, ErrorPacket } from '../../shared/protocol/index.js';
import { sleep, startGameClient, walkTo, type GameClient } from '../helpers/game-client.js';
import { clusterDatabase, type ClusterDatabase } from './database.js';
import { clusterEnv, GATEWAY_UP, spawnRole, startRole, TEST_DATA, type RoleProcess } from './roles.js';
import { describeWithNats } from './with-nats.js';

const LEASE_TTL_MS = 3000;
const AUTOSAVE_MS = 300;
const LINGER_MS = 300;

const near = (a: number, b: number): boolean => Math.abs(a - b) < 0.5;
const zoneDown = (e: { code: string }) => e.code === 'ERR_ZONE_DOWN';

// The story's cases, in order.
const TAKEN = 'a standby takes the stalled host’s zone and enters the player from its save';
const WOKEN = 'the woken host stops the zone at once, and drops it on finding its claim taken';
const SAVES = 'the woken host saves nothing over the standby’s saves of the player';
const BACK = 'the host that lost the zone takes it back when the standby dies, and runs it';

describeWithNats('fencing: a zone host woken after its zone was taken does not run it too', (nats) => {
  let dir: string;
  let database: ClusterDatabase | undefined;
  let common: Record<string, string>;
  const roles: RoleProcess[] = [];
  let gateway: { tcpPort: number; httpPort: number };
  const clients: GameClient[] = [];
  /** zh-a, which stalls, and zh-b, its standby. */
  let first: RoleProcess;
  let firstHttp: number;
  let standby: RoleProcess;
  /** The player: where it was saved before zh-a stalled, and where it then walked on zh-b. */
  let p: GameClient;
  let before: { x: number; y: number };
  let after: { x: number; y: number };
  /** P's log as zh-a woke: nothing from then on may stop P or enter it again. */
  let woke: number;
  /** P logged in again, once it left the standby's world. */
  let again: GameClient;
  /** The cases that passed, by name. */
  const passed = new Set<string>();

  const zoneHost = (id: string, env: Record<string, string> = {}): RoleProcess => {
    const up = new RegExp(`zone host ${id} is running .*HTTP port (\\d+)\\.`);
    const role = spawnRole({ ...common, ROLE: 'zone-host', NODE_ID: id, ...env }, up);
    roles.push(role);
    return role;
  };

  const claimEvents = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`http://127.0.0.1:${firstHttp}/metrics`)).text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^wyvern_zone_claim_events_total\{event="(\w+)"\} (\d+)/gm))
      out[m[1]!] = Number(m[2]);
    return out;
  };
  const health = async () =>
    (await (await fetch(`http://127.0.0.1:${firstHttp}/healthz`)).json()) as {
      zones: string[];
      players: number;
    };

  /**
   * One case of the story, run once the cases whose outcome it builds on have passed; else
   * skipped, naming the one that did not. A case that fails leaves the others it does not
   * build on to run and report.
   */
  const step = (name: string, needs: string[], timeoutMs: number, body: () => Promise<void>): void => {
    it(
      name,
      async (ctx) => {
        const missing = needs.find((n) => !passed.has(n));
        if (missing) ctx.skip(`it builds on "${missing}", which did not pass`);
        await body();
        passed.add(name);
      },
      timeoutMs,
    );
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-fencing-'));
    database = await clusterDatabase(dir);
    common = clusterEnv(
      { databaseUrl: database.url, dataDir: TEST_DATA, natsUrl: nats().url, logLevel: 'warn' },
      {
        LEASE_TTL_MS: String(LEASE_TTL_MS),
        LINGER_MS: String(LINGER_MS),
        COMBAT_LINGER_MS: '0',
        AUTOSAVE_INTERVAL_MS: String(AUTOSAVE_MS),
      },
    );
    first = zoneHost('zh-a');
    firstHttp = Number((await first.up)[1]);
    standby = zoneHost('zh-b', { ZONE_STANDBY: 'on', LOG_LEVEL: 'info' });
    await standby.waitFor(/standing by/);
    const gw = await startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: 'a' }, GATEWAY_UP);
    roles.push(gw);
    gateway = { httpPort: Number(gw.ready[1]), tcpPort: Number(gw.ready[2]) };

    p = await startGameClient(gateway, { transport: 'tcp', name: 'Fencepia' });
    clients.push(p);
    before = { x: p.client.world.self!.x + 12, y: p.client.world.self!.y };
    await walkTo(p, before);
    await sleep(AUTOSAVE_MS * 4);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    for (const r of roles) if (r.proc.signalCode === null) r.proc.kill('SIGCONT');
    await Promise.all(roles.map((r) => r.stop()));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  step(TAKEN, [], 45_000, async () => {
    const since = p.log.mark();
    first.proc.kill('SIGSTOP');
    // P walks on before the gateway knows: its inputs wait in NATS for the stalled host, which
    // would apply them when it wakes, though the standby enters P where it was last saved.
    for (let i = 1; i <= 10; i++) {
      p.client.sendMove(before.x + 12 * i, before.y, 0, i < 10, 120);
      await sleep(100);
    }
    await p.log.expect(ErrorPacket, { since, predicate: zoneDown, timeoutMs: LEASE_TTL_MS * 4 });
    await standby.up;
    const entered = await p.log.expect(EnterWorld, { since, timeoutMs: 20_000 });
    expect(near(entered.x, before.x) && near(entered.y, before.y)).toBe(true);
  });

  step(WOKEN, [TAKEN], 20_000, async () => {
    const lines = first.lines.length;
    woke = p.log.mark();
    first.proc.kill('SIGCONT');
    await first.waitFor(/zone lost to another host/, { since: lines, timeoutMs: LEASE_TTL_MS * 3 });
    expect(first.lines.slice(lines).some((l) => /zone claim not held/.test(l))).toBe(true);
    expect(await health()).toMatchObject({ zones: [], players: 0 });
    expect(await claimEvents()).toEqual({ stopped: 1, lost: 1 });
  });

  step(SAVES, [TAKEN], 30_000, async () => {
    // P walks on the standby; long enough after for several of zh-a's autosaves, were it
    // still saving its copy of P where P stood before the stall.
    after = { x: p.client.world.self!.x, y: p.client.world.self!.y + 12 };
    await walkTo(p, after);
    await sleep(AUTOSAVE_MS * 6);
    expect(p.log.all(ErrorPacket, () => true, woke)).toEqual([]);
    expect(p.log.all(EnterWorld, () => true, woke)).toEqual([]);
    p.close();
    // Its character lingers, leaves and is saved by the standby; a new login reads that save.
    await sleep(LINGER_MS + AUTOSAVE_MS * 4);
    again = await startGameClient(gateway, { transport: 'ws', name: 'Fencepia', existing: true });
    clients.push(again);
    expect(near(again.entered.enter.x, after.x) && near(again.entered.enter.y, after.y)).toBe(true);
  });

  step(BACK, [SAVES], 50_000, async () => {
    const since = again.log.mark();
    const taken = first.lines.length;
    await standby.kill();
    await again.log.expect(ErrorPacket, { since, predicate: zoneDown, timeoutMs: LEASE_TTL_MS * 4 });
    const back = await again.log.expect(EnterWorld, { since, timeoutMs: LEASE_TTL_MS * 6 });
    expect(near(back.x, after.x) && near(back.y, after.y)).toBe(true);
    expect(first.lines.slice(taken).some((l) => /zone claim held again/.test(l))).toBe(true);
    expect(await health()).toMatchObject({ zones: ['testvale'], players: 1 });
    const moved = { x: again.client.world.self!.x - 6, y: again.client.world.self!.y };
    await walkTo(again, moved);
    expect(first.proc.exitCode ?? first.proc.signalCode).toBeNull();
  });
});
