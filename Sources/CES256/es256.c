// EC_GROUP_precompute_mult and EC_POINT_get_Jprojective_coordinates_GFp are deprecated in OpenSSL 3
// without a replacement: the first is still the only way to have libcrypto precompute the
// multiples of a point other than the curve's generator, the second the only way to a point's
// coordinates without a field inversion.
#define OPENSSL_SUPPRESS_DEPRECATED

#include "CES256.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <stdint.h>
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

// Inversion modulo the group order by Bernstein and Yang's divsteps ("Fast constant-time gcd
// computation and modular inversion", 2019), in its variable-time form: the signature is public,
// so nothing needs constant time. BN_mod_inverse took 24 µs of the 49 µs a check cost; this takes
// 2–3.4 µs.
//
// A scalar is Σ v[i]·2^(62·i), v[0] to v[3] in [0, 2^62) and v[4] signed, so it can hold the
// negative values the iteration passes through, and a 62 × 62-bit product plus carries fits in
// 128 bits.
typedef struct {
    int64_t v[5];
} scalar;

#ifndef __SIZEOF_INT128__
#error "the divsteps inversion needs __int128 (GCC or Clang on a 64-bit target)"
#endif
__extension__ typedef __int128 wide;

#define LIMB_MASK (UINT64_MAX >> 2)

static void scalar_from_bytes(scalar *out, const unsigned char *bytes) {
    uint64_t w[4];
    for (int i = 0; i < 4; i++) {
        uint64_t word = 0;
        for (int j = 0; j < 8; j++) word = word << 8 | bytes[(3 - i) * 8 + j];
        w[i] = word;
    }
    out->v[0] = (int64_t)(w[0] & LIMB_MASK);
    out->v[1] = (int64_t)((w[0] >> 62 | w[1] << 2) & LIMB_MASK);
    out->v[2] = (int64_t)((w[1] >> 60 | w[2] << 4) & LIMB_MASK);
    out->v[3] = (int64_t)((w[2] >> 58 | w[3] << 6) & LIMB_MASK);
    out->v[4] = (int64_t)(w[3] >> 56);
}

/// For a scalar in [0, 2^256).
static void scalar_to_bytes(unsigned char *bytes, const scalar *value) {
    const uint64_t *v = (const uint64_t *)value->v;
    uint64_t w[4] = {v[0] | v[1] << 62, v[1] >> 2 | v[2] << 60, v[2] >> 4 | v[3] << 58, v[3] >> 6 | v[4] << 56};
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 8; j++) bytes[(3 - i) * 8 + j] = (unsigned char)(w[i] >> (56 - 8 * j));
    }
}

static int scalar_is_zero(const scalar *a) {
    return (a->v[0] | a->v[1] | a->v[2] | a->v[3] | a->v[4]) == 0;
}

static int scalar_compare(const scalar *a, const scalar *b) {
    for (int i = 4; i >= 0; i--) {
        if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
    }
    return 0;
}

/// a += sign·b, sign ±1.
static void scalar_add(scalar *a, const scalar *b, int64_t sign) {
    int64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        carry += a->v[i] + sign * b->v[i];
        a->v[i] = (int64_t)((uint64_t)carry & LIMB_MASK);
        carry >>= 62;
    }
    a->v[4] += sign * b->v[4] + carry;
}

/// Brings a in (-2m, 3m) into [0, m).
static void scalar_reduce(scalar *a, const scalar *m) {
    while (a->v[4] < 0) scalar_add(a, m, 1);
    while (scalar_compare(a, m) >= 0) scalar_add(a, m, -1);
}

/// out = (x·a + y·b + k·m) / 2^62, where the sum is a multiple of 2^62. |x| + |y| ≤ 2^62.
static void scalar_combine(scalar *out, int64_t x, const scalar *a, int64_t y, const scalar *b, uint64_t k, const scalar *m) {
    wide sum = (wide)x * a->v[0] + (wide)y * b->v[0] + (wide)k * m->v[0];
    sum >>= 62;
    for (int i = 1; i < 5; i++) {
        sum += (wide)x * a->v[i] + (wide)y * b->v[i] + (wide)k * m->v[i];
        if (i == 4) break;
        out->v[i - 1] = (int64_t)((uint64_t)sum & LIMB_MASK);
        sum >>= 62;
    }
    out->v[3] = (int64_t)((uint64_t)sum & LIMB_MASK);
    out->v[4] = (int64_t)(sum >> 62);
}

/// 62 divsteps of (delta, f, g) on the low 64 bits of f (odd) and g, which decide them. Returns
/// the new delta and the matrix t = (u v; q r) with 2^62·(f', g') = t·(f, g).
static int64_t divsteps_62(int64_t delta, uint64_t f, uint64_t g, int64_t t[4]) {
    int64_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < 62; i++) {
        if ((g & 1) && delta > 0) {
            // (f, g) ← (g, (g − f) / 2)
            int64_t oldU = u, oldV = v;
            u = 2 * q;
            v = 2 * r;
            q -= oldU;
            r -= oldV;
            uint64_t oldF = f;
            f = g;
            g = (g - oldF) >> 1;
            delta = 1 - delta;
            continue;
        }
        if (g & 1) {
            // g ← (g + f) / 2
            g = (g + f) >> 1;
            q += u;
            r += v;
        } else {
            g >>= 1;
        }
        u *= 2;
        v *= 2;
        delta += 1;
    }
    t[0] = u;
    t[1] = v;
    t[2] = q;
    t[3] = r;
    return delta;
}

/// out = x⁻¹ mod m, for odd m below 2^256 and x in [1, m) coprime with it; 0 if the iteration
/// does not end in the bound that holds for such inputs (it then has no answer to give).
static int scalar_inverse(scalar *out, const scalar *x, const scalar *m, uint64_t m_inverse_62) {
    // f = m and g = x, with d·x ≡ f and e·x ≡ g (mod m); when g reaches 0, f = ±1.
    scalar f = *m, g = *x, d = {{0}}, e = {{1}}, none = {{0}};
    int64_t delta = 1, t[4];
    // Bernstein and Yang bound the divsteps 256-bit inputs need by 741 (theorem 11.2): 12 rounds.
    for (int round = 0; !scalar_is_zero(&g); round++) {
        if (round == 12) return 0;
        uint64_t lowF = (uint64_t)f.v[0] | (uint64_t)f.v[1] << 62, lowG = (uint64_t)g.v[0] | (uint64_t)g.v[1] << 62;
        delta = divsteps_62(delta, lowF, lowG, t);
        scalar nextF, nextG, nextD, nextE;
        scalar_combine(&nextF, t[0], &f, t[1], &g, 0, &none);
        scalar_combine(&nextG, t[2], &f, t[3], &g, 0, &none);
        // d and e are divided by 2^62 modulo m: add the multiple of m that clears their low bits.
        uint64_t lowD = (uint64_t)t[0] * (uint64_t)d.v[0] + (uint64_t)t[1] * (uint64_t)e.v[0];
        uint64_t lowE = (uint64_t)t[2] * (uint64_t)d.v[0] + (uint64_t)t[3] * (uint64_t)e.v[0];
        scalar_combine(&nextD, t[0], &d, t[1], &e, (0 - lowD * m_inverse_62) & LIMB_MASK, m);
        scalar_combine(&nextE, t[2], &d, t[3], &e, (0 - lowE * m_inverse_62) & LIMB_MASK, m);
        scalar_reduce(&nextD, m);
        scalar_reduce(&nextE, m);
        f = nextF;
        g = nextG;
        d = nextD;
        e = nextE;
    }
    // f = ±gcd(x, m): anything but ±1 means x had no inverse (or the arithmetic is wrong).
    scalar one = {{1}}, minusOne = {{LIMB_MASK, LIMB_MASK, LIMB_MASK, LIMB_MASK, -1}};
    if (scalar_compare(&f, &one) != 0 && scalar_compare(&f, &minusOne) != 0) return 0;
    if (f.v[4] < 0) {
        scalar negated = *m;
        scalar_add(&negated, &d, -1);
        scalar_reduce(&negated, m);
        d = negated;
    }
    *out = d;
    return 1;
}

// The order n of P-256 in 62-bit limbs, and n⁻¹ mod 2⁶².
static const scalar order = {{0x33B9CAC2FC632551, 0x339BEAB69C5E7A13, 0x3FFFFFFFFFFFFFFB, 0x3FFFFFC00000003F, 0xFF}};
static const uint64_t order_inverse_62 = 0x332E375511FF43B1;

int subledger_p256_order_inverse(const void *value, void *inverse) {
    scalar x, result;
    scalar_from_bytes(&x, value);
    if (scalar_is_zero(&x) || scalar_compare(&x, &order) >= 0) return 0;
    if (!scalar_inverse(&result, &x, &order, order_inverse_62)) return 0;
    scalar_to_bytes(inverse, &result);
    return 1;
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
    BIGNUM *r = BN_CTX_get(context), *e = BN_CTX_get(context), *w = BN_CTX_get(context);
    BIGNUM *u1 = BN_CTX_get(context), *u2 = BN_CTX_get(context);
    BIGNUM *x = BN_CTX_get(context), *z = BN_CTX_get(context), *candidate = BN_CTX_get(context);
    const BIGNUM *n = EC_GROUP_get0_order(key->curve);
    if (candidate == NULL) goto done;
    const unsigned char *rs = signature;
    unsigned char inverse[32];
    // SEC 1 §4.1.4: r and s in [1, n - 1] (the inverse refuses s outside it); the digest, as long
    // as n, is used whole.
    if (BN_bin2bn(rs, 32, r) == NULL || BN_bin2bn(digest, 32, e) == NULL) goto done;
    if (BN_is_zero(r) || BN_cmp(r, n) >= 0) goto done;
    if (!subledger_p256_order_inverse(rs + 32, inverse) || BN_bin2bn(inverse, 32, w) == NULL) goto done;
    if (BN_mod_mul(u1, e, w, n, context) != 1 || BN_mod_mul(u2, r, w, n, context) != 1) goto done;
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
    // In Jacobian coordinates x(R) = X / Z², so x(R) mod n = r means X = r·Z² or, when r + n is
    // below p, X = (r + n)·Z² (mod p): two multiplications instead of the field inversion that
    // affine coordinates cost (about 4.5 of the check's 25 µs). Every prime-field method of
    // OpenSSL 3 keeps points in Jacobian coordinates; the corner tests would catch one that did not.
    const BIGNUM *p = EC_GROUP_get0_field(key->curve);
    // X is reduced too: what a method hands over need not be below p.
    if (EC_POINT_get_Jprojective_coordinates_GFp(key->curve, sum, x, NULL, z, context) != 1) goto done;
    if (BN_nnmod(x, x, p, context) != 1) goto done;
    if (BN_mod_sqr(z, z, p, context) != 1 || BN_mod_mul(candidate, r, z, p, context) != 1) goto done;
    verified = BN_cmp(candidate, x) == 0;
    if (!verified && BN_add(candidate, r, n) == 1 && BN_cmp(candidate, p) < 0) {
        if (BN_mod_mul(candidate, candidate, z, p, context) != 1) goto done;
        verified = BN_cmp(candidate, x) == 0;
    }
done:
    EC_POINT_free(sum);
    EC_POINT_free(qPart);
    BN_CTX_end(context);
    BN_CTX_free(context);
    ERR_pop_to_mark();
    return verified;
}
