/**
 * A zone host started while another host runs its zone, as an operator meets it: a killed
 * host started again with the command line `npm run cluster` printed, after a standby took its
 * zone over. It is refused (a zone runs on one host at a time) in one line naming the host
 * that runs the zone and how to wait for it instead (ZONE_STANDBY=on), with no stack trace,
 * and the host that runs the zone carries on.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clusterDatabase, type ClusterDatabase } from './database.js';
import { ROOT, startRole, TEST_DATA, type RoleProcess } from './roles.js';
import { describeWithNats } from './with-nats.js';

describeWithNats('a zone host whose zone another host runs', (nats) => {
  let dir: string;
  let database: ClusterDatabase;
  let common: Record<string, string>;
  let running: RoleProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wyvern-zone-taken-'));
    database = await clusterDatabase(dir);
    common = {
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      DATABASE_URL: database.url,
      DATA_DIR: TEST_DATA,
      LOG_LEVEL: 'warn',
      SRP_WORKERS: '1',
      SHUTDOWN_TIMEOUT_MS: '2000',
      WYVERN_SECRET: '00112233445566778899aabbccddeeff',
      NATS_URL: nats().url,
      ROLE: 'zone-host',
    };
    running = await startRole({ ...common, NODE_ID: 'zh-s0' }, /zone host zh-s0 is running/);
  }, 90_000);

  afterAll(async () => {
    await running?.stop();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is refused in one line that names the running host and ZONE_STANDBY, and the zone runs on', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...common, NODE_ID: 'zh-0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    proc.stdout.resume();
    const killer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    clearTimeout(killer);

    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wyvern: zone \S+ is run by zone host zh-s0\b/);
    expect(lines[0]).toContain('ZONE_STANDBY=on');
    expect(stderr).not.toMatch(/^\s+at /m);
    // The host that runs it was not disturbed.
    expect(running!.proc.exitCode).toBeNull();
    expect(running!.lines.some((l) => /another zone host took this zone over/.test(l))).toBe(false);
  }, 90_000);
});
