import { describe, expect, it } from 'vitest';
import { gatewaySocketUrls } from '../../web-client/src/net/connection.js';

const page = (href: string) => {
  const u = new URL(href);
  return { protocol: u.protocol, host: u.host, hostname: u.hostname, port: u.port };
};

describe('gateways to resume on', () => {
  it('is the page’s own socket alone for a single server', () => {
    expect(gatewaySocketUrls(page('http://localhost:8080/'), undefined)).toEqual(['ws://localhost:8080/ws']);
    expect(gatewaySocketUrls(page('https://game.example/'), { gateways: [] })).toEqual([
      'wss://game.example/ws',
    ]);
  });

  it('tries the page’s own gateway first, then the others: same machine by the page’s hostname', () => {
    const cluster = {
      gateways: [
        { id: 'gw-0', host: 'box-a', httpPort: 8080 },
        { id: 'gw-1', host: 'box-a', httpPort: 8081 },
        { id: 'gw-2', host: 'box-b.internal', httpPort: 8080 },
        { id: 'gw-3', host: 'box-c' },
      ],
    };
    expect(gatewaySocketUrls(page('http://127.0.0.1:8080/'), cluster)).toEqual([
      'ws://127.0.0.1:8080/ws',
      'ws://127.0.0.1:8081/ws',
      'ws://box-b.internal:8080/ws',
    ]);
    // From gw-1's page over https: its own first, wss everywhere.
    expect(gatewaySocketUrls(page('https://play.example:8081/'), cluster)).toEqual([
      'wss://play.example:8081/ws',
      'wss://play.example:8080/ws',
      'wss://box-b.internal:8080/ws',
    ]);
  });

  it('brackets an IPv6 host', () => {
    const cluster = {
      gateways: [
        { id: 'gw-0', host: 'a', httpPort: 80 },
        { id: 'gw-1', host: 'fd00::2', httpPort: 8081 },
      ],
    };
    expect(gatewaySocketUrls(page('http://a/'), cluster)).toEqual(['ws://a/ws', 'ws://[fd00::2]:8081/ws']);
  });
});
