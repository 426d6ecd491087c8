// EC_GROUP_precompute_mult is deprecated in OpenSSL 3 without a replacement: it is still the only
// way to have libcrypto precompute the multiples of a point other than the curve's generator.
#define OPENSSL_SUPPRESS_DEPRECATED

#include "CES256.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <stdlib.h>

struct subledger_es256_key {
    /// P-256 as named: libcrypto's own table for G.
    EC_GROUP *curve;
    /// P-256 with Q as its generator, and the table libcrypto precomputed for it.
    EC_GROUP *key;
};

void subledger_es256_key_free(subledger_es256_key *key) {
    if (key == NULL) return;
    EC_GROUP_free(key->curve);
    EC_GROUP_free(key->key);
    free(key);
}

subledger_es256_key *subledger_es256_key_new(const void *point, size_t length) {
    ERR_set_mark();
    subledger_es256_key *key = calloc(1, sizeof *key);
    BN_CTX *context = BN_CTX_new();
    EC_POINT *q = NULL;
    int built = 0;
    if (key == NULL || context == NULL) goto done;
    key->curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    key->key = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    if (key->curve == NULL || key->key == NULL) goto done;
    q = EC_POINT_new(key->key);
    // oct2point checks that the point is on the curve; P-256's cofactor is 1, so every point on it
    // other than infinity has the group's order.
    if (q == NULL || EC_POINT_oct2point(key->key, q, point, length, context) != 1) goto done;
    if (EC_POINT_is_at_infinity(key->key, q)) goto done;
    if (EC_GROUP_set_generator(key->key, q, EC_GROUP_get0_order(key->curve), BN_value_one()) != 1) goto done;
    built = EC_GROUP_precompute_mult(key->key, context) == 1;
done:
    EC_POINT_free(q);
    BN_CTX_free(context);
    ERR_pop_to_mark();
    if (!built) {
        subledger_es256_key_free(key);
        return NULL;
    }
    return key;
}

int subledger_es256_verify(const subledger_es256_key *key, const void *digest, const void *signature) {
    ERR_set_mark();
    BN_CTX *context = BN_CTX_new();
    if (context == NULL) {
        ERR_pop_to_mark();
        return 0;
    }
    int verified = 0;
    EC_POINT *sum = NULL, *qPart = NULL;
    BN_CTX_start(context);
    BIGNUM *r = BN_CTX_get(context), *s = BN_CTX_get(context), *e = BN_CTX_get(context);
    BIGNUM *w = BN_CTX_get(context), *u1 = BN_CTX_get(context), *u2 = BN_CTX_get(context);
    BIGNUM *x = BN_CTX_get(context);
    const BIGNUM *order = EC_GROUP_get0_order(key->curve);
    if (x == NULL) goto done;
    const unsigned char *rs = signature;
    if (BN_bin2bn(rs, 32, r) == NULL || BN_bin2bn(rs + 32, 32, s) == NULL || BN_bin2bn(digest, 32, e) == NULL) goto done;
    // SEC 1 §4.1.4: r and s in [1, n - 1]; the digest, as long as n, is used whole.
    if (BN_is_zero(r) || BN_is_zero(s) || BN_cmp(r, order) >= 0 || BN_cmp(s, order) >= 0) goto done;
    if (BN_mod_inverse(w, s, order, context) == NULL) goto done;
    if (BN_mod_mul(u1, e, w, order, context) != 1 || BN_mod_mul(u2, r, w, order, context) != 1) goto done;
    sum = EC_POINT_new(key->curve);
    qPart = EC_POINT_new(key->key);
    if (sum == NULL || qPart == NULL) goto done;
    // u1·G and u2·Q, each from its table, then their sum R: valid when R is not infinity and
    // x(R) mod n = r. The two groups are one curve with two generators, and libcrypto lets points
    // of one be used on the other (ec_point_is_compat: same method, same curve name).
    if (EC_POINT_mul(key->curve, sum, u1, NULL, NULL, context) != 1) goto done;
    if (EC_POINT_mul(key->key, qPart, u2, NULL, NULL, context) != 1) goto done;
    if (EC_POINT_add(key->curve, sum, sum, qPart, context) != 1) goto done;
    if (EC_POINT_is_at_infinity(key->curve, sum)) goto done;
    if (EC_POINT_get_affine_coordinates(key->curve, sum, x, NULL, context) != 1) goto done;
    if (BN_nnmod(x, x, order, context) != 1) goto done;
    verified = BN_cmp(x, r) == 0;
done:
    EC_POINT_free(sum);
    EC_POINT_free(qPart);
    BN_CTX_end(context);
    BN_CTX_free(context);
    ERR_pop_to_mark();
    return verified;
}
