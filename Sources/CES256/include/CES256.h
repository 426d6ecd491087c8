#ifndef SUBLEDGER_CES256_H
#define SUBLEDGER_CES256_H

#include <stddef.h>
#include <stdint.h>

/// One P-256 public key with its multiples precomputed, for ES256 verification.
///
/// libcrypto's ECDSA verification computes u1·G + u2·Q. Its multiples of the curve's generator G
/// are precomputed, so u1·G costs about 5 µs, but u2·Q is computed from scratch, about 32 µs of
/// the 47 µs a verification takes. Apple signs every App Store message with one leaf key for
/// months, so the same table for Q (a P-256 group whose generator is Q, precomputed by
/// libcrypto) makes u2·Q cost what u1·G costs. With the tables, the rest of the check dominated:
/// s⁻¹ mod n (BN_mod_inverse, 24 µs) and x(R) (a field inversion, 4.5 µs), so those are computed
/// here without libcrypto's generic inversions.
typedef struct subledger_es256_key subledger_es256_key;

/// Builds the table for the encoded P-256 point `point` (SEC 1: 0x04 || x || y, or compressed),
/// about 17 ms and 150 KB. NULL when it is not a point on the curve other than infinity, or
/// libcrypto fails (the errors this queued are taken off libcrypto's queue again).
subledger_es256_key *subledger_es256_key_new(const void *point, size_t length);

void subledger_es256_key_free(subledger_es256_key *key);

/// Verifies the raw ES256 signature `signature` (r || s, 32 bytes each) over the SHA-256
/// `digest` (32 bytes): 1 when it verifies, 0 when it does not or libcrypto fails (the errors
/// this queued are taken off the queue again). Safe to call from many threads at once on one key.
int subledger_es256_verify(const subledger_es256_key *key, const void *digest, const void *signature);

/// Writes s⁻¹ mod n, for the big-endian 32-byte scalar `value` = s in [1, n − 1] and n the order of
/// P-256, to `inverse` (32 bytes, big-endian): 1, or 0 when s is outside that range.
int subledger_p256_order_inverse(const void *value, void *inverse);

#endif
