/* Where a team's threads may run: prints omp_get_num_procs before the region and on
   each member, and how many CPUs thread 0 and thread 1 may both run on. Under locus
   with pinned workers thread 0 is kept off its worker's CPU (0 shared where the
   process has two CPUs or more); omp_get_num_procs counts the CPUs as before. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include "check.h"
int main(void) {
  int before = omp_get_num_procs();
  cpu_set_t sets[2];
  int procs[2] = {0, 0}, size = 0;
  #pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    CHECK(sched_getaffinity(0, sizeof(cpu_set_t), &sets[t]) == 0, "sched_getaffinity");
    procs[t] = omp_get_num_procs();
    if (t == 0) size = omp_get_num_threads();
  }
  CHECK(size == 2, "a team of %d", size);
  cpu_set_t both;
  CPU_AND(&both, &sets[0], &sets[1]);
  printf("procs %d %d %d shared %d\n", before, procs[0], procs[1], CPU_COUNT(&both));
  /* A second region on the same crew: thread 0 stays apart. */
  #pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    CHECK(sched_getaffinity(0, sizeof(cpu_set_t), &sets[t]) == 0, "sched_getaffinity");
  }
  CPU_AND(&both, &sets[0], &sets[1]);
  printf("again shared %d procs %d\n", CPU_COUNT(&both), omp_get_num_procs());
  return 0;
}
