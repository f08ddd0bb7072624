/**
 * The command line: reads the configuration, starts this process's role (server/roles/:
 * `both`, `gateway` or `zone-host`), says where it listens, and stops it on SIGINT or SIGTERM.
 * The roles' start functions are exported here too, for the tests, benchmarks and tools that
 * run a server in their own process.
 *
 *   npx tsx server/main.ts [--http-port 8080] [--tcp-port 7777] ...   (see --help)
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ConfigError, configHelp, loadConfig, type Config } from './config.js';
import type { Logger } from './log.js';
import { installMemoryProbe } from './metrics/memory-probe.js';
import { startWyvern } from './roles/both.js';
import { startGateway } from './roles/gateway.js';
import { startZoneHost } from './roles/zone-host.js';

export { startServer, type ServerHandle, type ShutdownHook, type StartOptions } from './roles/front.js';
export { startGateway, type GatewayHandle } from './roles/gateway.js';
export { startZoneHost, type ZoneHostHandle } from './roles/zone-host.js';
export { startWyvern, type WyvernHandle } from './roles/both.js';
export { openBus } from './roles/common.js';
export { watchGateways } from './cluster/presence.js';

interface Running {
  readonly log: Logger;
  stop(): Promise<void>;
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      `Usage: tsx server/main.ts [options]\n\nOptions (flag / environment variable, default):\n${configHelp()}\n`,
    );
    return;
  }
  let config: Config;
  try {
    config = loadConfig(process.env, argv);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`wyvern: ${e.message}\n`);
    process.exit(1);
  }
  const running = config.role === 'zone-host' ? await runZoneHost(config) : await runFront(config);
  stopOnSignals(running, config);
}

/** The zone-host role, with its start line (and a line for each zone it takes over). */
async function runZoneHost(config: Config): Promise<Running> {
  const host = await startZoneHost(config, {
    // Written whatever LOG_LEVEL says, as the start line is: the moment a standby takes over.
    onTaken: (zone, httpPort) =>
      process.stdout.write(
        `\nWyvern zone host ${config.nodeId} is running zone ${zone} (taken over) over ${config.natsUrl}; /metrics and /healthz on HTTP port ${httpPort}.\n\n`,
      ),
  });
  const httpPort = host.httpPort;
  const zones = [...host.realm.zones.keys()];
  process.stdout.write(
    config.zoneStandby
      ? `\nWyvern zone host ${config.nodeId} is standing by for zones ${zones.join(', ')} over ${config.natsUrl} (each runs here once its host is gone); /metrics and /healthz on HTTP port ${httpPort}.\n\n`
      : `\nWyvern zone host ${config.nodeId} is running zones ${zones.join(', ')} over ${config.natsUrl}; /metrics and /healthz on HTTP port ${httpPort}.\n\n`,
  );
  return host;
}

/** The gateway role, or both roles in this one process, with the line for whoever typed npm start. */
async function runFront(config: Config): Promise<Running> {
  const server = config.role === 'gateway' ? await startGateway(config) : await startWyvern(config);
  // Off by default: only bench/memory.ts turns it on (an env var and an IPC channel).
  installMemoryProbe();
  // The log is JSON for machines; this line is for the person who just typed npm start.
  const what =
    config.role === 'gateway' ? `Wyvern gateway ${config.gatewayId} is running` : 'Wyvern is running';
  process.stdout.write(
    `\n${what}: open ${server.url} in a browser; native clients connect to TCP port ${server.tcpPort}.\n\n`,
  );
  return server;
}

/** The first SIGINT or SIGTERM stops gracefully; a second one, or a stop that hangs, exits at once. */
function stopOnSignals(server: Running, config: Config): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      server.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    server.log.info({ signal }, 'signal received');
    // A stop that hangs past its own timeouts must still end the process.
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs * 3).unref();
    server.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        server.log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    // A setting to change is said in one line; anything else with where it came from.
    const said = e instanceof ConfigError ? e.message : ((e as Error).stack ?? String(e));
    process.stderr.write(`wyvern: ${said}\n`);
    process.exit(1);
  });
}
