/* thread-limit-var (OMP_THREAD_LIMIT): no team is larger, and nested teams together
   never hold more threads than it, whatever num_threads asks for. */
#include "check.h"
#include <omp.h>
static int live, peak;
static void enter(void) {
  int now;
  #pragma omp atomic capture
  now = ++live;
  #pragma omp critical
  if (now > peak) peak = now;
}
static void leave(void) {
  #pragma omp atomic
  live--;
}
int main(void) {
  int limit = omp_get_thread_limit(), outer = 0;
  CHECK(limit >= 1, "thread limit %d", limit);
  omp_set_max_active_levels(3);
  #pragma omp parallel num_threads(8)
  {
    #pragma omp single
    outer = omp_get_num_threads();
    #pragma omp parallel num_threads(4)
    {
      enter();
      CHECK(omp_get_num_threads() <= limit, "an inner team of %d", omp_get_num_threads());
      #pragma omp barrier
      leave();
    }
  }
  CHECK(outer == (limit < 8 ? limit : 8), "a team of %d asking for 8 under a limit of %d", outer,
        limit);
  CHECK(peak <= limit, "%d threads at once under a limit of %d", peak, limit);
  printf("thread_limit ok\n");
  return 0;
}
