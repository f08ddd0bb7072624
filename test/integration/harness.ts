/** Starts real servers on 127.0.0.1 with ephemeral ports, quiet logs, and stops them all. */
import { loadConfig } from '../../server/config.js';
import { startServer, type ServerHandle, type StartOptions } from '../../server/main.js';

const running: ServerHandle[] = [];

export async function startTestServer(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<ServerHandle> {
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      LOG_LEVEL: 'silent',
      SHUTDOWN_TIMEOUT_MS: '2000',
      ...env,
    },
    [],
  );
  const server = await startServer(config, options);
  running.push(server);
  return server;
}

/** For afterEach/afterAll: stops every server started here. */
export async function stopTestServers(): Promise<void> {
  await Promise.all(running.splice(0).map((s) => s.stop()));
}

/** The port a raw client of this transport should use. */
export function portFor(server: ServerHandle, transport: 'tcp' | 'tls' | 'ws' | 'wss'): number {
  return transport === 'tcp' || transport === 'tls' ? server.tcpPort : server.httpPort;
}
