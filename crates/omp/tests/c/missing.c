/* Needs an entry point locus does not provide (the task reductions of a taskloop's
   reduction clause): must fail to load, or, loaded lazily, be refused by GOMP_taskloop. */
#include <stdio.h>
int main(void) {
  long s = 0;
  #pragma omp parallel
  #pragma omp single
  #pragma omp taskloop reduction(+: s)
  for (int i = 0; i < 100; i++) s += i;
  printf("%ld\n", s);
  return 0;
}
