// CRC32C (Castagnoli) with the SSE4.2 instruction, and the combination of two CRCs (portable C).
// The target attribute lets the one SSE4.2 function use it without compiling the target with
// -msse4.2 (no unsafe flags); the CPUID check keeps machines without it on the Swift fallback.
#include "CCRC32C.h"

// x^(2^k) modulo the (reflected) polynomial, k = 0…30: what moves a CRC past 2^k zero bits. For
// this polynomial x^(2^31) is x again, so the table repeats every 31 (not 32, as for zlib's).
static const uint32_t x2n_table[31] = {
    0x40000000, 0x20000000, 0x08000000, 0x00800000, 0x00008000, 0x82f63b78, 0x6ea2d55c, 0x18b8ea18,
    0x510ac59a, 0xb82be955, 0xb8fdb1e7, 0x88e56f72, 0x74c360a4, 0xe4172b16, 0x0d65762a, 0x35d73a62,
    0x28461564, 0xbf455269, 0xe2ea32dc, 0xfe7740e6, 0xf946610b, 0x3c204f8f, 0x538586e3, 0x59726915,
    0x734d5309, 0xbc1ac763, 0x7d0722cc, 0xd289cabe, 0xe94ca9bc, 0x05b74f3f, 0xa51e1f42,
};

// a·b modulo the polynomial, both reflected.
static uint32_t multmodp(uint32_t a, uint32_t b) {
    uint32_t m = (uint32_t)1 << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0) break;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ 0x82f63b78 : b >> 1;
    }
    return p;
}

// x^(8·bytes) modulo the polynomial: crc(A ‖ B) = crc(A)·x^(8·|B|) ⊕ crc(B).
static uint32_t x8nmodp(size_t bytes) {
    uint32_t p = (uint32_t)1 << 31;
    unsigned k = 3;
    while (bytes) {
        if (bytes & 1) p = multmodp(x2n_table[k % 31], p);
        bytes >>= 1;
        k++;
    }
    return p;
}

uint32_t subledger_crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t length_b) {
    return multmodp(x8nmodp(length_b), crc_a) ^ crc_b;
}

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <string.h>

bool subledger_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

// Below this, one stream; above, three, whose combination costs about a microsecond.
#define THREE_STREAMS_FROM 3072

// The crc32 instruction takes three cycles but can start one a cycle: three independent streams
// over the buffer's thirds keep it busy (about twice one stream's rate), then are combined.
__attribute__((target("sse4.2")))
uint32_t subledger_crc32c_hardware(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t c = (uint32_t)~crc;
    if (length >= THREE_STREAMS_FROM) {
        size_t part = (length / 3) & ~(size_t)7;
        const unsigned char *p1 = p + part, *p2 = p + 2 * part;
        uint64_t c1 = 0xffffffff, c2 = 0xffffffff;
        for (size_t i = 0; i < part; i += 8) {
            uint64_t w0, w1, w2;
            memcpy(&w0, p + i, 8);
            memcpy(&w1, p1 + i, 8);
            memcpy(&w2, p2 + i, 8);
            c = _mm_crc32_u64(c, w0);
            c1 = _mm_crc32_u64(c1, w1);
            c2 = _mm_crc32_u64(c2, w2);
        }
        uint32_t shift = x8nmodp(part);
        uint32_t sum = multmodp(shift, ~(uint32_t)c) ^ ~(uint32_t)c1;
        sum = multmodp(shift, sum) ^ ~(uint32_t)c2;
        c = (uint32_t)~sum;
        p += 3 * part;
        length -= 3 * part;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        length -= 8;
    }
    while (length > 0) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
        length--;
    }
    return ~(uint32_t)c;
}

#else

bool subledger_crc32c_hardware_available(void) { return false; }

uint32_t subledger_crc32c_hardware(uint32_t crc, const void *data, size_t length) {
    (void)data;
    (void)length;
    return crc;
}

#endif
