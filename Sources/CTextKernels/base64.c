// Base64 decoding of a JWS payload, 32 characters (24 bytes) a step with AVX2 (through a target
// attribute and a CPUID check, so no unsafe flags). Each character is classified by range
// (A-Z, a-z, 0-9, the two alphabet-specific characters), mapped to its 6-bit value by adding
// its class's offset, and four values are packed into three bytes with two multiply-adds.
#include "CTextKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2")))
static size_t decode_blocks_avx2(const uint8_t *text, size_t count, uint8_t *output, size_t capacity,
                                 uint8_t char62, uint8_t char63) {
    const __m256i c62 = _mm256_set1_epi8((char)char62);
    const __m256i c63 = _mm256_set1_epi8((char)char63);
    const __m256i offset62 = _mm256_set1_epi8((char)(62 - char62));
    const __m256i offset63 = _mm256_set1_epi8((char)(63 - char63));
    // Pairs of values into 12 bits (a * 64 + b), then pairs of those into 24 (ab * 4096 + cd).
    const __m256i pairs = _mm256_set1_epi32(0x01400140);
    const __m256i quads = _mm256_set1_epi32(0x00011000);
    // The three bytes of each 24-bit group, most significant first; 12 per 128-bit lane.
    const __m256i bytes = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                           2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    size_t read = 0, written = 0;
    while (read + 32 <= count && written + 32 <= capacity) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(text + read));
        // Signed compares: bytes of 0x80 and above are negative and fall in no range.
        __m256i upper = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8('A' - 1)), _mm256_cmpgt_epi8(_mm256_set1_epi8('Z' + 1), v));
        __m256i lower = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8('a' - 1)), _mm256_cmpgt_epi8(_mm256_set1_epi8('z' + 1), v));
        __m256i digit = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8('0' - 1)), _mm256_cmpgt_epi8(_mm256_set1_epi8('9' + 1), v));
        __m256i is62 = _mm256_cmpeq_epi8(v, c62);
        __m256i is63 = _mm256_cmpeq_epi8(v, c63);
        __m256i valid = _mm256_or_si256(_mm256_or_si256(upper, lower), _mm256_or_si256(digit, _mm256_or_si256(is62, is63)));
        if ((unsigned)_mm256_movemask_epi8(valid) != 0xFFFFFFFFu) break;
        __m256i offset = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(upper, _mm256_set1_epi8(-'A')), _mm256_and_si256(lower, _mm256_set1_epi8(26 - 'a'))),
            _mm256_or_si256(_mm256_and_si256(digit, _mm256_set1_epi8(52 - '0')),
                            _mm256_or_si256(_mm256_and_si256(is62, offset62), _mm256_and_si256(is63, offset63))));
        __m256i values = _mm256_add_epi8(v, offset);
        __m256i packed = _mm256_madd_epi16(_mm256_maddubs_epi16(values, pairs), quads);
        packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(packed, bytes), lanes);
        _mm256_storeu_si256((__m256i *)(output + written), packed);
        read += 32;
        written += 24;
    }
    return read;
}

size_t subledger_base64_decode_blocks(const uint8_t *text, size_t count, uint8_t *output, size_t capacity,
                                      uint8_t char62, uint8_t char63) {
    // CPUID once; threads racing here store the same value.
    static int avx2 = -1;
    int known = __atomic_load_n(&avx2, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&avx2, known, __ATOMIC_RELAXED);
    }
    return known ? decode_blocks_avx2(text, count, output, capacity, char62, char63) : 0;
}

#else

size_t subledger_base64_decode_blocks(const uint8_t *text, size_t count, uint8_t *output, size_t capacity,
                                      uint8_t char62, uint8_t char63) {
    (void)text; (void)count; (void)output; (void)capacity; (void)char62; (void)char63;
    return 0;
}

#endif
