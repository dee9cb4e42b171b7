/* omp_fulfill_event called from a thread that is no OpenMP thread (a plain pthread),
   while a task that depends on the detached one waits to run: the fulfilment must
   complete the detached task and release its dependent, as under libgomp. */
#include <omp.h>
#include <pthread.h>
#include <unistd.h>
#include "check.h"

static int finished, pending;
static omp_event_handle_t event;

static void *fulfiller(void *arg) {
  (void)arg;
  int fulfilled = 0;
  for (int tries = 0; !__atomic_load_n(&finished, __ATOMIC_ACQUIRE); tries++) {
    CHECK(tries < 20000, "the dependent task never ran (fulfilled: %d)", fulfilled);
    if (__atomic_load_n(&pending, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&pending, 0, __ATOMIC_RELAXED);
      omp_fulfill_event(event);
      fulfilled++;
    }
    usleep(500);
  }
  return NULL;
}

int main(void) {
  int rounds = 0;
  for (int round = 0; round < 20; round++) {
    pthread_t thread;
    __atomic_store_n(&finished, 0, __ATOMIC_RELAXED);
    CHECK(pthread_create(&thread, NULL, fulfiller, NULL) == 0, "pthread_create");
    int dep = 0, seen = -1;
    #pragma omp parallel
    #pragma omp single
    {
      omp_event_handle_t ev;
      #pragma omp task depend(out: dep) detach(ev) shared(dep)
      {
        dep = round + 1;
        event = ev;
        __atomic_store_n(&pending, 1, __ATOMIC_RELEASE);
      }
      #pragma omp task depend(in: dep) shared(dep, seen)
      {
        seen = dep;
        __atomic_store_n(&finished, 1, __ATOMIC_RELEASE);
      }
    }
    pthread_join(thread, NULL);
    CHECK(seen == round + 1, "round %d: the dependent saw %d", round, seen);
    rounds++;
  }
  printf("detach from a foreign thread ok %d\n", rounds);
  return 0;
}
