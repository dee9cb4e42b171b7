/* locus.h: what a C task touches, declared for locus (link nothing extra: the
   functions live in locus's libgomp.so.1, version LOCUS_1.0).

   Under `locus run` (or with locus's libgomp on LD_LIBRARY_PATH) these tell the
   running task's footprint to the declared-footprint counter source, which `cats` and
   `cab` use where hardware counters are missing, and to the profilers; they cost a
   call and a flag test when nobody listens. Under GCC's own libgomp the program fails
   to load, naming the symbol: guard the calls with LOCUS_FOOTPRINTS if a build must
   run on both. */
#ifndef LOCUS_H
#define LOCUS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* The running task reads len bytes at ptr. */
void locus_footprint_read(const void *ptr, size_t len);
/* The running task writes len bytes at ptr. */
void locus_footprint_write(const void *ptr, size_t len);
#ifdef __cplusplus
}
#endif
#endif
