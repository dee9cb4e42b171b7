/* fib with tasks, without and with a cutoff below which it recurses serially. */
#include "check.h"
static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }
static long fib(int n, int cutoff) {
  long x, y;
  if (n < 2) return n;
  if (n < cutoff) return fib_serial(n);
  #pragma omp task shared(x) firstprivate(n)
  x = fib(n - 1, cutoff);
  #pragma omp task shared(y) firstprivate(n)
  y = fib(n - 2, cutoff);
  #pragma omp taskwait
  return x + y;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 18;
  int cutoff = argc > 2 ? atoi(argv[2]) : -1;
  for (int c = 0; c < 2; c++) {
    int cut = cutoff >= 0 ? cutoff : (c == 0 ? 0 : n - 6);
    long r = 0;
    #pragma omp parallel
    #pragma omp single
    r = fib(n, cut);
    CHECK(r == fib_serial(n), "fib(%d) cutoff %d gave %ld", n, cut, r);
    printf("fib(%d) cutoff %d = %ld\n", n, cut, r);
    if (cutoff >= 0) break;
  }
  return 0;
}
