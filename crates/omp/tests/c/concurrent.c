/* Eight threads of the program's own open parallel regions (with tasks, a worksharing
   loop and barriers inside) over and over for a bounded time (an argument in
   milliseconds, 200 by default): the teams run at once, each on its own threads, and
   every answer is right. alarm() turns a hang into a failure. */
#include "check.h"
#include <omp.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#define OPENERS 8
static long budget_ms = 200;
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static long regions[OPENERS];
static void *opener(void *arg) {
  int id = (int)(long)arg;
  double end = now_ms() + budget_ms;
  do {
    int size = 1 + (id + (int)regions[id]) % 3;
    long sum = 0, tasks = 0;
    int members = 0;
    #pragma omp parallel num_threads(size) reduction(+ : sum, members)
    {
      members += 1;
      #pragma omp for schedule(dynamic, 4)
      for (int i = 0; i < 100; i++) sum += i;
      #pragma omp single
      for (int t = 0; t < 20; t++) {
        #pragma omp task shared(tasks)
        {
          #pragma omp atomic
          tasks += 1;
        }
      }
    }
    CHECK(members == size && sum == 4950 && tasks == 20,
          "opener %d: %d members of %d, sum %ld, tasks %ld", id, members, size, sum, tasks);
    regions[id]++;
  } while (now_ms() < end);
  return NULL;
}
int main(int argc, char **argv) {
  if (argc > 1) budget_ms = atol(argv[1]);
  CHECK(budget_ms > 0 && budget_ms <= 60000, "budget %ld ms: expected 1..60000", budget_ms);
  alarm(30 + budget_ms / 1000);
  pthread_t t[OPENERS];
  for (long i = 0; i < OPENERS; i++) CHECK(pthread_create(&t[i], NULL, opener, (void *)i) == 0, "pthread_create");
  for (int i = 0; i < OPENERS; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < OPENERS; i++) CHECK(regions[i] > 0, "opener %d ran no region", i);
  printf("concurrent ok\n");
  return 0;
}
