/**
 * The client's half of SRP-6a (RFC 5054 2048-bit group, SHA-512, from tssrp6a) and the one
 * module of the SDK that touches tssrp6a.
 *
 * Wire convention (the server uses the same): identity = account name lower-cased; big
 * integers (salt, verifier, A, B, M1, M2) travel as unsigned big-endian bytes without leading
 * zeros, converted with tssrp6a's bigIntToArrayBuffer / arrayBufferToBigInt.
 *
 * tssrp6a is loaded lazily, with a dynamic import, on the first register or login. Its
 * package has only `main: dist/index.js` (CommonJS; its dist/esm/ is not wired in and calls
 * require(), so it is unusable as real ESM): Node ESM imports that CommonJS file with named
 * exports, and Vite pre-bundles it. At load it picks `window.crypto.subtle` (or Node's
 * webcrypto) and throws when `subtle` is missing, as on a page opened over plain http from
 * another machine. Loading late means a page can install a `crypto.subtle.digest` polyfill
 * any time before the first login, and connecting and Hello work without one.
 */
import type * as Tssrp6a from 'tssrp6a';

type Srp = typeof Tssrp6a;

/** Salt length for new accounts: the Register salt field's maximum (tssrp6a's default, 128, does not fit). */
export const SALT_BYTES = 64;

let loading: Promise<Srp> | undefined;

/** Loads tssrp6a once; call early to surface a missing-crypto error before the login form. */
export function loadSrp(): Promise<Srp> {
  loading ??= import('tssrp6a').then((mod) => {
    // Bundlers differ in how a CommonJS module's exports appear on the namespace.
    const m = mod as Srp & { default?: Srp };
    return typeof m.SRPClientSession === 'function' ? m : (m.default as Srp);
  });
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

export function srpIdentity(account: string): string {
  return account.toLowerCase();
}

export async function bigToBytes(n: bigint): Promise<Uint8Array> {
  const srp = await loadSrp();
  return new Uint8Array(srp.bigIntToArrayBuffer(n));
}

export async function bytesToBig(bytes: Uint8Array): Promise<bigint> {
  const srp = await loadSrp();
  // An empty field would parse as "0x" and throw; zero is what it means.
  if (bytes.length === 0) return 0n;
  // A copy into a fresh buffer: `bytes` may be a view into a larger one (a Node Buffer's slice is too).
  return srp.arrayBufferToBigInt(new Uint8Array(bytes).buffer);
}

function routines(srp: Srp): Tssrp6a.SRPRoutines {
  return new srp.SRPRoutines(new srp.SRPParameters());
}

/** Salt and verifier for Register. */
export async function makeVerifier(
  account: string,
  password: string,
): Promise<{ salt: Uint8Array; verifier: Uint8Array }> {
  const srp = await loadSrp();
  const { s, v } = await srp.createVerifierAndSalt(routines(srp), srpIdentity(account), password, SALT_BYTES);
  return {
    salt: new Uint8Array(srp.bigIntToArrayBuffer(s)),
    verifier: new Uint8Array(srp.bigIntToArrayBuffer(v)),
  };
}

export interface SrpProof {
  /** Client public ephemeral A, for LoginProof. */
  readonly A: Uint8Array;
  /** Client proof M1, for LoginProof. */
  readonly M1: Uint8Array;
  /** Whether the server's M2 proves it knows the verifier (false: an impostor). */
  verifyServer(M2: Uint8Array): Promise<boolean>;
}

/**
 * Step 1 hashes the password (before LoginStart, so the password need not be kept while
 * waiting in the login queue); step 2 answers the challenge.
 */
export async function startLogin(
  account: string,
  password: string,
): Promise<(salt: Uint8Array, B: Uint8Array) => Promise<SrpProof>> {
  const srp = await loadSrp();
  const step1 = await new srp.SRPClientSession(routines(srp)).step1(srpIdentity(account), password);
  return async (salt, B) => {
    const step2 = await step1.step2(await bytesToBig(salt), await bytesToBig(B));
    return {
      A: new Uint8Array(srp.bigIntToArrayBuffer(step2.A)),
      M1: new Uint8Array(srp.bigIntToArrayBuffer(step2.M1)),
      verifyServer: async (M2) => {
        try {
          await step2.step3(await bytesToBig(M2));
          return true;
        } catch {
          return false;
        }
      },
    };
  };
}
