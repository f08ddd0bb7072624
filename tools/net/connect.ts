/**
 * One way for Node programs (terminal client, bots, tests) to reach a server:
 *
 *   127.0.0.1:7777, tcp://host:port      raw TCP
 *   tls://host:port                      TCP over TLS
 *   ws://host:8080/ws, wss://host/ws     WebSocket (the ws package)
 *
 * `transport` forces the kind when the address does not say it (host:port over ws means
 * ws://host:port/ws). A cluster's gateways are several addresses, comma-separated:
 * `connectAny` opens the first that answers, and each later call starts from the one that
 * last worked (a gateway that died is passed over for the next).
 */
import WebSocket from 'ws';
import { WyvernClient, type WyvernClientOptions } from '../../shared/client/client.js';
import { failover } from '../../shared/client/reconnect.js';
import type { ByteTransport } from '../../shared/client/transport.js';
import { WebSocketTransport } from '../../shared/client/websocket-transport.js';
import { TcpTransport } from './tcp-transport.js';

export type TransportKind = 'tcp' | 'ws';

export interface ConnectOptions {
  transport?: TransportKind;
  timeoutMs?: number;
}

export interface ParsedAddress {
  kind: TransportKind;
  /** For ws: the whole URL. */
  url: string;
  host: string;
  port: number;
  tls: boolean;
}

const DEFAULT_WS_PATH = '/ws';

export function parseAddress(address: string, transport?: TransportKind): ParsedAddress {
  const scheme = /^([a-z]+):\/\//i.exec(address)?.[1]?.toLowerCase();
  if (scheme === 'ws' || scheme === 'wss') {
    if (transport === 'tcp') throw new Error(`${address} is a WebSocket address, not TCP`);
    const url = new URL(address);
    const port = Number(url.port || (scheme === 'wss' ? 443 : 80));
    return { kind: 'ws', url: url.toString(), host: url.hostname, port, tls: scheme === 'wss' };
  }
  if (scheme !== undefined && scheme !== 'tcp' && scheme !== 'tls') {
    throw new Error(`unknown address scheme ${scheme}:// (use tcp://, tls://, ws:// or wss://)`);
  }
  const rest = scheme ? address.slice(scheme.length + 3) : address;
  const m = /^\[?([^\]]+?)\]?:(\d+)\/?$/.exec(rest);
  if (!m) throw new Error(`cannot read "${address}": expected host:port`);
  const host = m[1]!;
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`bad port in "${address}"`);
  const tls = scheme === 'tls';
  if (transport === 'ws') {
    const hostPart = host.includes(':') ? `[${host}]` : host;
    return {
      kind: 'ws',
      url: `${tls ? 'wss' : 'ws'}://${hostPart}:${port}${DEFAULT_WS_PATH}`,
      host,
      port,
      tls,
    };
  }
  return { kind: 'tcp', url: `${tls ? 'tls' : 'tcp'}://${host}:${port}`, host, port, tls };
}

/** Opens a transport to a server address. */
export async function connect(address: string, options: ConnectOptions = {}): Promise<ByteTransport> {
  const parsed = parseAddress(address, options.transport);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (parsed.kind === 'ws') {
    return WebSocketTransport.connect(parsed.url, WebSocket, { timeoutMs });
  }
  return TcpTransport.connect({ host: parsed.host, port: parsed.port, tls: parsed.tls, timeoutMs });
}

/** Opens a transport and wraps it in a WyvernClient. */
export async function connectClient(
  address: string,
  options: ConnectOptions & WyvernClientOptions = {},
): Promise<WyvernClient> {
  return new WyvernClient(await connect(address, options), options);
}

/** "a:7777, b:7777" -> ["a:7777", "b:7777"] (each checked by parseAddress). */
export function parseAddressList(list: string, transport?: TransportKind): string[] {
  const addresses = list
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (addresses.length === 0) throw new Error('expected one or more addresses, comma-separated');
  for (const a of addresses) parseAddress(a, transport);
  return addresses;
}

/** A `connect` over several addresses (a cluster's gateways): see failover in shared/client. */
export function connectAny(
  addresses: readonly string[],
  options: ConnectOptions = {},
): () => Promise<ByteTransport> {
  return failover(addresses.map((a) => () => connect(a, options)));
}
