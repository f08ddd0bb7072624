import { afterEach, describe, expect, it } from 'vitest';
import { WyvernClient } from '../../shared/client/client.js';
import { MemoryDeviceTokens } from '../../shared/client/device-tokens.js';
import { srpIdentity } from '../../shared/client/srp.js';
import { createMemoryTransportPair } from '../../shared/client/transport.js';
import { FakeServer } from './fake-server.js';

const clients: WyvernClient[] = [];

function setup(options: { queue?: number; forgeM2?: boolean } = {}) {
  const pair = createMemoryTransportPair();
  const server = new FakeServer(pair.server);
  const accounts = server.speakSrp(options);
  const client = new WyvernClient(pair.client);
  clients.push(client);
  return { client, server, accounts, wire: pair.client };
}

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

describe('SRP register and login against tssrp6a SRPServerSession', () => {
  it('registers with a salt and verifier, never the password', async () => {
    const { client, server, accounts, wire } = setup();
    await expect(client.register('Ayla_1', 'correct horse')).resolves.toEqual({ account: 'Ayla_1' });
    const register = server.received.find((r) => r.name === 'Register')!;
    expect(register.payload.salt.length).toBeGreaterThanOrEqual(60);
    expect(register.payload.salt.length).toBeLessThanOrEqual(64);
    expect(register.payload.verifier.length).toBeGreaterThan(200);
    const sent = Buffer.concat(wire.sent);
    expect(sent.includes(Buffer.from('correct horse'))).toBe(false);
    expect(accounts.has('ayla_1')).toBe(true);
  });

  it('logs in and checks the server proof', async () => {
    const { client } = setup();
    await client.register('Ayla', 'pw-123');
    const result = await client.login('Ayla', 'pw-123');
    expect(result.accountId).toBe(7);
    expect(result.account).toBe('ayla');
    expect(result.resumeToken).toHaveLength(32);
    expect(client.state).toBe('authenticated');
  });

  it('sends the remembered-device token it keeps for the account, and keeps the one LoginOk brings', async () => {
    const { client, server } = setup();
    await client.register('Ayla', 'pw-123');
    const devices = new MemoryDeviceTokens();
    const first = await client.login('Ayla', 'pw-123', { deviceTokens: devices });
    expect(first.deviceToken).toEqual(new Uint8Array(32).fill(4));
    expect(devices.get('AYLA')).toEqual(first.deviceToken);
    await client.login('ayla', 'pw-123', { deviceTokens: devices });
    const starts = server.received.filter((r) => r.name === 'LoginStart').map((r) => r.payload.deviceToken);
    expect(starts).toEqual([new Uint8Array(0), new Uint8Array(32).fill(4)]);
  });

  it('uses the lower-cased account as the identity', async () => {
    const { client } = setup();
    expect(srpIdentity('AyLa')).toBe('ayla');
    await client.register('AYLA', 'pw');
    await expect(client.login('ayla', 'pw')).resolves.toMatchObject({ account: 'ayla' });
  });

  it('rejects a wrong password with the server error in words', async () => {
    const { client } = setup();
    await client.register('Ayla', 'right');
    await expect(client.login('Ayla', 'wrong')).rejects.toMatchObject({
      code: 'ERR_BAD_LOGIN',
      message: 'Wrong account name or password.',
      fatal: false,
    });
    // The connection stays usable after a refused login.
    await expect(client.login('Ayla', 'right')).resolves.toMatchObject({ accountId: 7 });
  });

  it('reports its place in the login queue', async () => {
    const { client } = setup({ queue: 3 });
    await client.register('Ayla', 'pw');
    const updates: [number, number][] = [];
    await client.login('Ayla', 'pw', { onQueue: (p, n) => updates.push([p, n]) });
    expect(updates).toEqual([
      [3, 3],
      [2, 3],
      [1, 3],
    ]);
  });

  it('rejects a LoginOk whose M2 does not match and drops the connection', async () => {
    const { client } = setup({ forgeM2: true });
    await client.register('Ayla', 'pw');
    await expect(client.login('Ayla', 'pw')).rejects.toMatchObject({
      code: 'ERR_BAD_SERVER_PROOF',
      fatal: true,
    });
    expect(client.state).toBe('closed');
  });
});
