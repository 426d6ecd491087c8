// libpq, PostgreSQL's C client (Debian: libpq-dev), for the benchmark's PostgreSQL columns only.
#include <libpq-fe.h>
