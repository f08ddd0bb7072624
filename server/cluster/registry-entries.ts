/**
 * What the cluster registry keeps (registry.ts): the entries of its two buckets, their keys
 * and bytes (JSON), and the key-value store they live in (KvBackend), with the rules every
 * part of the registry reads them by.
 */
import { checkToken } from './subjects.js';

export const Role = { Gateway: 'gateway', ZoneHost: 'zoneHost' } as const;
export type Role = (typeof Role)[keyof typeof Role];

/** A process: its id (configured, stable across restarts) and instance (random per start). */
export interface Holder {
  id: string;
  instance: string;
}

export interface NodeInfo extends Holder {
  role: Role;
  /** The address other machines reach it on. */
  host: string;
  tcpPort?: number;
  httpPort?: number;
  /** ms since the epoch. */
  startedAt: number;
}

export interface ZoneClaim {
  zone: string;
  host: Holder;
  since: number;
}

export interface SessionEntry {
  accountId: number;
  gateway: Holder;
  since: number;
  /** The character the account has in the world there (lingering included), when it has one. */
  characterId?: number;
}

export interface CharacterEntry {
  /** As the world shows it ("Arwen"); the key is lower-cased. */
  name: string;
  accountId: number;
  gateway: Holder;
}

/**
 * The account's newest resume token, as any gateway checks it: the token's id (its nonce, not
 * the token: what the registry holds cannot be presented), the account name it was issued
 * for, and when it stops being good.
 */
export interface ResumeRecord {
  id: string;
  name: string;
  expiresAt: number;
}

/**
 * How an entry went: `released` by its holder (a planned stop, or a zone given up), or
 * `lapsed`, not rewritten for a TTL (its holder died, or lost NATS for that long).
 */
export type EntryEnd = 'released' | 'lapsed';

export type RegistryEvent =
  | { type: 'node'; id: string; node: NodeInfo | undefined; ended?: EntryEnd }
  | { type: 'zone'; zone: string; claim: ZoneClaim | undefined; ended?: EntryEnd };

export interface Watch {
  stop(): void;
}

/** Counts since the registry was opened. */
export interface RegistryStats {
  /** Lookups by what was looked up (node, zone, session, character, resume token). */
  lookups: Record<'node' | 'zone' | 'session' | 'character' | 'resume', number>;
  leasesHeld: number;
  leasesLost: number;
  /** Refreshes that failed for want of the store (they are retried). */
  refreshFailures: number;
}

// ---------------------------------------------------------------------------------------------
// The storage under the registry.

export type BucketName = 'leases' | 'sessions';

export interface KvEntry {
  key: string;
  value: Uint8Array;
  revision: number;
}

/**
 * What the registry needs of a key-value store: JetStream KV's semantics. A key is a
 * dot-separated subject; revisions grow per bucket; a deleted or expired key reads as absent;
 * "leases" entries expire ttlMs after their last write, silently (watchers are not told).
 */
export interface KvBackend {
  readonly ttlMs: number;
  get(bucket: BucketName, key: string): Promise<KvEntry | undefined>;
  /** The new revision, or undefined when the key exists. */
  create(bucket: BucketName, key: string, value: Uint8Array): Promise<number | undefined>;
  /** The new revision, or undefined when the key's revision is no longer `revision` (or it is gone). */
  update(bucket: BucketName, key: string, value: Uint8Array, revision: number): Promise<number | undefined>;
  /** False when the key's revision is no longer `revision`. */
  delete(bucket: BucketName, key: string, revision: number): Promise<boolean>;
  keys(bucket: BucketName, prefix: string): Promise<string[]>;
  /** Changes from now on: a write (entry) or a delete (undefined). Expiries are not reported. */
  watch(bucket: BucketName, onChange: (key: string, entry: KvEntry | undefined) => void): Promise<Watch>;
  close(): Promise<void>;
}

export class RegistryError extends Error {
  constructor(
    readonly code: 'ERR_REGISTRY_CONFLICT',
    message: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

// ---------------------------------------------------------------------------------------------
// Keys and bytes, as every part of the registry writes and reads them.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encode = (value: unknown) => encoder.encode(JSON.stringify(value));
export const decode = <T>(entry: KvEntry): T => JSON.parse(decoder.decode(entry.value)) as T;

export const nodeKey = (id: string) => `node.${checkToken('node id', id)}`;
export const zoneKey = (zone: string) => `zone.${checkToken('zone', zone)}`;
export const accountKey = (accountId: number) => {
  if (!Number.isSafeInteger(accountId) || accountId < 0) throw new RangeError(`bad account id ${accountId}`);
  return `account.${accountId}`;
};
export const characterKey = (name: string) => `char.${checkToken('character name', name.toLowerCase())}`;
export const resumeKey = (accountId: number) => `resume.${accountKey(accountId).slice('account.'.length)}`;

export const sameHolder = (a: Holder, b: Holder) => a.id === b.id && a.instance === b.instance;
/** Writes that lose a race are tried again this many times before giving up. */
export const WRITE_TRIES = 5;
