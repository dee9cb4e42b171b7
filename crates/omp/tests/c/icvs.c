/* The internal control variables the OMP_* settings set, as the program reads them:
   run with settings (OMP_THREAD_LIMIT, OMP_DYNAMIC, OMP_MAX_ACTIVE_LEVELS,
   OMP_DEFAULT_DEVICE, OMP_MAX_TASK_PRIORITY, OMP_PROC_BIND), it prints the same as
   under GCC's libgomp; and what the omp_set_* routines change. */
#include <omp.h>
#include "check.h"
int main(void) {
  int team = 0;
  #pragma omp parallel
  #pragma omp single
  team = omp_get_num_threads();
  CHECK(team >= 1 && team <= omp_get_thread_limit(), "a team of %d, the limit %d", team, omp_get_thread_limit());
  int limit = omp_get_thread_limit();
  printf("thread limit %d\n", limit < 64 ? limit : -1);
  if (limit == 1)
    printf("team under a limit of one: %d\n", team);
  printf("dynamic %d\n", omp_get_dynamic());
  printf("max active levels %d\n", omp_get_max_active_levels() > 1 ? 2 : omp_get_max_active_levels());
  printf("default device %d\n", omp_get_default_device());
  printf("max task priority %d\n", omp_get_max_task_priority());
  printf("proc bind %d\n", (int)omp_get_proc_bind());
  int active = -1;
  #pragma omp parallel num_threads(2)
  #pragma omp single
  active = omp_get_active_level();
  printf("active level %d\n", active);
  omp_set_dynamic(!omp_get_dynamic());
  omp_set_default_device(5);
  omp_set_max_active_levels(0);
  printf("set: dynamic %d, default device %d, max active levels %d\n", omp_get_dynamic(),
         omp_get_default_device(), omp_get_max_active_levels());
  #pragma omp parallel num_threads(2)
  #pragma omp single
  team = omp_get_num_threads();
  printf("team with no active level %d\n", team);
  return 0;
}
