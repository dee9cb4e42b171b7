/* Two threads of the program's own each open a parallel region of two threads; inside,
   thread 0 of each team (the pthread that met the region) waits at a barrier shared by
   the two teams. The teams must run at the same time, each on threads of its own, and
   thread 0 must be the thread that met the region, whose thread-local data it sees. A
   runtime that runs one team at a time hangs here: alarm() makes that a failure. */
#include "check.h"
#include <omp.h>
#include <pthread.h>
#include <unistd.h>
static pthread_barrier_t both;
static __thread int mine;
static void *opener(void *arg) {
  int id = (int)(long)arg, members = 0, met = 0;
  mine = 100 + id;
  #pragma omp parallel num_threads(2) reduction(+ : members, met)
  {
    members += 1;
    if (omp_get_thread_num() == 0) {
      met += mine == 100 + id;
      pthread_barrier_wait(&both);
    }
  }
  CHECK(members == 2, "opener %d: a team of %d", id, members);
  CHECK(met == 1, "opener %d: thread 0 is not the thread that met the region", id);
  return NULL;
}
int main(void) {
  alarm(20);
  pthread_barrier_init(&both, NULL, 2);
  for (int round = 0; round < 20; round++) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, opener, (void *)i) == 0, "pthread_create");
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  }
  printf("pthread_teams ok\n");
  return 0;
}
