/* cancel taskgroup under OMP_CANCELLATION=true: once a task has cancelled its
   taskgroup, the tasks made for that group afterwards are not run, and a task already
   queued in it is skipped; without the setting every task runs. A deep search that
   cancels on a hit checks the answer either way. Prints what ran (the same under every
   runtime for a setting). */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

static int search(int *found, int lo, int hi, int target, int depth) {
  if (hi - lo == 1) {
    if (lo == target) {
      #pragma omp atomic write
      *found = lo;
      return 1;
    }
    return 0;
  }
  int mid = lo + (hi - lo) / 2;
  #pragma omp task if(depth < 8)
  {
    if (search(found, lo, mid, target, depth + 1)) {
      #pragma omp cancel taskgroup
    }
  }
  #pragma omp task if(depth < 8)
  {
    if (search(found, mid, hi, target, depth + 1)) {
      #pragma omp cancel taskgroup
    }
  }
  #pragma omp taskwait
  return 0;
}

int main(void) {
  const char *setting = getenv("OMP_CANCELLATION");
  int on = setting && setting[0] == 't';
  int ran = 0, first = 0;
  #pragma omp parallel num_threads(2)
  #pragma omp single
  #pragma omp taskgroup
  {
    #pragma omp task shared(first)
    {
      first = 1;
      #pragma omp cancel taskgroup
    }
    #pragma omp taskwait
    for (int i = 0; i < 1000; i++) {
      #pragma omp task shared(ran)
      {
        #pragma omp atomic
        ran++;
      }
    }
  }
  CHECK(first == 1, "the first task did not run");
  CHECK(ran == (on ? 0 : 1000), "%d tasks ran after the cancel, cancellation %s", ran, on ? "on" : "off");
  printf("after the cancel: %d of 1000 ran\n", ran);

  for (int round = 0; round < 20; round++) {
    int found = -1, target = (round * 7919) % (1 << 16);
    #pragma omp parallel num_threads(2)
    #pragma omp single
    #pragma omp taskgroup
    search(&found, 0, 1 << 16, target, 0);
    CHECK(found == target, "round %d: found %d, not %d", round, found, target);
  }
  printf("searches found their targets\n");
  return 0;
}
