/**
 * The cluster of the border and fault tests, started as separate processes over a real
 * nats-server: two zones meeting at x = 600 (test/helpers/border.ts), Westmark on zone host
 * zh-w and Eastmark on zh-e, optionally a standby for every zone (zh-s), then the gateways;
 * one database and one data dir for all of them, in a temp dir of their own. `stop` takes it
 * down gateways first, then the zone hosts (which save everyone), and removes what it made.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { twoZoneData } from '../helpers/border.js';
import { clusterDatabase, type ClusterDatabase } from './database.js';
import { clusterEnv, GATEWAY_UP, spawnRole, startRole, zoneHostUp, type RoleProcess } from './roles.js';

export type Zone = 'Westmark' | 'Eastmark';

/** A role that said it is up, with the captures of the line it said it in. */
export type ReadyRole = RoleProcess & { ready: RegExpExecArray };

export interface TwoZoneOptions {
  /** Names the temp dir (`wyvern-<name>-...`). */
  readonly name: string;
  readonly natsUrl: string;
  /** LOG_LEVEL of every role (the standby's is always info: it says it stands by there). */
  readonly logLevel: string;
  /** Gateway ids, started together once the zone hosts run. */
  readonly gateways: readonly string[];
  /** A standby zone host for every zone (ZONE_STANDBY=on), on an HTTP port of its own. */
  readonly standby?: boolean;
  /** More settings for every role (lease TTL, linger, autosave...). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface TwoZoneCluster {
  /** Every role in the order started: the zone hosts, the standby, the gateways. */
  readonly roles: readonly RoleProcess[];
  readonly hosts: Readonly<Record<Zone, ReadyRole>>;
  /** Each zone host's /metrics and /healthz port. */
  readonly hostHttp: Readonly<Record<Zone, number>>;
  /** The standby and its HTTP port, when asked for. */
  readonly standby: RoleProcess | undefined;
  readonly standbyHttp: number | undefined;
  readonly gateways: readonly ReadyRole[];
  /** Where a client reaches each gateway, in the order of `options.gateways`. */
  readonly ports: readonly { httpPort: number; tcpPort: number }[];
  /** Stops every role still running, drops the database and removes the dirs. */
  stop(): Promise<void>;
}

/** A zone host's up line, with its HTTP port. */
const hostUp = (id: string) => new RegExp(`${zoneHostUp(id).source} .*HTTP port (\\d+)\\.`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts the cluster and waits until every role is up. Should a role fail to come up, what
 * started is stopped and removed before the error is thrown.
 */
export async function startTwoZoneCluster(options: TwoZoneOptions): Promise<TwoZoneCluster> {
  const dir = mkdtempSync(join(tmpdir(), `wyvern-${options.name}-`));
  const dataDir = twoZoneData();
  const roles: RoleProcess[] = [];
  let database: ClusterDatabase | undefined;
  const stop = async () => {
    for (const r of [...roles].reverse()) await r.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    database = await clusterDatabase(dir);
    const common = clusterEnv(
      { databaseUrl: database.url, dataDir, natsUrl: options.natsUrl, logLevel: options.logLevel },
      options.env,
    );
    const zoneHost = async (id: string, zone: Zone): Promise<ReadyRole> => {
      const role = await startRole({ ...common, ROLE: 'zone-host', NODE_ID: id, ZONES: zone }, hostUp(id));
      roles.push(role);
      return role;
    };
    // One after the other: the first makes the database.
    const hosts = {
      Westmark: await zoneHost('zh-w', 'Westmark'),
      Eastmark: await zoneHost('zh-e', 'Eastmark'),
    };
    const standby = options.standby ? await startStandby(common, roles) : undefined;
    const started = await Promise.allSettled(
      options.gateways.map((id) => startRole({ ...common, ROLE: 'gateway', GATEWAY_ID: id }, GATEWAY_UP)),
    );
    const gateways = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    roles.push(...gateways);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    return {
      roles,
      hosts,
      hostHttp: { Westmark: Number(hosts.Westmark.ready[1]), Eastmark: Number(hosts.Eastmark.ready[1]) },
      standby: standby?.role,
      standbyHttp: standby?.httpPort,
      gateways,
      ports: gateways.map((r) => ({ httpPort: Number(r.ready[1]), tcpPort: Number(r.ready[2]) })),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The standby, on its own HTTP port, up once it says it stands by (at info level). */
async function startStandby(
  common: Record<string, string>,
  roles: RoleProcess[],
): Promise<{ role: RoleProcess; httpPort: number }> {
  const httpPort = await freePort();
  const role = spawnRole(
    {
      ...common,
      ROLE: 'zone-host',
      NODE_ID: 'zh-s',
      ZONE_STANDBY: 'on',
      HTTP_PORT: String(httpPort),
      LOG_LEVEL: 'info',
    },
    /standing by/,
  );
  roles.push(role);
  await role.up;
  return { role, httpPort };
}
