/* A task made while its thread already has tasks queued for thieves may run at once on
   that thread (OpenMP allows it; locus does it then, libgomp when its queue is long).
   Such a task is still a task: the children it leaves behind without a taskwait are
   waited for by the region's barrier, and by a taskgroup around their grandparent. */
#include "check.h"
#define PARENTS 1000
#define CHILDREN 4
static int done[PARENTS * CHILDREN];
static void leaf(int k) {
  volatile long spin = 0;
  for (long i = 0; i < 2000; i++) spin += i;
  __atomic_store_n(&done[k], 1, __ATOMIC_RELAXED);
}
static void parents(void) {
  for (int i = 0; i < PARENTS; i++) {
    #pragma omp task firstprivate(i)
    for (int j = 0; j < CHILDREN; j++) {
      #pragma omp task firstprivate(i, j)
      leaf(CHILDREN * i + j);
    }
  }
}
static int count(void) {
  int n = 0;
  for (int k = 0; k < PARENTS * CHILDREN; k++) n += __atomic_load_n(&done[k], __ATOMIC_RELAXED);
  return n;
}
int main(void) {
  #pragma omp parallel
  #pragma omp single
  parents();
  int at_barrier = count();
  CHECK(at_barrier == PARENTS * CHILDREN, "%d of %d children done at the region's end",
        at_barrier, PARENTS * CHILDREN);
  for (int k = 0; k < PARENTS * CHILDREN; k++) done[k] = 0;
  int in_group = 0;
  #pragma omp parallel
  #pragma omp single
  {
    #pragma omp taskgroup
    parents();
    in_group = count();
  }
  CHECK(in_group == PARENTS * CHILDREN, "%d of %d children done at the taskgroup's end",
        in_group, PARENTS * CHILDREN);
  printf("atonce ok %d %d\n", at_barrier, in_group);
  return 0;
}
