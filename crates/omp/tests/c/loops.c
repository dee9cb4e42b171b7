/* Every worksharing schedule deals each iteration exactly once, forwards and
   backwards, inside a region and combined with it; tasks made in loop bodies finish
   by the loop's barrier. */
#include "check.h"
#include <string.h>
#define N 1003
static int hits[N];
static void reset(void) { memset(hits, 0, sizeof hits); }
static void expect(const char *what, int step) {
  for (int i = 0; i < N; i++)
    CHECK(hits[i] == (i % step == 0), "%s: iteration %d ran %d times", what, i, hits[i]);
}
int main(void) {
  long tasks = 0;
  #pragma omp parallel
  {
    #pragma omp single
    reset();
    #pragma omp for schedule(static)
    for (int i = 0; i < N; i++) hits[i]++;
    #pragma omp single
    { expect("static", 1); reset(); }
    #pragma omp for schedule(static, 7)
    for (int i = 0; i < N; i++) hits[i]++;
    #pragma omp single
    { expect("static,7", 1); reset(); }
    #pragma omp for schedule(dynamic, 5)
    for (int i = N - 1; i >= 0; i -= 2) hits[i]++;
    #pragma omp single
    {
      for (int i = 0; i < N; i++) CHECK(hits[i] == ((N - 1 - i) % 2 == 0), "dynamic down %d", i);
      reset();
    }
    #pragma omp for schedule(monotonic: dynamic)
    for (int i = 0; i < N; i += 3) hits[i]++;
    #pragma omp single
    { expect("monotonic dynamic", 3); reset(); }
    #pragma omp for schedule(guided, 4) nowait
    for (int i = 0; i < N; i++) {
      #pragma omp atomic
      hits[i]++;
    }
    #pragma omp barrier
    #pragma omp single
    { expect("guided", 1); reset(); }
    #pragma omp for schedule(monotonic: guided)
    for (int i = 0; i < N; i++) hits[i]++;
    #pragma omp single
    { expect("monotonic guided", 1); reset(); }
    #pragma omp for schedule(runtime)
    for (int i = 0; i < N; i++) hits[i]++;
    #pragma omp single
    { expect("runtime", 1); reset(); }
    #pragma omp for schedule(dynamic, 16)
    for (int i = 0; i < N; i++) {
      #pragma omp task firstprivate(i)
      {
        #pragma omp atomic
        hits[i]++;
        #pragma omp atomic
        tasks++;
      }
    }
    #pragma omp single
    { expect("tasks in a loop", 1); reset(); }
  }
  #pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < N; i++) hits[i]++;
  expect("parallel for dynamic", 1); reset();
  #pragma omp parallel for schedule(guided)
  for (int i = 0; i < N; i++) hits[i]++;
  expect("parallel for guided", 1); reset();
  #pragma omp parallel for schedule(runtime)
  for (int i = 0; i < N; i++) hits[i]++;
  expect("parallel for runtime", 1); reset();
  #pragma omp parallel for schedule(static, 2)
  for (int i = 0; i < N; i++) hits[i]++;
  expect("parallel for static,2", 1);
  CHECK(tasks == N, "%ld tasks", tasks);
  printf("loops ok %ld\n", tasks);
  return 0;
}
