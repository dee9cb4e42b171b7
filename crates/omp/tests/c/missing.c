/* Needs entry points locus does not provide (doacross loops, `ordered depend`): must
   fail to load naming one, or, bound lazily, fail when it reaches it. */
#include <stdio.h>
int main(void) {
  long s[100] = {0};
  #pragma omp parallel for ordered(1)
  for (int i = 1; i < 100; i++) {
    #pragma omp ordered depend(sink: i - 1)
    s[i] = s[i - 1] + i;
    #pragma omp ordered depend(source)
  }
  printf("%ld\n", s[99]);
  return 0;
}
