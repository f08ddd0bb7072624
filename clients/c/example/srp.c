#include "srp.h"

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>

/* RFC 5054 appendix A, 2048-bit group. */
static const char N_HEX[] =
    "AC6BDB41324A9A9BF166DE5E1389582FAF72B6651987EE07FC3192943DB56050"
    "A37329CBB4A099ED8193E0757767A13DD52312AB4B03310DCD7F48A9DA04FD50"
    "E8083969EDB767B0CF6095179A163AB3661A05FBD5FAAAE82918A9962F0B93B8"
    "55F97993EC975EEAA80D740ADBF4FF747359D041D5C33EA71D281E446B14773B"
    "CA97B43A23FB801676BD207A436C6481F1D2B9078717461A5B9D32E688F87748"
    "544523B524B0D57D5EA77A2775D2ECFA032CFBDBF52FB3786160279004E57AE6"
    "AF874E7303CE53299CCC041C7BC308D82A5698F3A8D0C38271AE35F8E9DBFBB6"
    "94B5C803D89F7AE435DE236D525F54759B65E372FCD68EF20FA7111F9E4AFF73";

/* bytes(n): big-endian without leading zeros; 0 is the single byte 00. */
static size_t to_bytes(const BIGNUM *n, uint8_t *out) {
    if (BN_is_zero(n)) {
        out[0] = 0;
        return 1;
    }
    return (size_t)BN_bn2bin(n, out);
}

static void pad(const BIGNUM *n, uint8_t out[WY_SRP_N_BYTES]) { BN_bn2binpad(n, out, WY_SRP_N_BYTES); }

/* H over up to three byte strings, as a big number. */
static BIGNUM *hash(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, const uint8_t *c,
                    size_t c_len) {
    uint8_t md[WY_SRP_HASH_BYTES];
    unsigned md_len = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx) return NULL;
    int ok = EVP_DigestInit_ex(ctx, EVP_sha512(), NULL) && EVP_DigestUpdate(ctx, a, a_len) &&
             (!b || EVP_DigestUpdate(ctx, b, b_len)) && (!c || EVP_DigestUpdate(ctx, c, c_len)) &&
             EVP_DigestFinal_ex(ctx, md, &md_len);
    EVP_MD_CTX_free(ctx);
    return ok ? BN_bin2bn(md, (int)md_len, NULL) : NULL;
}

static void put(const BIGNUM *n, wy_srp_big *out) { out->len = to_bytes(n, out->data); }

/* x = H(bytes(s) | H(P)); the salt is read as an integer first (leading zeros do not count). */
static BIGNUM *compute_x(const char *password, const uint8_t *salt, size_t salt_len) {
    uint8_t inner[WY_SRP_HASH_BYTES];
    unsigned inner_len = 0;
    uint8_t s[WY_SRP_N_BYTES];
    if (salt_len > sizeof s) return NULL;
    if (!EVP_Digest(password, strlen(password), inner, &inner_len, EVP_sha512(), NULL)) return NULL;
    BIGNUM *sn = BN_bin2bn(salt, (int)salt_len, NULL);
    if (!sn) return NULL;
    size_t s_len = to_bytes(sn, s);
    BN_free(sn);
    return hash(s, s_len, inner, inner_len, NULL, 0);
}

typedef struct {
    BN_CTX *ctx;
    BIGNUM *N, *g, *k;
} group;

static void group_free(group *G) {
    BN_free(G->N);
    BN_free(G->g);
    BN_free(G->k);
    BN_CTX_free(G->ctx);
}

static int group_init(group *G) {
    uint8_t pn[WY_SRP_N_BYTES], pg[WY_SRP_N_BYTES];
    memset(G, 0, sizeof *G);
    G->ctx = BN_CTX_new();
    G->g = BN_new();
    if (!G->ctx || !G->g || !BN_hex2bn(&G->N, N_HEX) || !BN_set_word(G->g, 2)) return -1;
    pad(G->N, pn);
    pad(G->g, pg);
    G->k = hash(pn, sizeof pn, pg, sizeof pg, NULL, 0);
    return G->k ? 0 : -1;
}

int wy_srp_verifier(const char *password, const uint8_t *salt, size_t salt_len, wy_srp_big *verifier) {
    group G;
    int rc = -1;
    BIGNUM *x = NULL, *v = BN_new();
    if (group_init(&G) == 0 && v && (x = compute_x(password, salt, salt_len)) &&
        BN_mod_exp(v, G.g, x, G.N, G.ctx)) {
        put(v, verifier);
        rc = 0;
    }
    BN_clear_free(x);
    BN_free(v);
    group_free(&G);
    return rc;
}

int wy_srp_register(const char *password, wy_srp_big *salt, wy_srp_big *verifier) {
    uint8_t raw[WY_SRP_SALT_BYTES];
    if (RAND_bytes(raw, sizeof raw) != 1) return -1;
    /* As an integer, the way tssrp6a draws and sends it: no leading zero bytes. */
    BIGNUM *s = BN_bin2bn(raw, sizeof raw, NULL);
    if (!s) return -1;
    put(s, salt);
    BN_free(s);
    return wy_srp_verifier(password, salt->data, salt->len, verifier);
}

int wy_srp_answer(const char *password, const uint8_t *salt, size_t salt_len, const uint8_t *B_bytes, size_t B_len,
                  const uint8_t *a_bytes, size_t a_len, wy_srp_proof *out) {
    group G;
    int rc = -1;
    BIGNUM *a = NULL, *B = NULL, *x = NULL, *u = NULL, *S = NULL, *M1 = NULL, *M2 = NULL;
    BIGNUM *A = BN_new(), *kv = BN_new(), *base = BN_new(), *exp = BN_new(), *tmp = BN_new();
    uint8_t pa[WY_SRP_N_BYTES], pb[WY_SRP_N_BYTES];
    uint8_t ba[WY_SRP_N_BYTES], bb[WY_SRP_N_BYTES], bs[WY_SRP_N_BYTES], bm1[WY_SRP_N_BYTES];
    size_t la, lb, ls, lm1;
    if (group_init(&G) != 0 || !A || !kv || !base || !exp || !tmp) goto done;
    B = BN_bin2bn(B_bytes, (int)B_len, NULL);
    if (!B || !BN_mod(tmp, B, G.N, G.ctx) || BN_is_zero(tmp)) goto done;
    if (a_bytes) {
        a = BN_bin2bn(a_bytes, (int)a_len, NULL);
    } else {
        a = BN_new();
        do {
            if (!a || !BN_priv_rand_range(a, G.N)) goto done;
        } while (BN_is_zero(a));
    }
    if (!a || !BN_mod_exp(A, G.g, a, G.N, G.ctx)) goto done;
    if (!(x = compute_x(password, salt, salt_len))) goto done;
    pad(A, pa);
    pad(B, pb);
    if (!(u = hash(pa, sizeof pa, pb, sizeof pb, NULL, 0))) goto done;
    /* base = B - k g^x (mod N), exp = a + u x; S = base^exp mod N. */
    if (!BN_mod_exp(kv, G.g, x, G.N, G.ctx) || !BN_mod_mul(kv, kv, G.k, G.N, G.ctx) ||
        !BN_mod_sub(base, B, kv, G.N, G.ctx) || !BN_mul(exp, u, x, G.ctx) || !BN_add(exp, exp, a))
        goto done;
    if (!(S = BN_new()) || !BN_mod_exp(S, base, exp, G.N, G.ctx)) goto done;
    la = to_bytes(A, ba);
    lb = to_bytes(B, bb);
    ls = to_bytes(S, bs);
    if (!(M1 = hash(ba, la, bb, lb, bs, ls))) goto done;
    lm1 = to_bytes(M1, bm1);
    if (!(M2 = hash(ba, la, bm1, lm1, bs, ls))) goto done;
    put(A, &out->A);
    put(M1, &out->M1);
    put(M2, &out->M2);
    rc = 0;
done:
    BN_clear_free(a);
    BN_clear_free(x);
    BN_clear_free(S);
    BN_clear_free(exp);
    BN_clear_free(base);
    BN_clear_free(kv);
    BN_free(B);
    BN_free(u);
    BN_free(M1);
    BN_free(M2);
    BN_free(A);
    BN_free(tmp);
    group_free(&G);
    return rc;
}

bool wy_srp_same(const wy_srp_big *expected, const uint8_t *got, size_t got_len) {
    size_t i = 0, j = 0;
    while (i < expected->len && expected->data[i] == 0) i++;
    while (j < got_len && got[j] == 0) j++;
    return expected->len - i == got_len - j && memcmp(expected->data + i, got + j, got_len - j) == 0;
}
