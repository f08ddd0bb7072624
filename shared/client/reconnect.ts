/**
 * Getting back after a dropped connection: open a new transport (TCP or WebSocket, whichever
 * `connect` gives), Hello, then Resume with the newest token. The server keeps the character
 * in the world for a few seconds after a drop, so a resume in time puts the client back where
 * it was, in the world, without the password.
 *
 * The first attempt goes at once; each later one waits an exponentially growing, jittered
 * delay (half of it fixed, half random, so a server that comes back is not hit by every
 * client at the same moment). A refused token (ERR_BAD_RESUME: used, expired, or the server
 * restarted) ends the attempts at once: only a login helps then, which is done on the same
 * connection when the password is given.
 *
 * A cluster has several gateways: `failover` makes one `connect` of several, trying each in
 * turn from the one that last worked, so a client whose gateway died reaches another (and,
 * with the password, logs in there: the world hands it its character where it lingers).
 */
import { ErrorCode } from '../protocol/errors.js';
import { WyvernClient, type ClientKindName, type ResumeResult, type WyvernClientOptions } from './client.js';
import { WyvernError } from './errors.js';
import type { ByteTransport } from './transport.js';

export type ReconnectEvent =
  /** Attempt `attempt` starts after `delayMs` (0 for the first). */
  | { type: 'waiting'; attempt: number; delayMs: number }
  | { type: 'connecting'; attempt: number }
  /** An attempt failed; `final` when no other follows. */
  | { type: 'failed'; attempt: number; error: Error; final: boolean }
  | { type: 'resumed'; attempt: number; result: ResumeResult };

export interface ReconnectOptions {
  /** Opens a new transport to the server. */
  connect: () => Promise<ByteTransport>;
  account: string;
  /** The newest resume token (from LoginOk or Resumed). */
  token: Uint8Array;
  clientKind: ClientKindName;
  clientName: string;
  /** For each new WyvernClient (pass the page's WorldView to keep its listeners). */
  clientOptions?: WyvernClientOptions;
  /** Called on each new client before it sends anything (to hook onPacket, onClose...). */
  prepare?: (client: WyvernClient) => void;
  /**
   * Logs in with this where the token is refused, instead of giving up: the result then has
   * characterId 0 and no `entered` (enter the character: the world takes it over where it
   * lingers).
   */
  password?: string;
  /** Attempts before giving up. Default 8. */
  maxAttempts?: number;
  /** Delay before the second attempt; it doubles after each (ms). Default 250. */
  baseDelayMs?: number;
  /** Longest delay between attempts (ms). Default 8000. */
  maxDelayMs?: number;
  onEvent?: (event: ReconnectEvent) => void;
  /** Stops waiting and trying. */
  signal?: AbortSignal;
  /** [0, 1); default Math.random. */
  random?: () => number;
  /** Default setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface Reconnected {
  client: WyvernClient;
  result: ResumeResult;
}

/** The delay before attempt `attempt` (1-based; the first has none). */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  if (attempt <= 1) return 0;
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 2));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Connects and resumes, with backoff, until it works, the token is refused, the attempts run
 * out or `signal` aborts. Resolves with the new client (in the world again when
 * `result.entered` is set) or rejects with the last attempt's error.
 */
export async function reconnect(options: ReconnectOptions): Promise<Reconnected> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 8);
  const base = options.baseDelayMs ?? 250;
  const max = options.maxDelayMs ?? 8000;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  const emit = (e: ReconnectEvent): void => options.onEvent?.(e);
  for (let attempt = 1; ; attempt++) {
    const delayMs = backoffDelay(attempt, base, max, random);
    emit({ type: 'waiting', attempt, delayMs });
    if (delayMs > 0) await sleep(delayMs, options.signal);
    if (options.signal?.aborted) throw options.signal.reason as Error;
    emit({ type: 'connecting', attempt });
    let client: WyvernClient | undefined;
    try {
      const transport = await options.connect();
      client = new WyvernClient(transport, options.clientOptions);
      options.prepare?.(client);
      await client.hello({ clientKind: options.clientKind, clientName: options.clientName });
      let result: ResumeResult;
      try {
        result = await client.resume(options.account, options.token);
      } catch (e) {
        const refused = e instanceof WyvernError && e.code === ErrorCode.BadResume;
        if (!refused || options.password === undefined || client.isClosed) throw e;
        result = { ...(await client.login(options.account, options.password)), characterId: 0 };
      }
      emit({ type: 'resumed', attempt, result });
      return { client, result };
    } catch (e) {
      client?.close('resume failed');
      const error = e instanceof Error ? e : new Error(String(e));
      const refused = error instanceof WyvernError && error.code === ErrorCode.BadResume;
      const final = refused || attempt >= maxAttempts || options.signal?.aborted === true;
      emit({ type: 'failed', attempt, error, final });
      if (final) throw error;
    }
  }
}

/**
 * One `connect` over several: each call tries them in turn, starting from the one that last
 * worked (or the first), and gives the first that opens; when none does, the last error.
 * Inside `reconnect` each round of tries is one attempt, with the backoff between rounds.
 */
export function failover(
  connectors: readonly (() => Promise<ByteTransport>)[],
): () => Promise<ByteTransport> {
  if (connectors.length === 0) throw new RangeError('failover needs at least one way to connect');
  let current = 0;
  return async () => {
    let last: unknown;
    for (let i = 0; i < connectors.length; i++) {
      const k = (current + i) % connectors.length;
      try {
        const transport = await connectors[k]!();
        current = k;
        return transport;
      } catch (e) {
        last = e;
      }
    }
    throw last instanceof Error ? last : new Error(String(last));
  };
}
