// The compiler's prefetch hint, which Swift does not expose: a loop over a table far larger than
// the caches asks for the lines it will probe a few iterations ahead, so their misses overlap.
static inline void subledger_prefetch(const void *address) {
    __builtin_prefetch(address, 1, 3);
}
