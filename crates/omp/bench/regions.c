/* Benchmark (not a test): what a team costs. N empty `parallel` regions one after another,
   then N barriers inside one region, best of R runs each; prints the team size it got.
   Run it under GCC's libgomp and under `locus run`, alternating (regions.sh does). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000; int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (n < 1 || reps < 1) { fprintf(stderr, "usage: regions [N >= 1] [R >= 1], got N=%s R=%s\n",
    argc > 1 ? argv[1] : "-", argc > 2 ? argv[2] : "-"); return 2; }
  double best_regions = 1e9, best_barriers = 1e9; int team = 0, barrier_team = 0;
  for (int k = 0; k < reps; k++) {
    double t = omp_get_wtime();
    for (long i = 0; i < n; i++) {
      #pragma omp parallel
      __asm__ volatile ("" ::: "memory"); /* an empty body; gcc drops a region with none */
    }
    t = omp_get_wtime() - t; if (t < best_regions) best_regions = t;
    #pragma omp parallel
    #pragma omp master
    team = omp_get_num_threads();
    t = omp_get_wtime();
    #pragma omp parallel
    { for (long i = 0; i < n; i++) {
        #pragma omp barrier
      }
      #pragma omp master
      barrier_team = omp_get_num_threads(); }
    t = omp_get_wtime() - t; if (t < best_barriers) best_barriers = t; }
  printf("regions %ld best %.4f s (%.3f us each), barriers %ld best %.4f s (%.3f us each), team %d/%d\n",
    n, best_regions, best_regions * 1e6 / n, n, best_barriers, best_barriers * 1e6 / n, team, barrier_team);
  return team == barrier_team ? 0 : 1; }
