/**
 * The server secret keys the fake SRP salts given to unknown account names; it must stay the
 * same across restarts or a name's salt would change and reveal that the account is not real.
 * From WYVERN_SECRET when set, else generated once and kept in a file (mode 0600).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const DEFAULT_SECRET_FILE = 'var/server-secret';

export function loadSecret(configured: string | undefined, file = DEFAULT_SECRET_FILE): Uint8Array {
  if (configured !== undefined) return Uint8Array.from(Buffer.from(configured, 'hex'));
  try {
    const hex = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(hex)) return Uint8Array.from(Buffer.from(hex, 'hex'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const secret = randomBytes(32);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, secret.toString('hex') + '\n', { mode: 0o600 });
  return Uint8Array.from(secret);
}
