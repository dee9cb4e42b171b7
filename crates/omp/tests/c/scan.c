/* Inclusive and exclusive scans (reduction(inscan, ...) with the scan directive) in
   worksharing loops: GCC keeps the members' partial sums in the construct's scratch
   memory (the mem argument of GOMP_loop_start), which every member must see. */
#include <omp.h>
#include "check.h"
#define N 1000
static int a[N], incl[N], excl[N];
static double d[N], dincl[N];

int main(void) {
  for (int i = 0; i < N; i++) { a[i] = (i * 7) % 13 - 4; d[i] = 0.5 * (i % 5); }
  long total = 0;
  for (int round = 0; round < 3; round++) {
    int s = 0;
    #pragma omp parallel for reduction(inscan, +: s)
    for (int i = 0; i < N; i++) {
      s += a[i];
      #pragma omp scan inclusive(s)
      incl[i] = s;
    }
    int e = 0;
    #pragma omp parallel
    #pragma omp for reduction(inscan, +: e)
    for (int i = 0; i < N; i++) {
      excl[i] = e;
      #pragma omp scan exclusive(e)
      e += a[i];
    }
    double ds = 0;
    #pragma omp parallel for reduction(inscan, +: ds) num_threads(2)
    for (int i = 0; i < N; i++) {
      ds += d[i];
      #pragma omp scan inclusive(ds)
      dincl[i] = ds;
    }
    int want = 0;
    double dwant = 0;
    for (int i = 0; i < N; i++) {
      CHECK(excl[i] == want, "round %d: exclusive scan at %d: %d, not %d", round, i, excl[i], want);
      want += a[i];
      dwant += d[i];
      CHECK(incl[i] == want, "round %d: inclusive scan at %d: %d, not %d", round, i, incl[i], want);
      CHECK(dincl[i] == dwant, "round %d: double scan at %d: %g, not %g", round, i, dincl[i], dwant);
    }
    CHECK(s == want && e == want, "round %d: totals %d and %d, not %d", round, s, e, want);
    total += s;
  }
  printf("scan ok %ld %d %d\n", total, incl[N / 2], excl[N - 1]);
  return 0;
}
