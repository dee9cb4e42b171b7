/* Needs an entry point locus does not provide (taskloop): must fail to load. */
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
