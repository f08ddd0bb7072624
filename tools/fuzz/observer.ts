/**
 * The fuzz run's observer, in a process of its own so that the fuzzer's work (SRP logins,
 * case generation) never delays its pings: logs in over TCP from 127.0.0.1, enters the world
 * and pings every 100 ms, writing one JSON line per answer on stdout
 * ({"at": epoch ms, "ms": round trip}) and {"failed": 1} per ping that got none. Stops on
 * SIGTERM or when its stdin closes, and says {"alive": bool} last.
 *
 *   tsx tools/fuzz/observer.ts TCP_PORT ACCOUNT
 */
import { WyvernClient } from '../../shared/client/client.js';
import { TcpTransport } from '../net/tcp-transport.js';

const port = Number(process.argv[2]);
const account = process.argv[3] ?? 'fuzzobserver';
const password = 'fuzz observer password';
let stopped = false;
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

const client = new WyvernClient(await TcpTransport.connect({ host: '127.0.0.1', port }), {
  requestTimeoutMs: 10_000,
});
client.onError = () => {};
await client.hello({ clientKind: 'bot', clientName: 'fuzz observer' });
await client.register(account, password);
await client.login(account, password);
const character = await client.createCharacter('Watcher', 1);
await client.enterWorld(character.id);
say({ ready: true });

const stop = () => (stopped = true);
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();

while (!stopped && !client.closeReason) {
  const started = performance.now();
  try {
    await client.ping();
    say({ at: Date.now(), ms: performance.now() - started });
  } catch {
    say({ failed: 1 });
  }
  await new Promise((r) => setTimeout(r, 100));
}
say({ alive: !client.closeReason });
client.close();
process.exit(0);
