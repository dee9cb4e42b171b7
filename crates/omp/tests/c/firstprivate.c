/* A firstprivate array (copied by the compiler's cpyfn) and firstprivate scalars:
   each task sees the values at its creation, whatever the parent writes after. */
#include "check.h"
int main(void) {
  long results[64];
  #pragma omp parallel
  #pragma omp single
  {
    int arr[16];
    for (int i = 0; i < 16; i++) arr[i] = i;
    for (int t = 0; t < 64; t++) {
      #pragma omp task firstprivate(arr, t) shared(results)
      {
        long s = 0;
        for (int i = 0; i < 16; i++) s += arr[i];
        results[t] = s;
        arr[0] = -1000; /* the task's own copy */
      }
      arr[t % 16] += 1;
    }
    #pragma omp taskwait
  }
  long expect = 120;
  for (int t = 0; t < 64; t++) {
    CHECK(results[t] == expect, "task %d saw %ld, not %ld", t, results[t], expect);
    expect += 1;
  }
  printf("firstprivate ok, last sum %ld\n", results[63]);
  return 0;
}
