/* copyin of threadprivate data: the thread that meets the region is thread 0 of its
   team and keeps its own copies (the same addresses it had before the region); every
   other member starts from thread 0's values. In the manner of GCC's copyin-1..3. */
#include "check.h"
#include <omp.h>
static int counter = 7;
static double weights[4] = {1, 2, 3, 4};
#pragma omp threadprivate(counter, weights)
int main(void) {
  int *before = &counter;
  for (int round = 0; round < 50; round++) {
    counter = 40 + round;
    weights[2] = round;
    int wrong = 0, threads = 0, own = 0;
    #pragma omp parallel copyin(counter, weights) reduction(+ : wrong)
    {
      if (counter != 40 + round || weights[2] != round || weights[3] != 4) wrong++;
      if (omp_get_thread_num() == 0) {
        own = &counter == before;
        threads = omp_get_num_threads();
      }
      counter += omp_get_thread_num() == 0 ? 1000 : 1;
    }
    CHECK(wrong == 0, "round %d: %d members began without thread 0's copies", round, wrong);
    CHECK(own, "round %d: thread 0 is not the thread that met the region", round);
    CHECK(threads >= 1, "no team");
    CHECK(counter == 1040 + round, "round %d: thread 0's copy is %d after the region", round, counter);
  }
  printf("copyin ok\n");
  return 0;
}
