/* taskwait depend(...) waits for the earlier sibling tasks it conflicts with; taskyield
   inside a lock's spin lets the holder run. */
#include <omp.h>
#include "check.h"
int main(void) {
  int x = 0, y = 0, z = 0, order[3], pos = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
  long spins = 0, held = 0;
  #pragma omp parallel
  #pragma omp single
  {
    for (int round = 1; round <= 50; round++) {
      #pragma omp task depend(out: x) firstprivate(round) shared(x)
      x = round;
      #pragma omp task depend(in: x) depend(out: y) shared(x, y)
      y = x * 2;
      #pragma omp taskwait depend(in: y)
      CHECK(x == round && y == 2 * round, "round %d: x = %d, y = %d", round, x, y);
    }
    #pragma omp task depend(out: z) shared(z, order, pos)
    { z = 7; order[pos++] = 1; }
    #pragma omp taskwait depend(inout: z)
    order[pos++] = 2;
    CHECK(z == 7, "taskwait depend(inout: z) went on before z was written");
    for (int i = 0; i < 8; i++) {
      #pragma omp task shared(lock, spins, held)
      {
        while (!omp_test_lock(&lock)) {
          #pragma omp taskyield
          #pragma omp atomic
          spins++;
        }
        held++;
        omp_unset_lock(&lock);
      }
    }
    #pragma omp taskwait
    order[pos++] = 3;
  }
  omp_destroy_lock(&lock);
  CHECK(held == 8, "the lock was held %ld times", held);
  CHECK(pos == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3, "order");
  printf("taskwait depend ok %d %d %ld\n", x, y, held);
  return spins < 0;
}
