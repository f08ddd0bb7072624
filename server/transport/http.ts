/**
 * The HTTP side, independent of the engine that serves it (uWebSockets.js or node:http):
 * the built browser client (with a single-page-app fallback to index.html), /metrics,
 * /healthz and, when it is on, the lab feed (/lab/feed). Each engine turns an HttpReply into its own response calls.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

export interface HttpRoutes {
  /** Prometheus text exposition. */
  metrics(): Promise<{ contentType: string; body: string }>;
  /** JSON for /healthz. */
  health(): object;
  /** /lab/feed (server/lab/feed.ts), when LAB_FEED is on. */
  lab?: ((query: URLSearchParams) => Promise<HttpReply>) | undefined;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.wav': 'audio/wav',
};

export function contentType(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Wyvern</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 4em auto">
<h1>Wyvern server is running</h1>
<p>The browser client has not been built. Run <code>npm run build</code>, then reload this page.</p>
<p>Status: <a href="/healthz">/healthz</a> &middot; Metrics: <a href="/metrics">/metrics</a></p>
</body></html>
`;

function text(status: number, body: string): HttpReply {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Serves files under `root`; paths that escape it are refused. */
export class StaticSite {
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  async serve(urlPath: string): Promise<HttpReply> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return text(400, 'bad path\n');
    }
    if (decoded.includes('\0')) return text(400, 'bad path\n');
    const file = path.resolve(this.root, '.' + path.posix.normalize('/' + decoded));
    if (file !== this.root && !file.startsWith(this.root + path.sep)) return text(403, 'forbidden\n');

    const index = path.join(this.root, 'index.html');
    if (await isFile(file)) return this.file(file);
    // A path with an extension is a missing asset; anything else is a client-side route.
    if (path.extname(decoded) !== '' && !decoded.endsWith('/')) return text(404, 'not found\n');
    if (await isFile(index)) return this.file(index);
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: NOT_BUILT_PAGE };
  }

  private async file(file: string): Promise<HttpReply> {
    const body = await readFile(file);
    // Vite puts content hashes in asset names, so those never change; index.html does.
    const immutable = file.includes(`${path.sep}assets${path.sep}`);
    return {
      status: 200,
      headers: {
        'content-type': contentType(file),
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      },
      body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
    };
  }
}

/** Answers one GET or HEAD request; any other method gets 405. */
export async function handleHttp(
  method: string,
  url: string,
  routes: HttpRoutes,
  site: StaticSite,
): Promise<HttpReply> {
  const m = method.toUpperCase();
  if (m !== 'GET' && m !== 'HEAD') {
    return { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain' }, body: '' };
  }
  const q = url.indexOf('?');
  const urlPath = q >= 0 ? url.slice(0, q) : url;
  try {
    if (urlPath === '/metrics') {
      const { contentType, body } = await routes.metrics();
      return { status: 200, headers: { 'content-type': contentType }, body };
    }
    if (urlPath === '/healthz') {
      return {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
        body: JSON.stringify(routes.health()),
      };
    }
    if (urlPath === '/ws') return text(426, 'this path takes WebSocket upgrades\n');
    if (urlPath === '/lab/feed') {
      if (!routes.lab) return text(404, 'the lab feed is off (LAB_FEED=off)\n');
      return await routes.lab(new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''));
    }
    return await site.serve(urlPath);
  } catch {
    return text(500, 'internal error\n');
  }
}

export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  426: 'Upgrade Required',
  503: 'Service Unavailable',
  500: 'Internal Server Error',
};
