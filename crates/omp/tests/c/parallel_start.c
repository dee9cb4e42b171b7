/* The lowering of GCC before 4.9, called as such objects call it: GOMP_parallel_start,
   the region's function run by the caller, GOMP_parallel_end; and the combined
   GOMP_parallel_loop_*_start and GOMP_parallel_sections_start. Worksharing, tasks and
   barriers inside give the same totals whatever the team's size. */
#include "check.h"
#include <omp.h>
#include <stdbool.h>
#include <string.h>
#define N 500
extern void GOMP_parallel_start(void (*)(void *), void *, unsigned);
extern void GOMP_parallel_end(void);
extern void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long, long,
                                             long, long);
extern void GOMP_parallel_loop_static_start(void (*)(void *), void *, unsigned, long, long,
                                            long, long);
extern void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long, long,
                                             long);
extern void GOMP_parallel_sections_start(void (*)(void *), void *, unsigned, unsigned);
extern bool GOMP_loop_dynamic_next(long *, long *);
extern bool GOMP_loop_static_next(long *, long *);
extern bool GOMP_loop_runtime_next(long *, long *);
extern void GOMP_loop_end(void);
extern unsigned GOMP_sections_next(void);
extern void GOMP_sections_end(void);
static int hits[N];
static long tasks, sections;
static void region(void *data) {
  long *sum = data;
  #pragma omp for schedule(dynamic, 7)
  for (int i = 0; i < N; i++) {
    hits[i]++;
    #pragma omp task firstprivate(i)
    {
      #pragma omp atomic
      tasks += i;
    }
  }
  #pragma omp single
  {
    #pragma omp atomic
    *sum += 1;
  }
}
struct loop { bool (*next)(long *, long *); long incr; };
static void loop_body(void *data) {
  struct loop *l = data;
  long lo, hi;
  while (l->next(&lo, &hi))
    for (long i = lo; l->incr > 0 ? i < hi : i > hi; i += l->incr) {
      #pragma omp atomic
      hits[i]++;
    }
  GOMP_loop_end();
}
static void sections_body(void *data) {
  (void)data;
  for (unsigned s = GOMP_sections_next(); s; s = GOMP_sections_next()) {
    #pragma omp atomic
    sections += s;
  }
  GOMP_sections_end();
}
/* A real team: the caller is thread 0 (its thread-local data is its own), the other
   members are threads of their own, each numbered once, all at one barrier. */
static __thread int caller;
static int members[8], team_size, caller_is_zero;
static void team_region(void *data) {
  (void)data;
  int me = omp_get_thread_num();
  #pragma omp atomic
  members[me]++;
  if (me == 0) {
    team_size = omp_get_num_threads();
    caller_is_zero = caller == 1;
  }
  #pragma omp barrier
  CHECK(omp_get_level() == 1 && omp_in_parallel() == (omp_get_num_threads() > 1), "level");
}
static void expect(const char *what) {
  for (int i = 0; i < N; i++) CHECK(hits[i] == 1, "%s: iteration %d ran %d times", what, i, hits[i]);
  memset(hits, 0, sizeof hits);
}
int main(void) {
  long singles = 0;
  GOMP_parallel_start(region, &singles, 3);
  region(&singles);
  GOMP_parallel_end();
  expect("parallel_start");
  CHECK(singles == 1 && tasks == (long)N * (N - 1) / 2, "single %ld, tasks %ld", singles, tasks);
  CHECK(omp_get_level() == 0, "level %d after the region", omp_get_level());
  struct loop l = {GOMP_loop_dynamic_next, 1};
  GOMP_parallel_loop_dynamic_start(loop_body, &l, 3, 0, N, 1, 4);
  loop_body(&l);
  GOMP_parallel_end();
  expect("parallel_loop_dynamic_start");
  l = (struct loop){GOMP_loop_static_next, -1};
  GOMP_parallel_loop_static_start(loop_body, &l, 2, N - 1, -1, -1, 0);
  loop_body(&l);
  GOMP_parallel_end();
  expect("parallel_loop_static_start");
  l = (struct loop){GOMP_loop_runtime_next, 1};
  GOMP_parallel_loop_runtime_start(loop_body, &l, 0, 0, N, 1);
  loop_body(&l);
  GOMP_parallel_end();
  expect("parallel_loop_runtime_start");
  GOMP_parallel_sections_start(sections_body, NULL, 2, 9);
  sections_body(NULL);
  GOMP_parallel_end();
  CHECK(sections == 45, "sections add up to %ld", sections);
  caller = 1;
  for (int round = 0; round < 20; round++) {
    GOMP_parallel_start(team_region, NULL, 3);
    team_region(NULL);
    GOMP_parallel_end();
    CHECK(team_size == 3 && caller_is_zero, "round %d: a team of %d, caller thread 0: %d",
          round, team_size, caller_is_zero);
  }
  for (int i = 0; i < 3; i++) CHECK(members[i] == 20, "thread %d ran %d times", i, members[i]);
  printf("parallel_start ok %ld %ld, a team of %d\n", tasks, sections, team_size);
  return 0;
}
