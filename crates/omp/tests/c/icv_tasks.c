/* nthreads-var belongs to a task, as OpenMP's data environment says: omp_set_num_threads
   changes the calling task's value only; an explicit task starts with its spawner's
   value, the implicit tasks of a region with the encountering task's (or the next
   entry of an OMP_NUM_THREADS list), and threads outside every region each have
   their own. The value each place reads is printed (the same under every runtime). */
#include <omp.h>
#include <pthread.h>
#include "check.h"

static void *outside(void *arg) {
  int n = *(int *)arg;
  omp_set_num_threads(n);
  for (int i = 0; i < 1000; i++)
    CHECK(omp_get_max_threads() == n, "thread outside: %d, set %d", omp_get_max_threads(), n);
  return NULL;
}

int main(void) {
  omp_set_num_threads(3);
  CHECK(omp_get_max_threads() == 3, "initial: %d", omp_get_max_threads());
  int seen[4] = {0, 0, 0, 0}, after[4] = {0, 0, 0, 0}, in_task = 0, after_task = 0;
  #pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    seen[t] = omp_get_max_threads();
    omp_set_num_threads(5 + t);
    #pragma omp barrier
    after[t] = omp_get_max_threads();
    #pragma omp single
    {
      #pragma omp task shared(in_task)
      {
        in_task = omp_get_max_threads();
        omp_set_num_threads(9);
      }
      #pragma omp taskwait
      after_task = omp_get_max_threads();
    }
  }
  for (int t = 0; t < 2; t++) {
    CHECK(seen[t] == 3, "member %d inherited %d", t, seen[t]);
    CHECK(after[t] == 5 + t, "member %d set %d, read %d", t, 5 + t, after[t]);
  }
  CHECK(in_task == 5 || in_task == 6, "the task inherited %d", in_task);
  CHECK(after_task == in_task, "the task's set leaked: %d after, %d inside", after_task, in_task);
  CHECK(omp_get_max_threads() == 3, "after the region: %d", omp_get_max_threads());
  printf("region: inherited %d %d, set %d %d\n", seen[0], seen[1], after[0], after[1]);

  int undeferred = 0, after_undeferred = 0;
  #pragma omp parallel num_threads(1)
  {
    omp_set_num_threads(6);
    #pragma omp task if(0) shared(undeferred)
    {
      undeferred = omp_get_max_threads();
      omp_set_num_threads(4);
    }
    after_undeferred = omp_get_max_threads();
  }
  CHECK(undeferred == 6 && after_undeferred == 6, "if(0) task: %d, after it %d", undeferred, after_undeferred);
  printf("undeferred task: %d, after it %d\n", undeferred, after_undeferred);

  pthread_t th[2];
  int ns[2] = {2, 7};
  for (int i = 0; i < 2; i++)
    pthread_create(&th[i], NULL, outside, &ns[i]);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  CHECK(omp_get_max_threads() == 3, "main after the threads: %d", omp_get_max_threads());
  printf("threads outside every region keep their own: ok\n");
  return 0;
}
