#ifndef SUBLEDGER_CBYTESCAN_H
#define SUBLEDGER_CBYTESCAN_H

#include <stddef.h>
#include <stdint.h>

/// The length of the run of bytes at `bytes` (at most `count`) that need no attention inside a
/// JSON string: printable ASCII (0x20-0x7E, and DEL) other than `"` and `\`. Stops before the
/// first quote, backslash, control character or non-ASCII byte.
size_t subledger_json_plain_run(const uint8_t *bytes, size_t count);

#endif
