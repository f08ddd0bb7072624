/** The HTTP side on both engines: static client with SPA fallback, /metrics, /healthz. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hello } from '../../shared/protocol/session.js';
import type { ServerHandle } from '../../server/main.js';
import { connectRaw, hello } from '../helpers/raw-client.js';
import { startTestServer, stopTestServers } from './harness.js';

let webRoot: string;

beforeAll(() => {
  webRoot = mkdtempSync(path.join(tmpdir(), 'wyvern-web-'));
  mkdirSync(path.join(webRoot, 'assets'));
  writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>Wyvern client</title>');
  writeFileSync(path.join(webRoot, 'assets', 'app-1234.js'), 'console.log("hi")');
  writeFileSync(path.join(webRoot, 'assets', 'style.css'), 'body{}');
});
afterAll(() => rmSync(webRoot, { recursive: true, force: true }));

describe.each(['uws', 'ws'] as const)('HTTP on %s', (engine) => {
  let server: ServerHandle;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({ WS_ENGINE: engine, WEB_ROOT: webRoot });
    base = `http://127.0.0.1:${server.httpPort}`;
  });
  afterAll(stopTestServers);

  it('serves index.html at /', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('Wyvern client');
  });

  it('serves assets with their content types', async () => {
    const js = await fetch(`${base}/assets/app-1234.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(await js.text()).toBe('console.log("hi")');
    const css = await fetch(`${base}/assets/style.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    await css.text();
  });

  it('falls back to index.html for client-side routes but not for missing assets', async () => {
    const route = await fetch(`${base}/characters/select`);
    expect(route.status).toBe(200);
    expect(await route.text()).toContain('Wyvern client');
    const missing = await fetch(`${base}/assets/missing.js`);
    expect(missing.status).toBe(404);
    await missing.text();
  });

  it('never serves files outside the web root', async () => {
    const res = await fetch(`${base}/..%2f..%2f..%2fetc%2fpasswd`);
    expect(await res.text()).not.toContain('root:');
  });

  it('answers /healthz with JSON status', async () => {
    const c = await connectRaw('tcp', server.tcpPort);
    c.send(Hello, hello());
    await c.waitFor('Welcome');
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = await res.json();
    expect(body).toMatchObject({
      status: 'ok',
      connections: 1,
      transports: { tcp: 1, ws: 0 },
      wsEngine: engine,
    });
    expect(typeof body.uptime).toBe('number');
    c.close();
  });

  it('answers /metrics with Prometheus text', async () => {
    const c = await connectRaw('ws', server.httpPort);
    c.send(Hello, hello());
    await c.waitFor('Welcome');
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    for (const name of [
      'wyvern_connections',
      'wyvern_frames_in_total',
      'wyvern_bytes_in_total',
      'wyvern_frames_out_total',
      'wyvern_bytes_out_total',
      'wyvern_decode_errors_total',
      'wyvern_dropped_packets_total',
      'wyvern_disconnects_total',
      'wyvern_send_queue_bytes',
      'wyvern_handler_seconds',
      'wyvern_login_results_total',
      'wyvern_store_save_seconds',
      'wyvern_tick_seconds',
      'process_cpu_seconds_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).toMatch(/wyvern_frames_in_total\{packet="Hello"\} \d+/);
    expect(text).toMatch(/wyvern_frames_out_total\{packet="Welcome"\} \d+/);
    expect(text).toMatch(/wyvern_connections\{transport="ws"\} [1-9]/);
    c.close();
  });
});

describe('HTTP without a built client', () => {
  afterAll(stopTestServers);

  it('says to run the build', async () => {
    const server = await startTestServer({ WEB_ROOT: path.join(tmpdir(), 'wyvern-no-such-dir') });
    const res = await fetch(`http://127.0.0.1:${server.httpPort}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('npm run build');
  });
});
