/** TLS on the TCP port and wss/https on the HTTP port, with a self-signed certificate made here. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hello, Ping } from '../../shared/protocol/session.js';
import { connectRaw, hello, type RawTransport } from '../helpers/raw-client.js';
import { portFor, startTestServer, stopTestServers } from './harness.js';

function makeCertificate(dir: string): { cert: string; key: string } | undefined {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    return { cert, key };
  } catch {
    return undefined;
  }
}

let dir: string;
let files: { cert: string; key: string } | undefined;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wyvern-tls-'));
  files = makeCertificate(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['uws', 'ws'] as const)('TLS with the %s engine', (engine) => {
  afterAll(stopTestServers);

  it.each(['tls', 'wss'] as const)('speaks the protocol over %s', async (transport: RawTransport) => {
    if (!files) return; // no openssl on this machine
    const server = await startTestServer({
      WS_ENGINE: engine,
      TLS_CERT_FILE: files.cert,
      TLS_KEY_FILE: files.key,
    });
    expect(server.url).toMatch(/^https:/);
    const c = await connectRaw(transport, portFor(server, transport));
    c.send(Hello, hello());
    await c.waitFor('Welcome');
    c.send(Ping, { seq: 9, clientTime: 0 });
    expect((await c.waitFor('Pong')).payload.seq).toBe(9);
    c.close();
  });
});
