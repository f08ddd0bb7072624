/*
 * SRP-6a checks for the example's client half (example/srp.c).
 *
 *   srp_vector PASSWORD SALT A_SECRET B   prints v, A, M1 and M2 (hex) for fixed secrets, which
 *                                         the TypeScript test compares with tssrp6a's
 *   srp_vector --self-test                a login against the server's half of the formulas,
 *                                         with random secrets, and one with a wrong password
 */
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "srp.h"

static size_t from_hex(const char *s, uint8_t *out, size_t cap) {
    size_t n = strlen(s) / 2;
    if (n > cap) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return 0;
        out[i] = (uint8_t)v;
    }
    return n;
}

static void print(const char *name, const wy_srp_big *b) {
    printf("%s=", name);
    for (size_t i = 0; i < b->len; i++) printf("%02x", b->data[i]);
    printf("\n");
}

static BIGNUM *H(const uint8_t *a, size_t al, const uint8_t *b, size_t bl, const uint8_t *c, size_t cl) {
    uint8_t md[64];
    unsigned n;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha512(), NULL);
    EVP_DigestUpdate(ctx, a, al);
    EVP_DigestUpdate(ctx, b, bl);
    if (c) EVP_DigestUpdate(ctx, c, cl);
    EVP_DigestFinal_ex(ctx, md, &n);
    EVP_MD_CTX_free(ctx);
    return BN_bin2bn(md, (int)n, NULL);
}

/* The server's half: B = k v + g^b, S = (v^u A)^b; returns whether M1 checks and M2 matches. */
static int server_login(const char *password, const char *tried) {
    wy_srp_big salt, v, Bb;
    wy_srp_proof proof;
    uint8_t pn[256], pg[256], pa[256], pb[256], ba[256], bb[256], bs[256];
    if (wy_srp_register(password, &salt, &v) != 0) return -1;
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *N = NULL, *g = BN_new(), *b = BN_new(), *B = BN_new(), *t = BN_new(), *S = BN_new();
    BN_hex2bn(&N, "AC6BDB41324A9A9BF166DE5E1389582FAF72B6651987EE07FC3192943DB56050"
                  "A37329CBB4A099ED8193E0757767A13DD52312AB4B03310DCD7F48A9DA04FD50"
                  "E8083969EDB767B0CF6095179A163AB3661A05FBD5FAAAE82918A9962F0B93B8"
                  "55F97993EC975EEAA80D740ADBF4FF747359D041D5C33EA71D281E446B14773B"
                  "CA97B43A23FB801676BD207A436C6481F1D2B9078717461A5B9D32E688F87748"
                  "544523B524B0D57D5EA77A2775D2ECFA032CFBDBF52FB3786160279004E57AE6"
                  "AF874E7303CE53299CCC041C7BC308D82A5698F3A8D0C38271AE35F8E9DBFBB6"
                  "94B5C803D89F7AE435DE236D525F54759B65E372FCD68EF20FA7111F9E4AFF73");
    BN_set_word(g, 2);
    BN_bn2binpad(N, pn, 256);
    BN_bn2binpad(g, pg, 256);
    BIGNUM *k = H(pn, 256, pg, 256, NULL, 0);
    BIGNUM *vn = BN_bin2bn(v.data, (int)v.len, NULL);
    BN_rand_range(b, N);
    BN_mod_exp(t, g, b, N, ctx);
    BN_mod_mul(B, k, vn, N, ctx);
    BN_mod_add(B, B, t, N, ctx);
    Bb.len = (size_t)BN_bn2bin(B, Bb.data);
    int ok = -1;
    if (wy_srp_answer(tried, salt.data, salt.len, Bb.data, Bb.len, NULL, 0, &proof) == 0) {
        BIGNUM *A = BN_bin2bn(proof.A.data, (int)proof.A.len, NULL);
        BN_bn2binpad(A, pa, 256);
        BN_bn2binpad(B, pb, 256);
        BIGNUM *u = H(pa, 256, pb, 256, NULL, 0);
        BN_mod_exp(t, vn, u, N, ctx);
        BN_mod_mul(t, t, A, N, ctx);
        BN_mod_exp(S, t, b, N, ctx);
        size_t la = (size_t)BN_bn2bin(A, ba), lb = (size_t)BN_bn2bin(B, bb), ls = (size_t)BN_bn2bin(S, bs);
        BIGNUM *M1 = H(ba, la, bb, lb, bs, ls);
        BIGNUM *got = BN_bin2bn(proof.M1.data, (int)proof.M1.len, NULL);
        ok = BN_cmp(M1, got) == 0;
        uint8_t bm1[64];
        size_t lm1 = (size_t)BN_bn2bin(M1, bm1);
        BIGNUM *M2 = H(ba, la, bm1, lm1, bs, ls);
        uint8_t bm2[64];
        size_t lm2 = (size_t)BN_bn2bin(M2, bm2);
        if (ok && !wy_srp_same(&proof.M2, bm2, lm2)) ok = 0;
        BN_free(A), BN_free(u), BN_free(M1), BN_free(got), BN_free(M2);
    }
    BN_free(N), BN_free(g), BN_free(b), BN_free(B), BN_free(t), BN_free(S), BN_free(k), BN_free(vn);
    BN_CTX_free(ctx);
    return ok;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
        int right = server_login("password123", "password123");
        int wrong = server_login("password123", "password124");
        printf("srp self-test: right password %s, wrong password %s\n", right == 1 ? "accepted" : "REFUSED",
               wrong == 0 ? "refused" : "ACCEPTED");
        return right == 1 && wrong == 0 ? 0 : 1;
    }
    if (argc != 5) {
        fprintf(stderr, "usage: srp_vector PASSWORD SALT A_SECRET B | srp_vector --self-test\n");
        return 2;
    }
    static uint8_t salt[256], a[256], B[256];
    size_t sl = from_hex(argv[2], salt, sizeof salt), al = from_hex(argv[3], a, sizeof a),
           bl = from_hex(argv[4], B, sizeof B);
    wy_srp_big v;
    wy_srp_proof proof;
    if (wy_srp_verifier(argv[1], salt, sl, &v) != 0 || wy_srp_answer(argv[1], salt, sl, B, bl, a, al, &proof) != 0) {
        fprintf(stderr, "srp failed\n");
        return 1;
    }
    print("v", &v);
    print("A", &proof.A);
    print("M1", &proof.M1);
    print("M2", &proof.M2);
    return 0;
}
