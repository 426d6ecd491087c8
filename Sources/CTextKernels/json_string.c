// The JSON scanner's inner loop over string bytes: the nested JWS strings of a notification are
// kilobytes of plain base64url. SSE2 (every x86-64) takes 16 bytes a step; a byte is special when
// it is '"', '\' or, compared as signed, below 0x20 (which also catches every byte of 0x80 and
// above).
#include "CTextKernels.h"

static size_t plain_tail(const uint8_t *bytes, size_t start, size_t count) {
    size_t i = start;
    while (i < count) {
        uint8_t byte = bytes[i];
        if (byte < 0x20 || byte >= 0x80 || byte == '"' || byte == '\\') break;
        i++;
    }
    return i;
}

#if defined(__x86_64__)
#include <emmintrin.h>

size_t subledger_json_plain_run(const uint8_t *bytes, size_t count) {
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(bytes + i));
        __m128i special = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
            _mm_cmplt_epi8(v, space));
        unsigned mask = (unsigned)_mm_movemask_epi8(special);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
    }
    return plain_tail(bytes, i, count);
}

#else

size_t subledger_json_plain_run(const uint8_t *bytes, size_t count) {
    return plain_tail(bytes, 0, count);
}

#endif
