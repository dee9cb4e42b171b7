/* ordered: under every schedule, signed and unsigned long long, the ordered blocks run
   one at a time in iteration order, also when only some iterations enter them, while
   the rest of each iteration runs in parallel. */
#include "check.h"
#include <string.h>
#define N 600
static int seq[N], pos;
static void reset(void) { memset(seq, 0, sizeof seq); pos = 0; }
static void expect(const char *what, int count, int first, int step) {
  CHECK(pos == count, "%s: %d ordered blocks, not %d", what, pos, count);
  for (int k = 0; k < count; k++)
    CHECK(seq[k] == first + k * step, "%s: block %d was iteration %d", what, k, seq[k]);
}
int main(int argc, char **argv) {
  unsigned long long lo = 7 + (argc > 5), hi = N;
  long work = 0;
  reset();
  #pragma omp parallel reduction(+: work)
  {
    #pragma omp for ordered schedule(static)
    for (int i = 0; i < N; i++) {
      work += i;
      #pragma omp ordered
      seq[pos++] = i;
    }
    #pragma omp single
    { expect("static", N, 0, 1); reset(); }
    #pragma omp for ordered schedule(static, 3)
    for (int i = N - 1; i >= 0; i -= 2) {
      work += i;
      #pragma omp ordered
      seq[pos++] = i;
    }
    #pragma omp single
    { expect("static,3 down", N / 2, N - 1, -2); reset(); }
    #pragma omp for ordered schedule(dynamic, 4)
    for (int i = 0; i < N; i++) {
      work += i;
      if (i % 3 == 0) {
        #pragma omp ordered
        seq[pos++] = i;
      }
    }
    #pragma omp single
    { expect("dynamic,4 some", N / 3, 0, 3); reset(); }
    #pragma omp for ordered schedule(guided)
    for (int i = 0; i < N; i++) {
      #pragma omp ordered
      seq[pos++] = i;
    }
    #pragma omp single
    { expect("guided", N, 0, 1); reset(); }
    #pragma omp for ordered schedule(runtime)
    for (int i = 0; i < N; i++) {
      #pragma omp ordered
      seq[pos++] = i;
    }
    #pragma omp single
    { expect("runtime", N, 0, 1); reset(); }
    #pragma omp for ordered schedule(dynamic) nowait
    for (unsigned long long i = lo; i < hi; i++) {
      #pragma omp ordered
      seq[pos++] = (int)i;
    }
    #pragma omp barrier
    #pragma omp single
    { expect("ull dynamic", N - 7, 7, 1); reset(); }
    #pragma omp for ordered schedule(static, 5)
    for (unsigned long long i = hi - 1; i > lo - 1; i--) {
      #pragma omp ordered
      seq[pos++] = (int)i;
    }
    #pragma omp single
    { expect("ull static,5 down", N - 7, N - 1, -1); reset(); }
    #pragma omp for ordered schedule(guided, 2)
    for (unsigned long long i = lo; i < hi; i += 2) {
      #pragma omp ordered
      seq[pos++] = (int)i;
    }
    #pragma omp single
    { expect("ull guided", (N - 7 + 1) / 2, 7, 2); reset(); }
    #pragma omp for ordered schedule(runtime)
    for (unsigned long long i = lo; i < hi; i++) {
      #pragma omp ordered
      seq[pos++] = (int)i;
    }
    #pragma omp single
    { expect("ull runtime", N - 7, 7, 1); reset(); }
  }
  #pragma omp parallel for ordered schedule(static, 2)
  for (int i = 0; i < N; i++) {
    #pragma omp ordered
    seq[pos++] = i;
  }
  expect("parallel for", N, 0, 1);
  printf("ordered ok %ld\n", work);
  return 0;
}
