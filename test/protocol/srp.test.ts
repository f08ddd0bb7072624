/**
 * The SRP-6a formulas PROTOCOL.md gives a native client, computed here independently
 * (node:crypto SHA-512 and BigInt), must agree with what tssrp6a computes; and the values
 * tssrp6a produces in a real login must fit the account packets and survive the wire.
 */
import { createHash } from 'node:crypto';
import {
  createVerifierAndSalt,
  SRPClientSession,
  SRPParameters,
  SRPRoutines,
  SRPServerSession,
} from 'tssrp6a';
import { describe, expect, it } from 'vitest';
import { HEADER_SIZE } from '../../shared/codec/index.js';
import { LoginChallenge, LoginOk, LoginProof, LoginStart, Register } from '../../shared/protocol/index.js';
import type { Packet, PayloadOf } from '../../shared/protocol/index.js';
import { srpFacts } from '../../tools/spec.js';

/** RFC 5054 appendix A, the 2048-bit group. */
const RFC5054_N_2048 = BigInt(
  '0x' +
    'AC6BDB41324A9A9BF166DE5E1389582FAF72B6651987EE07FC3192943DB56050A37329CBB4A099ED8193E0757767A13DD52312AB4B03310DCD7F48A9DA04FD50' +
    'E8083969EDB767B0CF6095179A163AB3661A05FBD5FAAAE82918A9962F0B93B855F97993EC975EEAA80D740ADBF4FF747359D041D5C33EA71D281E446B14773B' +
    'CA97B43A23FB801676BD207A436C6481F1D2B9078717461A5B9D32E688F87748544523B524B0D57D5EA77A2775D2ECFA032CFBDBF52FB3786160279004E57AE6' +
    'AF874E7303CE53299CCC041C7BC308D82A5698F3A8D0C38271AE35F8E9DBFBB694B5C803D89F7AE435DE236D525F54759B65E372FCD68EF20FA7111F9E4AFF73',
);

/** bytes(n): unsigned big-endian without leading zero bytes (0 is one zero byte). */
function bytesOf(n: bigint): Uint8Array {
  let h = n.toString(16);
  if (h.length % 2) h = `0${h}`;
  return Uint8Array.from(h.match(/../g)!, (p) => parseInt(p, 16));
}

function pad(n: bigint, len: number): Uint8Array {
  const b = bytesOf(n);
  const out = new Uint8Array(len);
  out.set(b, len - b.length);
  return out;
}

function intOf(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
}

function H(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  base %= mod;
  while (exp > 0n) {
    if (exp & 1n) result = (result * base) % mod;
    base = (base * base) % mod;
    exp >>= 1n;
  }
  return result;
}

/** Encodes then decodes, as the peer would see the value. */
function overTheWire<P extends Packet>(def: P, value: PayloadOf<P>): PayloadOf<P> {
  return def.decode(def.encode(value).subarray(HEADER_SIZE)) as PayloadOf<P>;
}

describe('SRP-6a as PROTOCOL.md describes it', () => {
  it("uses tssrp6a's defaults: the RFC 5054 2048-bit group, g = 2, SHA-512", async () => {
    const f = await srpFacts();
    expect(f.N).toBe(RFC5054_N_2048);
    expect(f.g).toBe(2n);
    expect(f.hashName).toBe('SHA512');
    expect(f.padBytes).toBe(256);
  });

  it("the documented formulas give tssrp6a's numbers for the worked example", async () => {
    const { example: e } = await srpFacts();
    const N = RFC5054_N_2048;
    const g = 2n;
    const s = BigInt('0xBEB25379D1A8581EB5A727673A2441EE');
    const a = BigInt('0x60975527035CF2AD1989806F0407210BC81EDC04E2762A56AFD529DDDA2D4393');
    const b = BigInt('0xE487CB59D31AC550471E81F00F6928E01DDA08E974A004F49E61F5D105284D20');
    const P = new TextEncoder().encode('password123');

    const k = intOf(H(pad(N, 256), pad(g, 256)));
    const x = intOf(H(bytesOf(s), H(P)));
    const v = modPow(g, x, N);
    const A = modPow(g, a, N);
    const B = (k * v + modPow(g, b, N)) % N;
    const u = intOf(H(pad(A, 256), pad(B, 256)));
    const S = modPow((B - ((k * modPow(g, x, N)) % N) + N) % N, a + u * x, N);
    const serverS = modPow((modPow(v, u, N) * A) % N, b, N);
    const M1 = intOf(H(bytesOf(A), bytesOf(B), bytesOf(S)));
    const M2 = intOf(H(bytesOf(A), bytesOf(M1), bytesOf(S)));

    expect(serverS).toBe(S);
    expect({ k, x, v, A, B, u, S, M1, M2 }).toEqual(e);
  });

  it('completes a tssrp6a login whose every value crosses the wire in the account packets', async () => {
    const routines = new SRPRoutines(new SRPParameters());
    const account = 'Alice';
    const I = account.toLowerCase();
    const password = 'correct horse battery staple ✓';

    // Registration: the client makes salt and verifier; the server stores what arrives.
    const { s, v } = await createVerifierAndSalt(routines, I, password, 64);
    const registered = overTheWire(Register, { account, salt: bytesOf(s), verifier: bytesOf(v) });

    // Login.
    expect(overTheWire(LoginStart, { account, deviceToken: new Uint8Array(0) }).account).toBe(account);
    const server = await new SRPServerSession(routines).step1(
      I,
      intOf(registered.salt),
      intOf(registered.verifier),
    );
    const challenge = overTheWire(LoginChallenge, { salt: registered.salt, B: bytesOf(server.B) });
    const client1 = await new SRPClientSession(routines).step1(I, password);
    const client2 = await client1.step2(intOf(challenge.salt), intOf(challenge.B));
    const proof = overTheWire(LoginProof, { A: bytesOf(client2.A), M1: bytesOf(client2.M1) });
    const M2 = await server.step2(intOf(proof.A), intOf(proof.M1));
    const ok = overTheWire(LoginOk, {
      M2: bytesOf(M2),
      accountId: 7,
      account,
      resumeToken: new Uint8Array(32).fill(1),
      deviceToken: new Uint8Array(32).fill(2),
    });
    await expect(client2.step3(intOf(ok.M2))).resolves.toBeUndefined();
  });

  it('refuses a proof made with the wrong password', async () => {
    const routines = new SRPRoutines(new SRPParameters());
    const { s, v } = await createVerifierAndSalt(routines, 'bob', 'right', 64);
    const server = await new SRPServerSession(routines).step1('bob', s, v);
    const client = await (await new SRPClientSession(routines).step1('bob', 'wrong')).step2(s, server.B);
    await expect(server.step2(client.A, client.M1)).rejects.toThrow();
  });
});
