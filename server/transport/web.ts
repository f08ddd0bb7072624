/**
 * The HTTP port: one of two engines behind the same Connection and the same routes.
 * uWebSockets.js is used when its native build loads (Node 20 here); `ws` on node:http
 * otherwise. The package falls back on its own to a slow, incomplete JavaScript shim when
 * the native build does not match the Node ABI; that shim is never used: the native binary
 * is loaded directly, and anything else counts as "not available".
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as UwsModule from 'uWebSockets.js';
import type { WsEngineChoice } from '../config.js';
import type { ConnectionListener, ConnectionOptions } from './connection.js';
import type { HttpRoutes, StaticSite } from './http.js';
import type { TlsFiles } from './tcp.js';

export type WsEngine = 'uws' | 'ws';
export type Uws = typeof UwsModule;

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly tls?: TlsFiles | undefined;
  readonly listener: ConnectionListener;
  readonly connection: ConnectionOptions;
  readonly routes: HttpRoutes;
  readonly site: StaticSite;
  /** Largest WebSocket message once logged in; one message may carry several frames. */
  readonly maxMessageSize: number;
  /**
   * Largest WebSocket message before login: what the login packets need; a longer one closes
   * the connection with 1009 (Message Too Big). The ws engine refuses it as soon as its header
   * (or the fragment that passes the limit) arrives, so a connection that never logs in holds
   * no more than this in a half-received message; uWS, whose limit is per route, refuses it
   * once it is whole.
   */
  readonly loginMessageSize: number;
}

export interface HttpServerHandle {
  readonly engine: WsEngine;
  readonly port: number;
  /** Stops accepting new connections; open ones are left to their owner. */
  stopAccepting(): void;
  /** Releases the port and anything still open (call after the owner closed its connections). */
  close(): Promise<void>;
}

export interface UwsLoad {
  uws?: Uws;
  error?: string;
}

let cached: UwsLoad | undefined;

/**
 * The native uWebSockets.js module, or why it cannot be had. `abi` is the Node module ABI
 * whose binary is wanted (this process's by default; tests ask for one that does not exist).
 */
export function loadNativeUws(abi: string = process.versions.modules): UwsLoad {
  const mine = abi === process.versions.modules;
  if (mine && cached) return cached;
  const result = loadUwsBinary(abi);
  if (mine) cached = result;
  return result;
}

function loadUwsBinary(abi: string): UwsLoad {
  try {
    const require = createRequire(import.meta.url);
    const pkgDir = path.dirname(require.resolve('uWebSockets.js/package.json'));
    const binary = path.join(pkgDir, 'binaries', `uws_${process.platform}_${process.arch}_${abi}.node`);
    if (!existsSync(binary)) return { error: `no native build for Node ABI ${abi} (${process.version})` };
    const uws = require(binary) as Uws;
    // The JavaScript shim has App but no SSLApp or getParts; a native build has all three.
    const native =
      typeof uws.App === 'function' &&
      typeof uws.SSLApp === 'function' &&
      typeof (uws as { getParts?: unknown }).getParts === 'function';
    return native ? { uws } : { error: 'the loaded module is not the native build' };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] };
  }
}

/** Picks the engine for a configured choice; `note` explains a fallback, once, for the log. */
export function chooseEngine(
  choice: WsEngineChoice,
  load: () => UwsLoad = loadNativeUws,
): { engine: WsEngine; uws?: Uws; note?: string } {
  if (choice === 'ws') return { engine: 'ws' };
  const { uws, error } = load();
  if (uws) return { engine: 'uws', uws };
  if (choice === 'uws') throw new Error(`WS_ENGINE=uws: uWebSockets.js native build unavailable: ${error}`);
  return { engine: 'ws', note: `uWebSockets.js native build unavailable (${error}); using ws` };
}

export async function listenHttp(choice: WsEngineChoice, opts: HttpServerOptions) {
  const { engine, uws, note } = chooseEngine(choice);
  if (engine === 'uws' && uws) {
    const { listenUws } = await import('./uws.js');
    return { handle: await listenUws(uws, opts), note };
  }
  const { listenWs } = await import('./ws.js');
  return { handle: await listenWs(opts), note };
}
