#ifndef SUBLEDGER_CCRC32C_H
#define SUBLEDGER_CCRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/// True when the CPU has the SSE4.2 CRC32 instruction (checked once with CPUID).
bool subledger_crc32c_hardware_available(void);

/// Extends `crc` (the finished CRC of the bytes before; 0 to start) over `length` bytes using the
/// SSE4.2 `crc32` instruction. Call only when `subledger_crc32c_hardware_available()` is true.
uint32_t subledger_crc32c_hardware(uint32_t crc, const void *data, size_t length);

/// The CRC32C of A followed by B, from the CRC of A, the CRC of B (each started from 0) and B's
/// length: what lets parts of one input be summed on different cores.
uint32_t subledger_crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t length_b);

#endif
