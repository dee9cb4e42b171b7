/* The cancel constructs: locus runs with cancellation off (libgomp's default), where
   OpenMP ignores them, so every loop, section and region runs to its end. Compiled by
   tests/programs.rs, run under locus and under GCC's libgomp with the same answer. */
#include <omp.h>
#include <stdio.h>
#include "check.h"

int main(void) {
  long loop = 0, sections = 0, region = 0;
  CHECK(omp_get_cancellation() == 0, "cancellation is off");
  #pragma omp parallel num_threads(2) reduction(+: loop, sections, region)
  {
    #pragma omp for schedule(dynamic, 7)
    for (int i = 0; i < 1000; i++) {
      loop += i;
      #pragma omp cancel for if (i == 10)
      #pragma omp cancellation point for
    }
    #pragma omp sections
    {
      #pragma omp section
      {
        sections += 1;
        #pragma omp cancel sections
      }
      #pragma omp section
      sections += 2;
    }
    region += 1;
    #pragma omp cancel parallel if (omp_get_thread_num() == 0)
    #pragma omp cancellation point parallel
    #pragma omp barrier
    region += 10;
  }
  CHECK(loop == 499500, "every iteration ran");
  CHECK(sections == 3, "both sections ran");
  CHECK(region == 22, "both members ran the whole region");
  printf("cancel ok\n");
  return 0;
}
