import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { installCryptoPolyfill, polyfillDigest } from '../../web-client/src/net/crypto-polyfill.js';

const data = new TextEncoder().encode('The quick brown fox');

describe('crypto.subtle.digest polyfill for insecure pages', () => {
  it.each([
    ['SHA-1', 'sha1'],
    ['SHA-256', 'sha256'],
    ['SHA-384', 'sha384'],
    ['SHA-512', 'sha512'],
  ])('hashes %s like the real thing', async (name, node) => {
    const out = await polyfillDigest(name, data.buffer);
    expect(out).toBeInstanceOf(ArrayBuffer);
    expect(Buffer.from(out).toString('hex')).toBe(createHash(node).update(data).digest('hex'));
  });

  it('accepts views and { name } algorithms', async () => {
    const view = new Uint8Array([0, ...data, 0]).subarray(1, data.length + 1);
    const out = await polyfillDigest({ name: 'sha-256' }, view);
    expect(Buffer.from(out).toString('hex')).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('refuses algorithms it does not have', async () => {
    await expect(polyfillDigest('MD5', data)).rejects.toThrow(/not supported/);
  });

  it('installs only where subtle is missing', () => {
    const insecure: { subtle?: unknown } = {};
    expect(installCryptoPolyfill(insecure)).toBe(true);
    expect(typeof (insecure.subtle as { digest: unknown }).digest).toBe('function');
    const secure = { subtle: { real: true } };
    expect(installCryptoPolyfill(secure)).toBe(false);
    expect(secure.subtle).toEqual({ real: true });
  });
});
