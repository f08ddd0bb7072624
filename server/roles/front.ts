/**
 * The network front every gateway has: the dispatcher behind the TCP and HTTP/WebSocket
 * listeners, /metrics and /healthz, and the graceful stop. `startServer` is used by the
 * gateway role and by the integration tests (port 0 binds an ephemeral port; the handle
 * reports the ports actually bound).
 */
import type { Config } from '../config.js';
import { Dispatcher, LOGIN_MESSAGE_SIZE } from '../dispatch/dispatcher.js';
import { noWorldRouter, type GameRouter } from '../dispatch/router.js';
import type { LabFeed } from '../lab/feed.js';
import { createLogger, type Logger } from '../log.js';
import { metricsText, sendObserver, trackSendQueues } from '../metrics/index.js';
import { composeHandlers, type SessionHandlers } from '../session/handlers.js';
import { handshakeHandlers } from '../session/handshake.js';
import type { ConnectionOptions } from '../transport/connection.js';
import { FlushScheduler } from '../transport/flush.js';
import { StaticSite } from '../transport/http.js';
import { listenTcp, type TcpListener, type TlsFiles } from '../transport/tcp.js';
import { listenHttp, type HttpServerHandle, type WsEngine } from '../transport/web.js';

export interface StartOptions {
  /** Defaults to a pino logger at the configured level. */
  readonly log?: Logger;
  /** Handler modules added to the handshake's (accounts, characters, ...). */
  readonly handlers?: readonly SessionHandlers[];
  /** Where zone and world packets go; until a world exists, they are refused. */
  readonly router?: GameRouter;
  /** Serves /lab/feed (only when config.labFeed is on). */
  readonly labFeed?: LabFeed;
  /** More for /healthz (the role, the cluster). */
  readonly health?: () => object;
}

export type ShutdownHook = () => void | Promise<void>;

export interface ServerHandle {
  readonly config: Config;
  readonly tcpPort: number;
  readonly httpPort: number;
  readonly wsEngine: WsEngine;
  readonly tls: boolean;
  /** The browser client's address on this machine. */
  readonly url: string;
  readonly dispatcher: Dispatcher;
  /** The world tick calls `scheduler.flushAll()` at its end. */
  readonly scheduler: FlushScheduler;
  readonly log: Logger;
  /** Runs during shutdown after clients got Bye and before sockets close (e.g. a final save). */
  onShutdown(name: string, hook: ShutdownHook): void;
  /**
   * Graceful stop: stop accepting, answer requests in flight with ERR_SHUTDOWN, Bye to all,
   * hooks, flush, close. Safe to call twice.
   */
  stop(): Promise<void>;
}

/** What a running front is made of, for its stop. */
interface Front {
  readonly config: Config;
  readonly log: Logger;
  readonly dispatcher: Dispatcher;
  readonly scheduler: FlushScheduler;
  readonly tcp: TcpListener;
  readonly http: HttpServerHandle;
  readonly hooks: readonly { name: string; hook: ShutdownHook }[];
  readonly labFeed: LabFeed | undefined;
  readonly untrack: () => void;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<ServerHandle> {
  const log = options.log ?? createLogger(config.logLevel);
  const handlers = composeHandlers(
    handshakeHandlers({ serverName: config.serverName, tickRate: config.tickRate }),
    ...(options.handlers ?? []),
  );
  const dispatcher = new Dispatcher({ config, handlers, router: options.router ?? noWorldRouter, log });
  const scheduler = new FlushScheduler();
  const untrack = trackSendQueues(() => [...dispatcher.sessions.values()].map((s) => s.conn));
  let stopping: Promise<void> | undefined;
  /** The WebSocket engine, once HTTP listens. */
  const bound: { engine?: WsEngine } = {};
  const health = frontHealth(dispatcher, bound, () => stopping !== undefined, options.health);
  let listening: { tcp: TcpListener; http: HttpServerHandle };
  try {
    listening = await listen(config, log, dispatcher, scheduler, health, options.labFeed);
  } catch (e) {
    untrack();
    throw e;
  }
  const { tcp, http } = listening;
  bound.engine = http.engine;
  const hooks: { name: string; hook: ShutdownHook }[] = [];
  const tls = tlsFiles(config) !== undefined;
  const url = `${tls ? 'https' : 'http'}://localhost:${http.port}/`;
  log.info(
    { http: http.port, tcp: tcp.port, wsEngine: http.engine, tls },
    `Wyvern is up: open ${url} in a browser; native clients connect to TCP port ${tcp.port}`,
  );
  const front: Front = {
    config,
    log,
    dispatcher,
    scheduler,
    tcp,
    http,
    hooks,
    labFeed: options.labFeed,
    untrack,
  };
  return {
    config,
    tcpPort: tcp.port,
    httpPort: http.port,
    wsEngine: http.engine,
    tls,
    url,
    dispatcher,
    scheduler,
    log,
    onShutdown(name, hook) {
      hooks.push({ name, hook });
    },
    stop() {
      return (stopping ??= stopFront(front));
    },
  };
}

/** What /healthz says of the front: up or stopping, since when, its connections by transport. */
function frontHealth(
  dispatcher: Dispatcher,
  bound: { engine?: WsEngine },
  stopping: () => boolean,
  more: (() => object) | undefined,
): () => object {
  const startedAt = Date.now();
  return () => {
    const byTransport = { tcp: 0, ws: 0 };
    for (const s of dispatcher.sessions.values()) byTransport[s.conn.transport]++;
    return {
      status: stopping() ? 'stopping' : 'ok',
      uptime: Math.round((Date.now() - startedAt) / 1000),
      connections: dispatcher.sessions.size,
      transports: byTransport,
      wsEngine: bound.engine,
      ...more?.(),
    };
  };
}

function tlsFiles(config: Config): TlsFiles | undefined {
  return config.tlsCertFile !== undefined && config.tlsKeyFile !== undefined
    ? { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile }
    : undefined;
}

/** Binds TCP, then HTTP and WebSocket (closing TCP again when HTTP fails). */
async function listen(
  config: Config,
  log: Logger,
  dispatcher: Dispatcher,
  scheduler: FlushScheduler,
  health: () => object,
  labFeed: LabFeed | undefined,
): Promise<{ tcp: TcpListener; http: HttpServerHandle }> {
  const connection: ConnectionOptions = {
    limits: { softLimit: config.sendSoftLimit, hardLimit: config.sendHardLimit },
    scheduler,
    observer: sendObserver,
  };
  const tls = tlsFiles(config);
  const tcp = await listenTcp({
    host: config.host,
    port: config.tcpPort,
    tls,
    listener: dispatcher,
    connection,
  });
  try {
    const started = await listenHttp(config.wsEngine, {
      host: config.host,
      port: config.httpPort,
      tls,
      listener: dispatcher,
      connection,
      routes: {
        metrics: metricsText,
        health,
        lab: config.labFeed && labFeed ? (q) => labFeed.request(q) : undefined,
      },
      site: new StaticSite(config.webRoot),
      maxMessageSize: config.wsMaxMessageSize,
      loginMessageSize: Math.min(config.wsMaxMessageSize, LOGIN_MESSAGE_SIZE),
    });
    if (started.note) log.warn(started.note);
    return { tcp, http: started.handle };
  } catch (e) {
    await tcp.close();
    throw e;
  }
}

async function stopFront(f: Front): Promise<void> {
  const { config, log, dispatcher, scheduler } = f;
  log.info('shutting down');
  dispatcher.stopAccepting();
  f.tcp.stopAccepting();
  f.http.stopAccepting();
  // Requests in flight (logins queued for the SRP pool) are answered ERR_SHUTDOWN and new
  // ones refused before anything closes, so no login meets a closed pool or store.
  await dispatcher.beginShutdown(config.shutdownTimeoutMs);
  dispatcher.sayByeToAll('shutdown', 'The server is shutting down.');
  f.labFeed?.close();
  scheduler.flushAll();
  const ran = await withTimeout(
    Promise.allSettled(
      f.hooks.map(async ({ name, hook }) => {
        try {
          await hook();
        } catch (e) {
          log.error({ err: e, hook: name }, 'shutdown hook failed');
        }
      }),
    ),
    config.shutdownTimeoutMs,
  );
  if (ran === 'timeout') log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown hooks timed out');
  scheduler.flushAll();
  await dispatcher.closeAll('shutdown', config.shutdownTimeoutMs);
  await withTimeout(Promise.all([f.tcp.close(), f.http.close()]), config.shutdownTimeoutMs);
  f.untrack();
  log.info('stopped');
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref();
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
}
