/* The unsigned long long worksharing loops (GOMP_loop_ull_*): every schedule deals each
   iteration exactly once, upwards and downwards, over values above 2^63 (which no long
   holds); the static form, which GCC inlines, is called directly as older compilers
   call it. */
#include "check.h"
#include <stdbool.h>
#include <string.h>
#define N 1003
typedef unsigned long long ull;
extern bool GOMP_loop_ull_static_start(bool, ull, ull, ull, ull, ull *, ull *);
extern bool GOMP_loop_ull_static_next(ull *, ull *);
extern void GOMP_loop_end(void);
static int hits[N];
static void reset(void) { memset(hits, 0, sizeof hits); }
static void expect(const char *what, int step, int up) {
  for (int i = 0; i < N; i++) {
    int k = up ? i : N - 1 - i;
    CHECK(hits[i] == (k % step == 0), "%s: iteration %d ran %d times", what, i, hits[i]);
  }
}
int main(int argc, char **argv) {
  ull base = (1ULL << 63) + 12345 + (ull)(argc > 5), top = base + N;
  long sum = 0;
  #pragma omp parallel reduction(+: sum)
  {
    #pragma omp single
    reset();
    #pragma omp for schedule(dynamic, 5)
    for (ull i = base; i < top; i++) hits[i - base]++;
    #pragma omp single
    { expect("nonmonotonic dynamic", 1, 1); reset(); }
    #pragma omp for schedule(monotonic: dynamic, 3)
    for (ull i = top - 1; i > base - 1; i -= 2) hits[i - base]++;
    #pragma omp single
    { expect("monotonic dynamic down", 2, 0); reset(); }
    #pragma omp for schedule(guided, 4)
    for (ull i = base; i < top; i += 3) hits[i - base]++;
    #pragma omp single
    { expect("nonmonotonic guided", 3, 1); reset(); }
    #pragma omp for schedule(monotonic: guided)
    for (ull i = top - 1; i > base - 1; i--) hits[i - base]++;
    #pragma omp single
    { expect("monotonic guided down", 1, 0); reset(); }
    #pragma omp for schedule(runtime)
    for (ull i = base; i < top; i++) hits[i - base]++;
    #pragma omp single
    { expect("runtime", 1, 1); reset(); }
    #pragma omp for schedule(monotonic: runtime)
    for (ull i = base; i < top; i += 4) hits[i - base]++;
    #pragma omp single
    { expect("monotonic runtime", 4, 1); reset(); }
    #pragma omp for schedule(nonmonotonic: runtime) nowait
    for (ull i = base; i < top; i++) {
      #pragma omp atomic
      hits[i - base]++;
    }
    #pragma omp barrier
    #pragma omp single
    { expect("nonmonotonic runtime", 1, 1); reset(); }
    for (ull chunk = 0; chunk < 3; chunk += 2) {
      ull lo, hi;
      if (GOMP_loop_ull_static_start(false, top - 1, base - 1, -1ULL, chunk, &lo, &hi))
        do {
          for (ull i = lo; i > hi; i--) hits[i - base]++;
        } while (GOMP_loop_ull_static_next(&lo, &hi));
      GOMP_loop_end();
      #pragma omp single
      { expect(chunk ? "static,2 down" : "static down", 1, 0); reset(); }
    }
    #pragma omp for schedule(dynamic, 7)
    for (ull i = base; i < top; i++) sum += (long)(i - base);
  }
  CHECK(sum == (long)N * (N - 1) / 2, "sum %ld", sum);
  printf("loops_ull ok %ld\n", sum);
  return 0;
}
