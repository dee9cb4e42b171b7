/* detach(event): a task completes once its body has ended and its event is fulfilled,
   in either order and from any thread; taskwait, taskgroup, depend and if(0) wait for
   that. */
#include <omp.h>
#include <unistd.h>
#include "check.h"
#define N 16
int main(void) {
  omp_event_handle_t ev[N];
  int body_done[N] = {0}, after = 0, chained = 0;
  int fulfilled[N] = {0};
  #pragma omp parallel
  #pragma omp single
  {
    /* Fulfilled later, by a task of their own. */
    for (int i = 0; i < N; i++) {
      omp_event_handle_t e;
      #pragma omp task detach(e) firstprivate(i) shared(body_done)
      body_done[i] = 1;
      ev[i] = e;
    }
    for (int i = 0; i < N; i++) {
      #pragma omp task firstprivate(i) shared(ev, fulfilled)
      { usleep(100); fulfilled[i] = 1; omp_fulfill_event(ev[i]); }
    }
    #pragma omp taskwait
    for (int i = 0; i < N; i++) CHECK(body_done[i] && fulfilled[i], "task %d done before its event", i);

    /* Fulfilled inside the body itself. */
    #pragma omp taskgroup
    {
      omp_event_handle_t self;
      #pragma omp task detach(self) shared(after)
      { after = 1; omp_fulfill_event(self); }
    }
    CHECK(after == 1, "a self-fulfilled task");

    /* A successor by depend waits for the event, not just the body. */
    int x = 0, fulfilled = 0, seen = -1;
    omp_event_handle_t late;
    #pragma omp task detach(late) depend(out: x) shared(x)
    x = 1;
    #pragma omp task depend(in: x) shared(x, seen, fulfilled, chained)
    {
      int f;
      #pragma omp atomic read
      f = fulfilled;
      seen = 10 * f + x;
      chained = 2;
    }
    #pragma omp task shared(fulfilled, late)
    {
      usleep(2000);
      #pragma omp atomic write
      fulfilled = 1;
      omp_fulfill_event(late);
    }
    #pragma omp taskwait
    CHECK(seen == 11 && chained == 2, "the successor ran before the body or the event: saw %d", seen);

    /* Undeferred: the encountering task waits for the event, fulfilled by another. */
    omp_event_handle_t now;
    int started = 0;
    int fulfilled_by_other = 0;
    #pragma omp task shared(now, started, fulfilled_by_other)
    {
      /* The handle is there once the if(0) task has started. */
      int s = 0;
      while (!s) {
        #pragma omp atomic read
        s = started;
      }
      usleep(2000);
      fulfilled_by_other = 1;
      omp_fulfill_event(now);
    }
    #pragma omp task if(0) detach(now) shared(started)
    {
      #pragma omp atomic write
      started = 1;
    }
    CHECK(started == 1 && fulfilled_by_other == 1, "if(0) went on before its event");
    #pragma omp taskwait
  }
  printf("detach ok %d %d\n", after, chained);
  return 0;
}
