/* threadprivate counters: each task counts on the thread that runs it; the team's
   members add their counters up at the end. Tasks run only on team members, and only
   once a member has begun the region: a member that ran a task while still entering
   would count it before the region's first statement (counter = 0) zeroed it. Many
   short regions give that race many chances. */
#include "check.h"
#include <omp.h>
static long counter;
#pragma omp threadprivate(counter)
int main(void) {
  int threads = 0;
  for (int region = 0; region < 200; region++) {
    long total = 0;
    int bad_thread = 0;
    #pragma omp parallel shared(total, bad_thread, threads)
    {
      counter = 0;
      #pragma omp single
      {
        threads = omp_get_num_threads();
        for (int t = 0; t < 50; t++) {
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
    CHECK(!bad_thread, "a task ran off the team (region %d)", region);
    CHECK(total == 50, "threadprivate counters sum to %ld in region %d", total, region);
  }
  CHECK(threads >= 1 && !omp_in_parallel(), "team size %d", threads);
  printf("threadprivate: 200 regions of 50 tasks counted\n");
  return 0;
}
