/* threadprivate counters: each task counts on the thread that runs it; the team's
   members add their counters up at the end. Tasks run only on team members. */
#include "check.h"
#include <omp.h>
static long counter;
#pragma omp threadprivate(counter)
int main(void) {
  long total = 0;
  int bad_thread = 0, threads = 0;
  #pragma omp parallel shared(total, bad_thread, threads)
  {
    counter = 0;
    #pragma omp single
    {
      threads = omp_get_num_threads();
      for (int t = 0; t < 1000; t++) {
        #pragma omp task
        {
          counter += 1;
          int me = omp_get_thread_num();
          if (me < 0 || me >= omp_get_num_threads() || !omp_in_parallel()) {
            #pragma omp atomic write
            bad_thread = 1;
          }
        }
      }
    }
    /* the single's barrier: every task is done */
    #pragma omp atomic
    total += counter;
  }
  CHECK(!bad_thread, "a task ran off the team");
  CHECK(threads >= 1 && !omp_in_parallel(), "team size %d", threads);
  CHECK(total == 1000, "threadprivate counters sum to %ld", total);
  printf("threadprivate total %ld\n", total);
  return 0;
}
