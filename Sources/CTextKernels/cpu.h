#ifndef SUBLEDGER_CTEXTKERNELS_CPU_H
#define SUBLEDGER_CTEXTKERNELS_CPU_H

#if defined(__x86_64__)
/// Whether the CPU has AVX2: CPUID once per file; threads racing here store the same value.
static inline int subledger_has_avx2(void) {
    static int avx2 = -1;
    int known = __atomic_load_n(&avx2, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&avx2, known, __ATOMIC_RELAXED);
    }
    return known;
}
#endif

#endif
