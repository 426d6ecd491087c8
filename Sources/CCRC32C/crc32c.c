// CRC32C (Castagnoli) with the SSE4.2 instruction. The target attribute lets this one function
// use SSE4.2 without compiling the target with -msse4.2 (no unsafe flags); the CPUID check
// keeps machines without it on the Swift fallback.
#include "CCRC32C.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <string.h>

bool subledger_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2")))
uint32_t subledger_crc32c_hardware(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t c = (uint32_t)~crc;
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
