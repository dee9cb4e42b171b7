/* omp_pause_resource and omp_pause_resource_all: outside every region they succeed
   and release the team's threads, so threads other than thread 0 (the initial
   thread) of a later region are new ones, with threadprivate data at its initial
   value; between pauses the threads, and their threadprivate data, are kept. Inside
   a region a pause is refused (-1), as under libgomp. */
#include <omp.h>
#include "check.h"
static int t = 128;
#pragma omp threadprivate(t)

static void set_and_check(int base, int after_pause) {
  int bad = 0;
  #pragma omp parallel reduction(+: bad)
  {
    if (after_pause && omp_get_thread_num() != 0 && t != 128) bad++;
    t = omp_get_thread_num() + base;
  }
  CHECK(bad == 0, "base %d: %d threads kept their threadprivate data past a pause", base, bad);
  #pragma omp parallel reduction(+: bad)
  if (t != omp_get_thread_num() + base) bad++;
  CHECK(bad == 0, "base %d: %d threads lost their threadprivate data", base, bad);
}

int main(void) {
  set_and_check(256, 0);
  int inside = 0;
  #pragma omp parallel num_threads(2) reduction(+: inside)
  inside += omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == -1;
  CHECK(inside >= 1, "a pause inside a region was not refused");
  CHECK(omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == 0, "soft pause");
  set_and_check(384, 1);
  CHECK(omp_pause_resource_all(omp_pause_hard) == 0, "hard pause");
  set_and_check(512, 1);
  printf("pause ok\n");
  return 0;
}
