/* Needs entry points locus does not provide (task reductions on a worksharing loop:
   GOMP_loop_start and GOMP_workshare_task_reduction_unregister): must fail to load
   naming one, or, bound lazily, fail when it reaches it. */
#include <stdio.h>
int main(void) {
  long s = 0;
  #pragma omp parallel
  #pragma omp for reduction(task, +: s)
  for (int i = 0; i < 100; i++) {
    #pragma omp task in_reduction(+: s)
    s += i;
  }
  printf("%ld\n", s);
  return 0;
}
