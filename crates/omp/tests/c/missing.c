/* Needs an entry point locus does not provide (omp_pause_resource_all): must fail to
   load naming it, or, bound lazily, fail when it reaches it. */
#include <omp.h>
#include <stdio.h>
int main(void) {
  long s = 0;
  #pragma omp parallel for reduction(+: s)
  for (int i = 0; i < 100; i++) s += i;
  printf("%ld\n", s);
  return omp_pause_resource_all(omp_pause_soft) != 0;
}
