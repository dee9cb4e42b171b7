/* Thread 0 runs its team's tasks while it waits at the region's end. In a team of n
   (OMP_NUM_THREADS, at least 2), thread 0 makes 2n tasks and then waits; each task
   waits (up to 20 s) until a task has run on thread 0, so that the other threads alone
   finish them only when that time is up. The tasks have dependences (none between
   them), so that none runs at once as it is made: thread 0 runs one only as it waits.
   Prints whether thread 0 ran one (it does under libgomp). */
#include <omp.h>
#include "check.h"

int main(void) {
  int on0 = 0, ran = 0, team = 0, slot[64] = { 0 };
  double start = omp_get_wtime();
  #pragma omp parallel shared(on0, ran, team)
  {
    #pragma omp master
    {
      team = omp_get_num_threads();
      CHECK(team <= 32, "a team of %d, more than 32", team);
      for (int i = 0; i < 2 * team; i++) {
        #pragma omp task shared(on0, ran) depend(out: slot[i % 64])
        {
          if (omp_get_thread_num() == 0) {
            #pragma omp atomic write
            on0 = 1;
          }
          double until = omp_get_wtime() + 20;
          int seen = 0;
          while (!seen && omp_get_wtime() < until) {
            #pragma omp atomic read
            seen = on0;
          }
          slot[i % 64]++;
          #pragma omp atomic
          ran++;
        }
      }
    }
  }
  CHECK(team >= 2, "a team of %d, not 2 or more", team);
  CHECK(ran == 2 * team, "%d of %d tasks ran", ran, 2 * team);
  CHECK(on0, "thread 0 ran none of its team's tasks (waited %.1f s)", omp_get_wtime() - start);
  printf("thread 0 ran a task of its team\n");
  return 0;
}
