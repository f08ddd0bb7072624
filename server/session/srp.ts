/**
 * SRP-6a, server side, on a pool of worker threads.
 *
 * Conventions shared with the client SDK (change both or neither):
 *   - tssrp6a 3.0.0 with its defaults: `new SRPRoutines(new SRPParameters())`, i.e. the
 *     RFC 5054 2048-bit group (g = 2) and SHA-512.
 *   - identity I = the account name lower-cased, so login ignores case like account lookup.
 *   - every big integer (salt, verifier, A, B, M1, M2) travels as unsigned big-endian bytes
 *     with no padding, exactly as tssrp6a's `bigIntToArrayBuffer` writes them and
 *     `arrayBufferToBigInt` reads them (an empty byte string reads as 0).
 *   - salts are at most 64 bytes (the Register/LoginChallenge field): the client passes
 *     `sBytes` <= 64 to `createVerifierAndSalt`, whose default (128) does not fit.
 *
 *   Register      {account, salt, verifier}   client: createVerifierAndSalt(routines, I, password, 64)
 *   LoginStart    {account}               ->  server: step1(I, salt, verifier) on a worker
 *   LoginChallenge{salt, B}                   client: step1(I, password) then .step2(salt, B)
 *   LoginProof    {A, M1}                 ->  server: step2(state, A, M1) on a worker
 *   LoginOk       {M2, ...}                   client: .step3(M2) proves the server knew v
 *
 * The 2048-bit modular exponentiations cost tens of ms of CPU per login, so they never run on
 * the event loop: jobs queue FIFO for a few workers and each waiting job hears its position
 * (the login queue). A crashed worker fails only the job it was running and is replaced.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  arrayBufferToBigInt,
  bigIntToArrayBuffer,
  SRPParameters,
  type SRPServerSessionStep1State,
} from 'tssrp6a';

/** Everything step 2 needs, as plain strings (it includes the private b: keep it on the server). */
export type SrpServerState = SRPServerSessionStep1State;

export const SRP_PRIME = new SRPParameters().primeGroup.N;
export const MAX_SALT_BYTES = 64;

export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  const copy = new Uint8Array(bytes);
  return arrayBufferToBigInt(copy.buffer);
}

export function bigIntToBytes(value: bigint): Uint8Array {
  return new Uint8Array(bigIntToArrayBuffer(value));
}

/** The login identity for an account name. */
export function srpIdentity(accountName: string): string {
  return accountName.toLowerCase();
}

export const SrpErrorCode = {
  /** The client's A or M1 is wrong: wrong password (or unknown account, or a forged proof). */
  BadProof: 'bad-proof',
  /** The worker running the job died; the job may be retried. */
  WorkerCrashed: 'worker-crashed',
  /** Workers fail to start at all (e.g. the worker file cannot be loaded). */
  Unavailable: 'unavailable',
  Aborted: 'aborted',
  Closed: 'closed',
  Internal: 'internal',
} as const;
export type SrpErrorCode = (typeof SrpErrorCode)[keyof typeof SrpErrorCode];

export class SrpError extends Error {
  override readonly name = 'SrpError';
  constructor(
    readonly code: SrpErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Messages to and from srp-worker.ts. */
export type SrpRequest =
  | { id: number; op: 'step1'; identity: string; salt: Uint8Array; verifier: Uint8Array }
  | { id: number; op: 'step2'; state: SrpServerState; A: Uint8Array; M1: Uint8Array };
export type SrpReply = (
  | { id: number; ok: true; B: Uint8Array; state: SrpServerState }
  | { id: number; ok: true; M2: Uint8Array }
  | { id: number; ok: false; code: SrpErrorCode; message: string }
) & {
  /** The worker's own V8 heap (bytes) after the job: outside the main thread's heap figures. */
  heap?: number;
};
export const WORKER_READY = 'srp-worker-ready';

export interface SrpJobOptions {
  /**
   * Called when the job starts waiting and again each time it moves up: position 1 is next;
   * length is the whole queue. Every waiting job hears every move, so a caller that sends
   * each call as a packet may want to skip some.
   */
  readonly onPosition?: (position: number, length: number) => void;
  /** Gives up the job (e.g. the connection closed); it rejects with 'aborted'. */
  readonly signal?: AbortSignal;
}

export interface SrpPoolOptions {
  /** Worker threads. Default: available cores minus one (for the event loop), at least 1. */
  readonly size?: number;
  /** The queue length changed (for metrics). */
  readonly onQueueChange?: (length: number) => void;
  /** Worker script (.ts or .js); default srp-worker next to this file. */
  readonly workerUrl?: URL;
}

export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** The worker next to this module: srp-worker.ts from source, srp-worker.js once built. */
export function defaultWorkerUrl(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './srp-worker.ts' : './srp-worker.js', import.meta.url);
}

/**
 * A worker's live data is a few big integers per job, but V8 sizes a thread's young
 * generation like a main thread's: left alone, a worker's heap swings between about 17 and
 * 45 MB with the login rate, all of it in the process's RSS. A small young generation keeps
 * it near its live size; the old generation keeps room for the TypeScript loader at start.
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 } as const;

/** Node 20 cannot start a .ts worker by itself: such a worker starts through a tsx bootstrap. */
function startWorker(entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { resourceLimits: WORKER_LIMITS });
  return new Worker(new URL('./srp-worker-tsx.mjs', import.meta.url), {
    workerData: { entry: entry.href },
    // Not the parent's flags: under a test runner they may name loaders the thread cannot use.
    execArgv: [],
    resourceLimits: WORKER_LIMITS,
  });
}

type Outcome = { B: Uint8Array; state: SrpServerState } | { M2: Uint8Array };
type Payload =
  | { op: 'step1'; identity: string; salt: Uint8Array; verifier: Uint8Array }
  | { op: 'step2'; state: SrpServerState; A: Uint8Array; M1: Uint8Array };

interface Job {
  readonly id: number;
  readonly payload: Payload;
  readonly options: SrpJobOptions;
  resolve(outcome: Outcome): void;
  reject(err: SrpError): void;
  settled: boolean;
  cleanup?: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  /** The worker's V8 heap size as of its last reply. */
  heap: number;
}

/** Consecutive workers dying before they are ready: the pool gives up instead of looping. */
const MAX_START_FAILURES = 3;

export class SrpPool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly workerUrl: URL;
  private nextId = 1;
  private startFailures = 0;
  private lastWorkerError: Error | undefined;
  private closed = false;
  private broken: SrpError | undefined;
  private readyWaiters: { resolve(): void; reject(err: SrpError): void }[] = [];

  constructor(private readonly options: SrpPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? defaultPoolSize()));
    this.workerUrl = options.workerUrl ?? defaultWorkerUrl();
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn());
  }

  /** Resolves once every worker has started; rejects with 'unavailable' if they cannot. */
  ready(): Promise<void> {
    if (this.broken && this.slots.length === 0) return Promise.reject(this.broken);
    if (this.slots.every((slot) => slot.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /** The workers' V8 heaps together (bytes), as each last reported: not in process.memoryUsage(). */
  get workerHeapBytes(): number {
    let sum = 0;
    for (const slot of this.slots) sum += slot.heap;
    return sum;
  }

  /** Jobs waiting for a worker. */
  get queueLength(): number {
    return this.queue.length;
  }

  /** SRP step 1: the server's ephemeral B for this verifier, and the state step 2 resumes from. */
  async step1(
    identity: string,
    salt: Uint8Array,
    verifier: Uint8Array,
    options: SrpJobOptions = {},
  ): Promise<{ B: Uint8Array; serverState: SrpServerState }> {
    const outcome = await this.submit({ op: 'step1', identity, salt, verifier }, options);
    if (!('B' in outcome)) throw new SrpError('internal', 'step1 answered without B');
    return { B: outcome.B, serverState: outcome.state };
  }

  /** SRP step 2: checks the client's proof M1 and returns the server proof M2, or throws 'bad-proof'. */
  async step2(
    serverState: SrpServerState,
    A: Uint8Array,
    M1: Uint8Array,
    options: SrpJobOptions = {},
  ): Promise<Uint8Array> {
    const outcome = await this.submit({ op: 'step2', state: serverState, A, M1 }, options);
    if (!('M2' in outcome)) throw new SrpError('internal', 'step2 answered without M2');
    return outcome.M2;
  }

  /** Fails waiting and running jobs with 'closed' and stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.readyWaiters.splice(0))
      waiter.reject(new SrpError('closed', 'SRP pool closed'));
    for (const job of this.queue.splice(0)) this.settle(job, new SrpError('closed', 'SRP pool closed'));
    this.options.onQueueChange?.(0);
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.job) this.settle(slot.job, new SrpError('closed', 'SRP pool closed'));
        await slot.worker.terminate();
      }),
    );
  }

  private submit(payload: Payload, options: SrpJobOptions): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      if (this.closed) return reject(new SrpError('closed', 'SRP pool closed'));
      // Broken: workers stopped starting; the pool serves on with any that still run.
      if (this.broken && this.slots.length === 0) return reject(this.broken);
      if (options.signal?.aborted) return reject(new SrpError('aborted', 'login abandoned'));
      const job: Job = { id: this.nextId++, payload, options, resolve, reject, settled: false };
      if (options.signal) {
        const signal = options.signal;
        const onAbort = (): void => this.abort(job);
        signal.addEventListener('abort', onAbort, { once: true });
        job.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      const idle = this.slots.find((slot) => slot.ready && !slot.job);
      if (idle) return this.run(idle, job);
      this.queue.push(job);
      options.onPosition?.(this.queue.length, this.queue.length);
      this.options.onQueueChange?.(this.queue.length);
    });
  }

  private abort(job: Job): void {
    const index = this.queue.indexOf(job);
    if (index >= 0) {
      this.queue.splice(index, 1);
      this.options.onQueueChange?.(this.queue.length);
      this.reportPositions(index);
    }
    // A running job finishes on its worker; its result is dropped.
    this.settle(job, new SrpError('aborted', 'login abandoned'));
  }

  private settle(job: Job, result: SrpError | Outcome): void {
    if (job.settled) return;
    job.settled = true;
    job.cleanup?.();
    if (result instanceof SrpError) job.reject(result);
    else job.resolve(result);
  }

  private reportPositions(from: number): void {
    const length = this.queue.length;
    for (let i = from; i < length; i++) this.queue[i]?.options.onPosition?.(i + 1, length);
  }

  private run(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref();
    const request: SrpRequest = { id: job.id, ...job.payload };
    slot.worker.postMessage(request);
  }

  private next(slot: Slot): void {
    slot.job = undefined;
    slot.worker.unref();
    const job = this.queue.shift();
    if (!job) return;
    this.options.onQueueChange?.(this.queue.length);
    this.reportPositions(0);
    this.run(slot, job);
  }

  private spawn(): Slot {
    // Referenced while starting or busy, unreferenced when idle: an idle pool never keeps the
    // process alive, a pending job always does.
    const worker = startWorker(this.workerUrl);
    const slot: Slot = { worker, ready: false, job: undefined, heap: 0 };
    worker.on('message', (message: SrpReply | typeof WORKER_READY) => {
      if (message === WORKER_READY) {
        slot.ready = true;
        this.startFailures = 0;
        if (this.slots.every((s) => s.ready))
          for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
        if (!slot.job) this.next(slot);
        return;
      }
      if (message.heap !== undefined) slot.heap = message.heap;
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      if (message.ok) {
        this.settle(job, 'B' in message ? { B: message.B, state: message.state } : { M2: message.M2 });
      } else {
        this.settle(job, new SrpError(message.code, message.message));
      }
      this.next(slot);
    });
    // An uncaught error is followed by 'exit'; all the handling happens there.
    worker.on('error', (err) => {
      this.lastWorkerError = err;
    });
    worker.once('exit', () => this.onExit(slot));
    return slot;
  }

  private onExit(slot: Slot): void {
    if (this.closed) return;
    if (slot.job) this.settle(slot.job, new SrpError('worker-crashed', 'SRP worker stopped during the job'));
    slot.job = undefined;
    if (!slot.ready) this.startFailures += 1;
    const index = this.slots.indexOf(slot);
    if (this.startFailures >= MAX_START_FAILURES) {
      this.broken = new SrpError(
        'unavailable',
        `SRP workers fail to start (${this.workerUrl.href}): ${this.lastWorkerError?.message ?? 'exited'}`,
      );
      this.slots.splice(index, 1);
      if (this.slots.length === 0) {
        for (const waiter of this.readyWaiters.splice(0)) waiter.reject(this.broken);
        for (const job of this.queue.splice(0)) this.settle(job, this.broken);
        this.options.onQueueChange?.(0);
      }
      return;
    }
    this.slots[index] = this.spawn();
  }
}
