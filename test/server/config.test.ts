import { describe, expect, it } from 'vitest';
import { CONFIG_OPTIONS, ConfigError, configHelp, loadConfig } from '../../server/config.js';

describe('loadConfig', () => {
  it('gives the documented defaults with an empty environment', () => {
    const c = loadConfig({}, []);
    expect(c).toMatchObject({
      host: '0.0.0.0',
      httpPort: 8080,
      tcpPort: 7777,
      databaseUrl: 'sqlite:var/wyvern.db',
      wsEngine: 'auto',
      tickRate: 20,
      logLevel: 'info',
      sendSoftLimit: 65536,
      sendHardLimit: 1048576,
      maxFrameSize: 65535,
      handshakeTimeoutMs: 10000,
      maxConnections: 10000,
      maxConnectionsPerIp: 1000,
      autosaveIntervalMs: 30000,
      dataDir: 'data',
      interestRadius: 250,
      tlsCertFile: undefined,
    });
    expect(c.rates.move).toEqual({ perSecond: 30, burst: 60 });
  });

  it('runs both roles in one process unless told otherwise', () => {
    const c = loadConfig({}, []);
    expect(c).toMatchObject({ role: 'both', gatewayId: 'local', zones: undefined, natsUrl: undefined });
  });

  it('reads a cluster role, its id, its zones and the NATS address', () => {
    const c = loadConfig({ ROLE: 'zone-host', NODE_ID: 'zh-1', ZONES: 'Greenvale, Ashfield' }, [
      '--nats-url',
      'nats://10.0.0.5:4222,nats://10.0.0.6:4222',
    ]);
    expect(c).toMatchObject({
      role: 'zone-host',
      nodeId: 'zh-1',
      natsUrl: 'nats://10.0.0.5:4222,nats://10.0.0.6:4222',
    });
    expect(c.zones).toEqual(['Greenvale', 'Ashfield']);
    expect(
      loadConfig({ NATS_URL: 'nats://127.0.0.1:4222' }, ['--role', 'gateway', '--gateway-id', 'gw-2']),
    ).toMatchObject({
      role: 'gateway',
      gatewayId: 'gw-2',
    });
  });

  it('refuses a cluster role without NATS_URL, and ids that cannot be subject tokens', () => {
    expect(() => loadConfig({ ROLE: 'gateway' }, [])).toThrow(/ROLE=gateway: expected NATS_URL/);
    expect(() => loadConfig({ GATEWAY_ID: 'gw.1' }, [])).toThrow(ConfigError);
    expect(() => loadConfig({ ROLE: 'router' }, [])).toThrow(/ROLE=router/);
    expect(() => loadConfig({ NATS_URL: 'http://x' }, [])).toThrow(/NATS_URL/);
  });

  it('returns a frozen object', () => {
    const c = loadConfig({}, []);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.rates)).toBe(true);
  });

  it('reads environment variables', () => {
    const c = loadConfig({ TCP_PORT: '9000', WS_ENGINE: 'ws', RATE_CHAT: '1.5', SERVER_NAME: 'Test' }, []);
    expect(c.tcpPort).toBe(9000);
    expect(c.wsEngine).toBe('ws');
    expect(c.rates.chat.perSecond).toBe(1.5);
    expect(c.serverName).toBe('Test');
  });

  it('lets flags override the environment, in both flag forms', () => {
    const c = loadConfig({ HTTP_PORT: '9000', TCP_PORT: '9001' }, ['--http-port', '8081', '--tcp-port=8082']);
    expect(c.httpPort).toBe(8081);
    expect(c.tcpPort).toBe(8082);
  });

  it('names the variable and the value when a value is bad', () => {
    expect(() => loadConfig({ TCP_PORT: 'abc' }, [])).toThrow(ConfigError);
    expect(() => loadConfig({ TCP_PORT: 'abc' }, [])).toThrow(
      'TCP_PORT=abc: expected an integer port 0-65535',
    );
    expect(() => loadConfig({ HTTP_PORT: '70000' }, [])).toThrow(/^HTTP_PORT=70000: /);
    expect(() => loadConfig({ WS_ENGINE: 'fast' }, [])).toThrow(
      /WS_ENGINE=fast: expected one of auto, uws, ws/,
    );
    expect(() => loadConfig({ TICK_RATE: '2.5' }, [])).toThrow(/TICK_RATE=2\.5/);
    expect(() => loadConfig({ RATE_MOVE: '-1' }, [])).toThrow(/RATE_MOVE=-1/);
  });

  it('names the flag when a flag value is bad', () => {
    expect(() => loadConfig({}, ['--tcp-port', 'x'])).toThrow(/^--tcp-port=x: /);
  });

  it('refuses unknown flags and flags without a value', () => {
    expect(() => loadConfig({}, ['--nope', '1'])).toThrow(/unknown option --nope/);
    expect(() => loadConfig({}, ['--tcp-port'])).toThrow(/--tcp-port: expected a value/);
  });

  it('refuses a certificate without a key and a soft limit above the hard limit', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: 'cert.pem' }, [])).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE/);
    expect(() => loadConfig({ SEND_SOFT_LIMIT: '10', SEND_HARD_LIMIT: '5' }, [])).toThrow(
      /SEND_SOFT_LIMIT=10/,
    );
  });

  it('refuses a server name longer than Welcome can carry', () => {
    expect(() => loadConfig({ SERVER_NAME: 'x'.repeat(33) }, [])).toThrow(
      /SERVER_NAME=x+: expected at most 32 bytes/,
    );
  });

  it('documents every option with a flag derived from its variable', () => {
    for (const o of CONFIG_OPTIONS) {
      expect(o.flag).toBe(`--${o.env.toLowerCase().replaceAll('_', '-')}`);
      expect(o.description.length).toBeGreaterThan(0);
    }
    expect(configHelp()).toContain('--http-port / HTTP_PORT');
  });
});
