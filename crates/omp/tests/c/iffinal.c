/* if(0) tasks run at once, before the construct returns; final tasks and everything
   below them are final and run at once; omp_in_final says so. */
#include "check.h"
#include <omp.h>
static int below(int depth) {
  int n = 1;
  if (!omp_in_final()) return -1000;
  if (depth > 0) {
    int x = 0;
    #pragma omp task shared(x)
    x = below(depth - 1);
    /* included: already done, no taskwait needed */
    n += x;
  }
  return n;
}
int main(void) {
  int undeferred_ok = 1, final_count = 0, outside_final = -1;
  #pragma omp parallel
  #pragma omp single
  {
    for (int t = 0; t < 50; t++) {
      int done = 0;
      #pragma omp task if(0) shared(done)
      done = 1;
      if (!done) undeferred_ok = 0;
    }
    #pragma omp task final(1) shared(final_count)
    final_count = below(5);
    #pragma omp taskwait
    outside_final = omp_in_final();
  }
  CHECK(undeferred_ok, "an if(0) task was deferred");
  CHECK(final_count == 6, "final subtree counted %d", final_count);
  CHECK(outside_final == 0, "omp_in_final outside a final task");
  printf("if and final ok %d\n", final_count);
  return 0;
}
