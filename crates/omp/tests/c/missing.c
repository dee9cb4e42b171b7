/* Needs entry points locus does not provide (cancellation): must fail to load naming
   one, or, bound lazily, fail when it reaches it. */
#include <stdio.h>
int main(void) {
  long s = 0;
  #pragma omp parallel reduction(+: s)
  {
    #pragma omp for
    for (int i = 0; i < 100; i++) {
      s += i;
      #pragma omp cancel for if (i < 0)
    }
  }
  printf("%ld\n", s);
  return 0;
}
