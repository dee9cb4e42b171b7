/* Needs an entry point locus does not provide (an OpenACC routine, which GCC's
   libgomp also holds): must fail to load naming it, or, bound lazily, fail when it
   reaches it. */
#include <stdio.h>
extern int acc_get_num_devices(int device_type);
int main(void) {
  long s = 0;
  #pragma omp parallel for reduction(+: s)
  for (int i = 0; i < 100; i++) s += i;
  printf("%ld\n", s);
  fflush(stdout);
  /* acc_device_host is 2. */
  return acc_get_num_devices(2) < 0;
}
