/**
 * The registry's "sessions" bucket: which gateway holds which account's session and which
 * character (for whispers), and each account's newest resume token. An entry held by a
 * gateway counts while that gateway's node entry is live, same instance; the sweep deletes
 * the rest, and resume tokens past their expiry.
 */
import {
  accountKey,
  characterKey,
  decode,
  encode,
  nodeKey,
  RegistryError,
  resumeKey,
  sameHolder,
  WRITE_TRIES,
  type CharacterEntry,
  type Holder,
  type KvBackend,
  type KvEntry,
  type NodeInfo,
  type RegistryStats,
  type ResumeRecord,
  type SessionEntry,
} from './registry-entries.js';

export class SessionDirectory {
  constructor(
    private readonly kv: KvBackend,
    private readonly now: () => number,
    /** Counted into by each lookup (the registry's stats). */
    private readonly lookups: RegistryStats['lookups'],
  ) {}

  async bindSession(
    accountId: number,
    gateway: Holder,
    characterId?: number,
  ): Promise<SessionEntry | undefined> {
    const entry: SessionEntry = {
      accountId,
      gateway: { id: gateway.id, instance: gateway.instance },
      since: this.now(),
      ...(characterId === undefined ? {} : { characterId }),
    };
    const previous = await this.write(accountKey(accountId), encode(entry));
    if (!previous) return undefined;
    const before = decode<SessionEntry>(previous);
    return !sameHolder(before.gateway, gateway) && (await this.live(before.gateway)) ? before : undefined;
  }

  releaseSession(accountId: number, gateway: Holder): Promise<boolean> {
    return this.releaseIfHeld(accountKey(accountId), gateway);
  }

  async sessionGateway(accountId: number): Promise<SessionEntry | undefined> {
    this.lookups.session++;
    const entry = await this.kv.get('sessions', accountKey(accountId));
    if (!entry) return undefined;
    const session = decode<SessionEntry>(entry);
    return (await this.live(session.gateway)) ? session : undefined;
  }

  async bindCharacter(name: string, accountId: number, gateway: Holder): Promise<void> {
    const entry: CharacterEntry = {
      name,
      accountId,
      gateway: { id: gateway.id, instance: gateway.instance },
    };
    await this.write(characterKey(name), encode(entry));
  }

  releaseCharacter(name: string, gateway: Holder): Promise<boolean> {
    return this.releaseIfHeld(characterKey(name), gateway);
  }

  async characterGateway(name: string): Promise<CharacterEntry | undefined> {
    this.lookups.character++;
    const entry = await this.kv.get('sessions', characterKey(name));
    if (!entry) return undefined;
    const character = decode<CharacterEntry>(entry);
    return (await this.live(character.gateway)) ? character : undefined;
  }

  async putResumeToken(accountId: number, record: ResumeRecord): Promise<void> {
    await this.write(resumeKey(accountId), encode(record));
  }

  async takeResumeToken(accountId: number, id: string): Promise<ResumeRecord | undefined> {
    this.lookups.resume++;
    const entry = await this.kv.get('sessions', resumeKey(accountId));
    if (!entry) return undefined;
    const record = decode<ResumeRecord>(entry);
    if (record.id !== id) return undefined;
    // Another gateway that read the same revision loses here: the token works once.
    return (await this.kv.delete('sessions', resumeKey(accountId), entry.revision)) ? record : undefined;
  }

  async renewResumeToken(accountId: number, id: string, expiresAt: number): Promise<boolean> {
    for (let i = 0; i < WRITE_TRIES; i++) {
      const entry = await this.kv.get('sessions', resumeKey(accountId));
      if (!entry) return false;
      const record = decode<ResumeRecord>(entry);
      if (record.id !== id) return false;
      const renewed = encode({ ...record, expiresAt } satisfies ResumeRecord);
      if ((await this.kv.update('sessions', resumeKey(accountId), renewed, entry.revision)) !== undefined)
        return true;
    }
    return false;
  }

  /** Deletes what `live` (`id/instance` of every live node) no longer backs; returns how many. */
  async sweep(live: ReadonlySet<string>): Promise<number> {
    const now = this.now();
    let removed = 0;
    for (const key of await this.kv.keys('sessions', '')) {
      const entry = await this.kv.get('sessions', key);
      if (!entry) continue;
      if (key.startsWith('resume.')) {
        // Not tied to a gateway: a token outlives the gateway that issued it, until it expires.
        if (decode<ResumeRecord>(entry).expiresAt > now) continue;
      } else {
        const { gateway } = decode<{ gateway: Holder }>(entry);
        if (live.has(`${gateway.id}/${gateway.instance}`)) continue;
      }
      if (await this.kv.delete('sessions', key, entry.revision)) removed++;
    }
    return removed;
  }

  /** Writes a sessions entry whatever it held; returns what it held. */
  private async write(key: string, value: Uint8Array): Promise<KvEntry | undefined> {
    for (let i = 0; i < WRITE_TRIES; i++) {
      const current = await this.kv.get('sessions', key);
      const revision = current
        ? await this.kv.update('sessions', key, value, current.revision)
        : await this.kv.create('sessions', key, value);
      if (revision !== undefined) return current;
    }
    throw new RegistryError('ERR_REGISTRY_CONFLICT', `could not write ${key}: it keeps changing`);
  }

  private async releaseIfHeld(key: string, gateway: Holder): Promise<boolean> {
    const current = await this.kv.get('sessions', key);
    if (!current || !sameHolder(decode<{ gateway: Holder }>(current).gateway, gateway)) return false;
    return this.kv.delete('sessions', key, current.revision);
  }

  private async live(holder: Holder): Promise<boolean> {
    const entry = await this.kv.get('leases', nodeKey(holder.id));
    return entry !== undefined && decode<NodeInfo>(entry).instance === holder.instance;
  }
}
