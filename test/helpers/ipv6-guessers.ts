/**
 * Run inside a network namespace whose loopback holds the addresses given on the command line
 * (test/integration/ipv6.test.ts makes it): the whole server (startWyvern, listening on ::) and
 * its clients, in one process. The owner registers from OWNER, each guesser address tries one
 * wrong password for the owner's account on a fresh connection, then the owner logs in. Prints
 * one JSON line: { guesses: [code per guesser], owner: code }.
 *
 *   node --import tsx test/helpers/ipv6-guessers.ts DATA_DIR OWNER GUESSER...
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WyvernClient } from '../../shared/client/client.js';
import { WyvernError } from '../../shared/client/errors.js';
import { loadConfig } from '../../server/config.js';
import { startWyvern } from '../../server/main.js';
import { TcpTransport } from '../../tools/net/tcp-transport.js';

const [dataDir, owner, ...guessers] = process.argv.slice(2);
if (!dataDir || !owner || guessers.length === 0) {
  process.stderr.write('usage: ipv6-guessers.ts DATA_DIR OWNER GUESSER...\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'wyvern-ipv6-'));
const server = await startWyvern(
  loadConfig(
    {
      HOST: '::',
      HTTP_PORT: '0',
      TCP_PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'wyvern.db')}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      LAB_FEED: 'off',
      SRP_WORKERS: '1',
    },
    [],
  ),
);

async function clientFrom(localAddress: string): Promise<WyvernClient> {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect({ host: owner, port: server.tcpPort, localAddress }, () => resolve(s));
    s.once('error', reject);
  });
  const client = new WyvernClient(new TcpTransport(socket), { requestTimeoutMs: 20_000 });
  await client.hello({ clientKind: 'bot', clientName: 'ipv6-guessers' });
  return client;
}

async function login(from: string, password: string): Promise<string> {
  const client = await clientFrom(from);
  try {
    await client.login('ipv6_owner', password);
    return 'OK';
  } catch (err) {
    if (!(err instanceof WyvernError)) throw err;
    return err.code;
  } finally {
    client.close();
  }
}

try {
  const first = await clientFrom(owner);
  await first.register('ipv6_owner', 'the right password');
  first.close();
  const guesses: string[] = [];
  for (const [i, from] of guessers.entries()) guesses.push(await login(from, `guess ${i}`));
  const result = { guesses, owner: await login(owner, 'the right password') };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
