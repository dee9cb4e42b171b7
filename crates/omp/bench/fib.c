/* Benchmark (not a test): fib N without cutoff, best of R runs. See README, "OpenMP programs on locus". */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
static long fib(int n) { long x, y; if (n < 2) return n;
  #pragma omp task shared(x) firstprivate(n)
  x = fib(n - 1);
  #pragma omp task shared(y) firstprivate(n)
  y = fib(n - 2);
  #pragma omp taskwait
  return x + y; }
int main(int argc, char **argv) { int n = atoi(argv[1]); int reps = argc > 2 ? atoi(argv[2]) : 5; double best = 1e9; long r = 0;
  for (int k = 0; k < reps; k++) { double t = omp_get_wtime();
  #pragma omp parallel
  #pragma omp single
  r = fib(n);
  t = omp_get_wtime() - t; if (t < best) best = t; }
  printf("fib %d = %ld best %.4f s\n", n, r, best); return 0; }
