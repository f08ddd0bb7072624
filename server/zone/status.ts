/**
 * A zone host's HTTP listener: /metrics (this process's prom-client registry: tick, bus,
 * registry, move input delay) and /healthz (its role, id, zones and the cluster as the
 * registry shows it: 200 while its status is 'ok' (it runs zones) or 'standby' (it runs none
 * and waits to take over), 503 while it is starting or stopping, so a probe waits for its zones). Nothing else: a zone host serves no client. node:http is enough for
 * two small answers a scrape every few seconds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpRoutes } from '../transport/http.js';

export interface StatusListener {
  readonly port: number;
  close(): Promise<void>;
}

export async function listenStatus(options: {
  host: string;
  port: number;
  routes: Pick<HttpRoutes, 'metrics'> & { health(): { status: string } };
}): Promise<StatusListener> {
  const { routes } = options;
  const server: Server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    const answer = async (): Promise<void> => {
      if (path === '/metrics') {
        const { contentType, body } = await routes.metrics();
        res.writeHead(200, { 'content-type': contentType }).end(method === 'HEAD' ? undefined : body);
      } else if (path === '/healthz') {
        const health = routes.health();
        res
          .writeHead(health.status === 'ok' || health.status === 'standby' ? 200 : 503, {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'no-store',
          })
          .end(method === 'HEAD' ? undefined : JSON.stringify(health));
      } else {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end('a zone host serves /metrics and /healthz\n');
      }
    };
    answer().catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
