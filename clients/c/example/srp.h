/*
 * The client's half of SRP-6a as the Wyvern server runs it (tssrp6a 3.0.0 defaults; see
 * docs/PROTOCOL.md, "SRP-6a, exactly"): RFC 5054's 2048-bit group, g = 2, SHA-512,
 *
 *   k  = H(PAD(N) | PAD(g))          x  = H(bytes(s) | H(password))   (the identity is not hashed)
 *   v  = g^x                         A  = g^a
 *   u  = H(PAD(A) | PAD(B))          S  = (B - k g^x)^(a + u x)
 *   M1 = H(bytes(A) | bytes(B) | bytes(S))
 *   M2 = H(bytes(A) | bytes(M1) | bytes(S))
 *
 * all mod N, where bytes(n) is n big-endian without leading zeros and PAD(n) is bytes(n)
 * left-padded to 256 bytes. Big integers travel as bytes(n). OpenSSL's libcrypto does the
 * arithmetic and the hashing.
 */
#ifndef WYVERN_SRP_H
#define WYVERN_SRP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WY_SRP_N_BYTES 256
#define WY_SRP_HASH_BYTES 64
/* Register's salt field holds at most this many bytes. */
#define WY_SRP_SALT_BYTES 64

typedef struct {
    uint8_t data[WY_SRP_N_BYTES];
    size_t len;
} wy_srp_big;

/* A random salt and its verifier for Register. 0 on success. */
int wy_srp_register(const char *password, wy_srp_big *salt, wy_srp_big *verifier);

/* The verifier of a password with a given salt. */
int wy_srp_verifier(const char *password, const uint8_t *salt, size_t salt_len, wy_srp_big *verifier);

typedef struct {
    wy_srp_big A;
    wy_srp_big M1;
    /* The M2 a server that holds the verifier sends back. */
    wy_srp_big M2;
} wy_srp_proof;

/*
 * Answers a LoginChallenge: A and M1 for LoginProof, and the M2 to expect. `a` is the secret
 * ephemeral (big-endian); NULL draws a random one, as a client always should. Refuses
 * (returns -1) a B that is 0 mod N.
 */
int wy_srp_answer(const char *password, const uint8_t *salt, size_t salt_len, const uint8_t *B, size_t B_len,
                  const uint8_t *a, size_t a_len, wy_srp_proof *out);

/* Whether the server's M2 is the expected one, compared as integers (leading zeros aside). */
bool wy_srp_same(const wy_srp_big *expected, const uint8_t *got, size_t got_len);

#endif
