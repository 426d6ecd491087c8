#ifndef SUBLEDGER_CTEXTKERNELS_H
#define SUBLEDGER_CTEXTKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// The length of the run of bytes at `bytes` (at most `count`) that need no attention inside a
/// JSON string: printable ASCII (0x20-0x7E, and DEL) other than `"` and `\`. Stops before the
/// first quote, backslash, control character or non-ASCII byte.
size_t subledger_json_plain_run(const uint8_t *bytes, size_t count);

/// Decodes whole blocks of 32 base64 characters at the start of `text` (at most `count`) into
/// `output` (room for `capacity` bytes; each block writes 32 and keeps 24), stopping before a
/// block that holds a character outside the alphabet `A-Z a-z 0-9` plus `char62` and `char63`.
/// Returns the characters decoded, a multiple of 32 (0 without AVX2); the caller decodes the rest
/// and reports errors.
size_t subledger_base64_decode_blocks(const uint8_t *text, size_t count, uint8_t *output, size_t capacity,
                                      uint8_t char62, uint8_t char63);

#endif
