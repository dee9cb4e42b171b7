/* taskgroup waits for descendants (grandchildren too); taskwait only for children. */
#include "check.h"
static void grand(int *slot) {
  #pragma omp task firstprivate(slot)
  {
    volatile long spin = 0;
    for (long i = 0; i < 20000; i++) spin += i;
    *slot = 1;
  }
}
int main(void) {
  int marks[100] = {0};
  int all = 0;
  #pragma omp parallel
  #pragma omp single
  {
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 100; i++) marks[i] = 0;
      #pragma omp taskgroup
      {
        for (int i = 0; i < 100; i++) {
          #pragma omp task firstprivate(i) shared(marks)
          grand(&marks[i]);
        }
      }
      int s = 0;
      for (int i = 0; i < 100; i++) s += marks[i];
      all += s;
    }
  }
  CHECK(all == 300, "taskgroup ended with %d of 300 grandchildren done", all);
  printf("taskgroup ok %d\n", all);
  return 0;
}
