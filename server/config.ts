/**
 * Server configuration: every setting has an environment variable and a CLI flag
 * (`--http-port 8081` or `--http-port=8081`; a flag wins over the variable). Values are
 * validated once, here, into one frozen object; a bad value is a ConfigError that names the
 * variable and the value, so a typo never becomes a silent default.
 */
import type { RateClass } from '../shared/protocol/define.js';

export const WS_ENGINES = ['auto', 'uws', 'ws'] as const;
export type WsEngineChoice = (typeof WS_ENGINES)[number];

/** Which parts of the game this process runs (docs/CLUSTER.md). */
export const ROLES = ['both', 'gateway', 'zone-host'] as const;
export type ServerRole = (typeof ROLES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface RateLimit {
  /** Tokens added per second. */
  readonly perSecond: number;
  /** Bucket size: how many packets may arrive at once. */
  readonly burst: number;
}

export interface Config {
  readonly host: string;
  readonly httpPort: number;
  readonly tcpPort: number;
  readonly databaseUrl: string;
  readonly wsEngine: WsEngineChoice;
  /** Serve /lab/feed (server/lab/feed.ts): the true positions around a character, for the lab page. */
  readonly labFeed: boolean;
  readonly tickRate: number;
  readonly logLevel: LogLevel;
  readonly sendSoftLimit: number;
  readonly sendHardLimit: number;
  readonly maxFrameSize: number;
  readonly wsMaxMessageSize: number;
  readonly handshakeTimeoutMs: number;
  readonly loginTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerIp: number;
  /** IPv6 addresses count as one address per prefix of this many bits (per-address limits). */
  readonly ipv6PrefixBits: number;
  readonly rates: Readonly<Record<RateClass, RateLimit>>;
  readonly tlsCertFile: string | undefined;
  readonly tlsKeyFile: string | undefined;
  readonly serverName: string;
  readonly autosaveIntervalMs: number;
  /** How long a character stays in the world after its connection drops. */
  readonly lingerMs: number;
  /** ...and at least this long after its last combat action (dealt or took damage). */
  readonly combatLingerMs: number;
  readonly dataDir: string;
  readonly webRoot: string;
  readonly interestRadius: number;
  /** Hex; undefined: kept in a file beside the database (see server/secret.ts). */
  readonly secret: string | undefined;
  /** undefined: cores - 1, at least 1. */
  readonly srpWorkers: number | undefined;
  readonly loginFailuresPerAccount: number;
  readonly loginFailuresPerIp: number;
  readonly loginLockAddresses: number;
  /** both: one process, both roles (the default); gateway or zone-host: one role of a cluster. */
  readonly role: ServerRole;
  /** This gateway's id on the bus and in the registry (a subject token). */
  readonly gatewayId: string;
  /** This zone host's id on the bus and in the registry (a subject token). */
  readonly nodeId: string;
  /** The zones a zone host runs, by name; undefined: every zone in the world data. */
  readonly zones: readonly string[] | undefined;
  /** nats://host:port[,nats://...]; undefined: the roles talk in process (role both only). */
  readonly natsUrl: string | undefined;
  /** How long a dead process's registry entries (node, zone claims) outlive it; one value per cluster. */
  readonly leaseTtlMs: number;
  /** A zone host waits for zones another host holds and takes them when that host's claim lapses. */
  readonly zoneStandby: boolean;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Parse = (raw: string) => unknown;

export interface ConfigOption {
  /** Environment variable. */
  readonly env: string;
  /** CLI flag, `--kebab-case`. */
  readonly flag: string;
  /** Default as it would be written in the environment; undefined means unset. */
  readonly default: string | undefined;
  readonly description: string;
}

interface OptionSpec extends ConfigOption {
  readonly parse: Parse;
}

function integer(min: number, max: number, what = 'an integer'): Parse {
  return (raw) => {
    const trimmed = raw.trim();
    const v = /^-?\d+$/.test(trimmed) ? Number(trimmed) : NaN;
    if (!Number.isSafeInteger(v) || v < min || v > max) throw new Error(`expected ${what} ${min}-${max}`);
    return v;
  };
}

function positiveNumber(raw: string): number {
  const v = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(v) || v <= 0) throw new Error('expected a number above 0');
  return v;
}

function oneOf<T extends string>(values: readonly T[]): Parse {
  return (raw) => {
    const v = raw.trim().toLowerCase();
    if (!(values as readonly string[]).includes(v)) throw new Error(`expected one of ${values.join(', ')}`);
    return v;
  };
}

function text(maxBytes = 4096): Parse {
  return (raw) => {
    if (raw.length === 0) throw new Error('expected a non-empty value');
    if (new TextEncoder().encode(raw).length > maxBytes)
      throw new Error(`expected at most ${maxBytes} bytes`);
    return raw;
  };
}

const port = integer(0, 65535, 'an integer port');

function onOff(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new Error('expected on or off');
}

const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

function token(raw: string): string {
  const v = raw.trim();
  if (!TOKEN.test(v)) throw new Error('expected 1-64 of A-Z a-z 0-9 _ -');
  return v;
}

function list(raw: string): string[] {
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new Error('expected a comma-separated list');
  return items;
}

function natsUrls(raw: string): string {
  for (const url of list(raw)) {
    if (!/^(nats|tls):\/\/[^\s/]+$/.test(url)) throw new Error('expected nats://host:port (comma-separated)');
  }
  return raw.trim();
}

function hexSecret(raw: string): string {
  const v = raw.trim();
  if (!/^[0-9a-fA-F]{32,}$/.test(v) || v.length % 2 !== 0) {
    throw new Error('expected an even number (32 or more) of hex digits');
  }
  return v.toLowerCase();
}
const MAX_INT = Number.MAX_SAFE_INTEGER;

function option(
  key: string,
  env: string,
  def: string | undefined,
  parse: Parse,
  description: string,
): [string, OptionSpec] {
  const flag = `--${env.toLowerCase().replaceAll('_', '-')}`;
  return [key, { env, flag, default: def, parse, description }];
}

const specs = new Map<string, OptionSpec>([
  option('host', 'HOST', '0.0.0.0', text(255), 'Address the TCP and HTTP listeners bind to.'),
  option(
    'httpPort',
    'HTTP_PORT',
    '8080',
    port,
    'HTTP port: browser client, /ws, /metrics, /healthz (0 = any); a zone host serves only /metrics and /healthz.',
  ),
  option('tcpPort', 'TCP_PORT', '7777', port, 'Raw TCP protocol port (0 = any).'),
  option('databaseUrl', 'DATABASE_URL', 'sqlite:var/wyvern.db', text(), 'sqlite:PATH or postgres://... URL.'),
  option(
    'wsEngine',
    'WS_ENGINE',
    'auto',
    oneOf(WS_ENGINES),
    'WebSocket engine: auto (uws if its native build loads), uws or ws.',
  ),
  option('tickRate', 'TICK_RATE', '20', integer(1, 255), 'World ticks per second.'),
  option(
    'logLevel',
    'LOG_LEVEL',
    'info',
    oneOf(LOG_LEVELS),
    'fatal, error, warn, info, debug, trace or silent.',
  ),
  option(
    'sendSoftLimit',
    'SEND_SOFT_LIMIT',
    '65536',
    integer(1, MAX_INT),
    'Buffered bytes per client above which droppable packets are skipped.',
  ),
  option(
    'sendHardLimit',
    'SEND_HARD_LIMIT',
    '1048576',
    integer(1, MAX_INT),
    'Buffered bytes per client above which it is disconnected (slow consumer).',
  ),
  option(
    'maxFrameSize',
    'MAX_FRAME_SIZE',
    '65535',
    integer(6, 65535),
    'Largest frame accepted from a client, header included.',
  ),
  option(
    'wsMaxMessageSize',
    'WS_MAX_MESSAGE_SIZE',
    '262144',
    integer(6, 64 * 1024 * 1024),
    'Largest WebSocket message once logged in; before login, what the login packets need.',
  ),
  option(
    'handshakeTimeoutMs',
    'HANDSHAKE_TIMEOUT_MS',
    '10000',
    integer(1, MAX_INT),
    'A connection that sends no Hello within this time is closed.',
  ),
  option(
    'loginTimeoutMs',
    'LOGIN_TIMEOUT_MS',
    '30000',
    integer(1, MAX_INT),
    'A connection not logged in this long after connecting is closed (time its login waits on the server aside).',
  ),
  option(
    'idleTimeoutMs',
    'IDLE_TIMEOUT_MS',
    '60000',
    integer(1, MAX_INT),
    'A logged-in connection that sends nothing (not even Ping) for this long is closed.',
  ),
  option(
    'shutdownTimeoutMs',
    'SHUTDOWN_TIMEOUT_MS',
    '5000',
    integer(1, MAX_INT),
    'How long shutdown waits for save hooks and for sockets to close.',
  ),
  option(
    'maxConnections',
    'MAX_CONNECTIONS',
    '10000',
    integer(1, MAX_INT),
    'Connections accepted at once, all transports together.',
  ),
  option(
    'maxConnectionsPerIp',
    'MAX_CONNECTIONS_PER_IP',
    '1000',
    integer(1, MAX_INT),
    'Connections accepted at once from one address.',
  ),
  option(
    'ipv6PrefixBits',
    'IPV6_PREFIX_BITS',
    '64',
    integer(16, 128),
    'Per-address limits (connections, failed logins) count an IPv6 address by this prefix: one /64 is one address (a host can pick any address in its /64). IPv4 counts whole.',
  ),
  option(
    'rateDefault',
    'RATE_DEFAULT',
    '20',
    positiveNumber,
    'Packets per second for packets of the default rate class.',
  ),
  option(
    'rateDefaultBurst',
    'RATE_DEFAULT_BURST',
    '40',
    integer(1, MAX_INT),
    'Burst for the default rate class.',
  ),
  option('rateMove', 'RATE_MOVE', '30', positiveNumber, 'Movement packets per second.'),
  option('rateMoveBurst', 'RATE_MOVE_BURST', '60', integer(1, MAX_INT), 'Burst for movement packets.'),
  option('rateChat', 'RATE_CHAT', '3', positiveNumber, 'Chat packets (say, whisper, who) per second.'),
  option('rateChatBurst', 'RATE_CHAT_BURST', '8', integer(1, MAX_INT), 'Burst for chat packets.'),
  option(
    'rateAuth',
    'RATE_AUTH',
    '5',
    positiveNumber,
    'Account packets (register, login, resume) per second.',
  ),
  option('rateAuthBurst', 'RATE_AUTH_BURST', '10', integer(1, MAX_INT), 'Burst for account packets.'),
  option(
    'tlsCertFile',
    'TLS_CERT_FILE',
    undefined,
    text(),
    'PEM certificate: with TLS_KEY_FILE, TCP speaks TLS and HTTP serves https/wss.',
  ),
  option('tlsKeyFile', 'TLS_KEY_FILE', undefined, text(), 'PEM private key for TLS_CERT_FILE.'),
  option(
    'serverName',
    'SERVER_NAME',
    'Wyvern',
    text(32),
    'Name sent to clients in Welcome (at most 32 bytes).',
  ),
  option(
    'autosaveIntervalMs',
    'AUTOSAVE_INTERVAL_MS',
    '30000',
    integer(1, MAX_INT),
    'How often online characters are saved.',
  ),
  option(
    'lingerMs',
    'LINGER_MS',
    '5000',
    integer(0, MAX_INT),
    'A character whose connection drops stays in the world this long (Resume takes it back), then is saved and leaves.',
  ),
  option(
    'combatLingerMs',
    'COMBAT_LINGER_MS',
    '20000',
    integer(0, MAX_INT),
    'A dropped character stays at least this long after its last combat action (dealt or took damage).',
  ),
  option('dataDir', 'DATA_DIR', 'data', text(), 'World data directory (zones, mobs, spells).'),
  option('webRoot', 'WEB_ROOT', 'web-client/dist', text(), 'Built browser client served over HTTP.'),
  option(
    'labFeed',
    'LAB_FEED',
    'on',
    onOff,
    'Serve /lab/feed: the true positions around a named character, for the netcode lab page (turn off in production).',
  ),
  option(
    'interestRadius',
    'INTEREST_RADIUS',
    '250',
    positiveNumber,
    'Distance within which a client sees entities.',
  ),
  option(
    'secret',
    'WYVERN_SECRET',
    undefined,
    hexSecret,
    'Server secret (hex, 32+ digits) for unknown-account SRP salts; default: generated once into var/server-secret.',
  ),
  option(
    'srpWorkers',
    'SRP_WORKERS',
    undefined,
    integer(1, 64),
    'Worker threads for SRP login math (default: cores - 1, at least 1).',
  ),
  option(
    'loginFailuresPerAccount',
    'LOGIN_FAILURES_PER_ACCOUNT',
    '5',
    integer(1, 1_000_000),
    'Failed logins per minute for one account from one address before that address gets ERR_LOGIN_THROTTLED for it.',
  ),
  option(
    'loginFailuresPerIp',
    'LOGIN_FAILURES_PER_IP',
    '20',
    integer(1, 1_000_000),
    'Failed logins per minute from one address, over all accounts, before it gets ERR_LOGIN_THROTTLED.',
  ),
  option(
    'role',
    'ROLE',
    'both',
    oneOf(ROLES),
    'both (one process: gateway and zone host over an in-process bus), gateway or zone-host (one role of a cluster, over NATS_URL).',
  ),
  option(
    'gatewayId',
    'GATEWAY_ID',
    'local',
    token,
    "A gateway's id on the bus and in the registry (unique in a cluster).",
  ),
  option(
    'nodeId',
    'NODE_ID',
    'zone-host',
    token,
    "A zone host's id on the bus and in the registry (unique in a cluster).",
  ),
  option('zones', 'ZONES', undefined, list, 'Zones a zone host runs, comma-separated (default: every zone).'),
  option(
    'natsUrl',
    'NATS_URL',
    undefined,
    natsUrls,
    'nats://host:port of the cluster (required for ROLE gateway and zone-host).',
  ),
  option(
    'leaseTtlMs',
    'LEASE_TTL_MS',
    '10000',
    integer(100, MAX_INT),
    "How long a killed process's registry entries outlive it, so how soon the others react (the same in every process of a cluster).",
  ),
  option(
    'zoneStandby',
    'ZONE_STANDBY',
    'off',
    onOff,
    'A zone host waits for zones another host holds, and runs them once that host is gone (instead of refusing to start).',
  ),
  option(
    'loginLockAddresses',
    'LOGIN_LOCK_ADDRESSES',
    '10',
    integer(1, 1_000_000),
    'Addresses failing to log in to one account within a minute before it is locked for every device that never logged in to it (a remembered-device token lets the owner in).',
  ),
]);

/** Every setting, for `--help` and the README. */
export const CONFIG_OPTIONS: readonly ConfigOption[] = [...specs.values()].map(
  ({ env, flag, default: def, description }) => Object.freeze({ env, flag, default: def, description }),
);

/**
 * Reads settings from `env` and `argv` (flags win). Throws ConfigError on an unknown flag,
 * a flag without a value or any value that does not validate.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  argv: readonly string[] = process.argv.slice(2),
): Config {
  const config = assemble(readValues(readFlags(argv), env));
  checkTogether(config);
  return Object.freeze(config);
}

/** Each option given on the command line, by its spec (`--flag value` or `--flag=value`). */
function readFlags(argv: readonly string[]): Map<OptionSpec, string> {
  const byFlag = new Map([...specs.values()].map((s) => [s.flag, s]));
  const fromFlags = new Map<OptionSpec, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const spec = byFlag.get(name);
    if (!spec) throw new ConfigError(`unknown option ${name} (see --help)`);
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined) throw new ConfigError(`${spec.flag}: expected a value`);
    fromFlags.set(spec, value);
  }
  return fromFlags;
}

/** Every option parsed from its flag, else its variable, else its default; a bad value names where it came from. */
function readValues(
  fromFlags: ReadonlyMap<OptionSpec, string>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, spec] of specs) {
    const flagValue = fromFlags.get(spec);
    const envValue = env[spec.env];
    const [source, raw] =
      flagValue !== undefined
        ? [spec.flag, flagValue]
        : envValue !== undefined && envValue !== ''
          ? [spec.env, envValue]
          : [spec.env, spec.default];
    if (raw === undefined) {
      values[key] = undefined;
      continue;
    }
    try {
      values[key] = spec.parse(raw);
    } catch (e) {
      throw new ConfigError(`${source}=${raw}: ${(e as Error).message}`);
    }
  }
  return values;
}

/** The parsed values as a Config. */
function assemble(values: Record<string, unknown>): Config {
  const v = values as Record<string, any>;
  return {
    host: v.host,
    httpPort: v.httpPort,
    tcpPort: v.tcpPort,
    databaseUrl: v.databaseUrl,
    wsEngine: v.wsEngine,
    labFeed: v.labFeed,
    tickRate: v.tickRate,
    logLevel: v.logLevel,
    sendSoftLimit: v.sendSoftLimit,
    sendHardLimit: v.sendHardLimit,
    maxFrameSize: v.maxFrameSize,
    wsMaxMessageSize: v.wsMaxMessageSize,
    handshakeTimeoutMs: v.handshakeTimeoutMs,
    loginTimeoutMs: v.loginTimeoutMs,
    idleTimeoutMs: v.idleTimeoutMs,
    shutdownTimeoutMs: v.shutdownTimeoutMs,
    maxConnections: v.maxConnections,
    maxConnectionsPerIp: v.maxConnectionsPerIp,
    ipv6PrefixBits: v.ipv6PrefixBits,
    rates: Object.freeze({
      default: Object.freeze({ perSecond: v.rateDefault, burst: v.rateDefaultBurst }),
      move: Object.freeze({ perSecond: v.rateMove, burst: v.rateMoveBurst }),
      chat: Object.freeze({ perSecond: v.rateChat, burst: v.rateChatBurst }),
      auth: Object.freeze({ perSecond: v.rateAuth, burst: v.rateAuthBurst }),
    }),
    tlsCertFile: v.tlsCertFile,
    tlsKeyFile: v.tlsKeyFile,
    serverName: v.serverName,
    autosaveIntervalMs: v.autosaveIntervalMs,
    lingerMs: v.lingerMs,
    combatLingerMs: v.combatLingerMs,
    dataDir: v.dataDir,
    webRoot: v.webRoot,
    interestRadius: v.interestRadius,
    secret: v.secret,
    srpWorkers: v.srpWorkers,
    loginFailuresPerAccount: v.loginFailuresPerAccount,
    loginFailuresPerIp: v.loginFailuresPerIp,
    loginLockAddresses: v.loginLockAddresses,
    role: v.role,
    gatewayId: v.gatewayId,
    nodeId: v.nodeId,
    zones: v.zones === undefined ? undefined : Object.freeze([...(v.zones as string[])]),
    natsUrl: v.natsUrl,
    leaseTtlMs: v.leaseTtlMs,
    zoneStandby: v.zoneStandby,
  };
}

/** Settings that must agree with each other. */
function checkTogether(config: Config): void {
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE: set both or neither');
  }
  if (config.sendSoftLimit > config.sendHardLimit) {
    throw new ConfigError(
      `SEND_SOFT_LIMIT=${config.sendSoftLimit}: expected at most SEND_HARD_LIMIT (${config.sendHardLimit})`,
    );
  }
  if (config.wsMaxMessageSize < config.maxFrameSize) {
    throw new ConfigError(
      `WS_MAX_MESSAGE_SIZE=${config.wsMaxMessageSize}: expected at least MAX_FRAME_SIZE (${config.maxFrameSize})`,
    );
  }
  if (config.role !== 'both' && config.natsUrl === undefined) {
    throw new ConfigError(`ROLE=${config.role}: expected NATS_URL (the roles of a cluster talk over NATS)`);
  }
}

/** The settings as a table, for `--help`. */
export function configHelp(): string {
  const rows = CONFIG_OPTIONS.map((o) => [`${o.flag} / ${o.env}`, o.default ?? '(unset)', o.description]);
  const w0 = Math.max(...rows.map((r) => r[0]!.length));
  const w1 = Math.max(...rows.map((r) => r[1]!.length));
  return rows.map(([a, b, c]) => `  ${a!.padEnd(w0)}  ${b!.padEnd(w1)}  ${c}`).join('\n');
}
