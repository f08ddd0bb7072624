/**
 * `crypto.subtle` exists only in secure contexts (https, or http on localhost). A page opened
 * over plain http from another machine on the LAN has `crypto.getRandomValues` but no
 * `crypto.subtle`, and tssrp6a refuses to load then: at import it checks `crypto.subtle` and
 * later hashes with `crypto.subtle.digest(name, data)` for SHA-1/256/384/512.
 *
 * This installs exactly that, `digest` only, from @noble/hashes, when `subtle` is missing.
 * It must run before tssrp6a is imported (main.ts imports it first). Real Web Crypto is left
 * untouched wherever it exists.
 */
import { sha1 } from '@noble/hashes/legacy.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';

type Hash = (data: Uint8Array) => Uint8Array;

const HASHES: Record<string, Hash> = {
  'SHA-1': sha1,
  'SHA-256': sha256,
  'SHA-384': sha384,
  'SHA-512': sha512,
};

function toBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('digest: data must be an ArrayBuffer or a view of one');
}

/** `digest` with Web Crypto's signature: algorithm name or { name }, resolves to an ArrayBuffer. */
export async function polyfillDigest(
  algorithm: string | { name: string },
  data: unknown,
): Promise<ArrayBuffer> {
  const name = (typeof algorithm === 'string' ? algorithm : algorithm.name).toUpperCase();
  const hash = HASHES[name];
  if (!hash) throw new DOMException(`digest: ${name} is not supported here`, 'NotSupportedError');
  const out = hash(toBytes(data));
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
}

/** Whether the polyfill was installed (the page is not a secure context). */
export let cryptoPolyfilled = false;

/** Installs the polyfill on `target` (the page's crypto) when it has no `subtle`. */
export function installCryptoPolyfill(target: { subtle?: unknown } | undefined = globalThis.crypto): boolean {
  if (!target || target.subtle) return false;
  Object.defineProperty(target, 'subtle', {
    value: Object.freeze({ digest: polyfillDigest }),
    configurable: true,
    enumerable: true,
    writable: false,
  });
  cryptoPolyfilled = true;
  return true;
}

installCryptoPolyfill();
