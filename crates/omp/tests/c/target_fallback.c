/* A target region run on the host (host fallback) is a fresh initial task: level 0,
   a team of one, no enclosing region, whatever region met it; a parallel region
   inside it gets a team of its own. The values are printed (the same under every
   runtime). */
#include <omp.h>
#include "check.h"

int main(void) {
  omp_set_dynamic(0);
  int bad = 0, inner = 0;
  #pragma omp parallel num_threads(3) reduction(+: bad)
  {
    int level = -1, team = -1, active = -1, ancestor = -1;
    #pragma omp target if(0) map(from: level, team, active, ancestor)
    {
      level = omp_get_level();
      team = omp_get_num_threads();
      active = omp_get_active_level();
      ancestor = omp_get_ancestor_thread_num(1);
    }
    bad += level != 0 || team != 1 || active != 0 || ancestor != -1;
    #pragma omp single
    {
      #pragma omp target if(0) map(tofrom: inner)
      {
        #pragma omp parallel num_threads(2)
        #pragma omp single
        inner = omp_get_num_threads() * 10 + omp_get_level();
      }
    }
  }
  CHECK(bad == 0, "%d members saw an enclosing region inside the target region", bad);
  CHECK(inner == 21, "a region inside the target region: %d", inner);
  printf("target if(0) inside a region: level 0, team of one; inside it: %d\n", inner);
  return 0;
}
