// glibc's malloc tuning (`mallopt`), which Swift's Glibc module map leaves out.
#include <malloc.h>
