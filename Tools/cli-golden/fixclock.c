/* LD_PRELOAD shim for generate.sh: CLOCK_REALTIME reads 2027-01-15T08:00:00Z. */
#define _GNU_SOURCE
#include <time.h>
#include <dlfcn.h>
int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
    if (id == CLOCK_REALTIME) { ts->tv_sec = 1800000000; ts->tv_nsec = 0; return 0; }
    return real(id, ts);
}
