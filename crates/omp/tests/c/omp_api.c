/* The omp_* queries beyond the basic ones: levels, ancestors and team sizes in and out
   of (nested) regions, run-sched-var set by omp_set_schedule and followed by
   schedule(runtime) loops, and the fixed answers of the features locus lacks (dynamic
   teams, nesting, cancellation, priorities, devices, places). */
#include "check.h"
#include <omp.h>
#define N 64
/* The queries in a deferred task made by member `me` of a team of `size`: it answers as
   the member that runs it, whichever that is, and a region it opens is nested (a team of
   one at level 2). Names and counts the wrong answers. */
static int in_task(int me, int size) {
  int runner = omp_get_thread_num(), wrong = 0;
  wrong += omp_get_level() != 1 || omp_get_num_threads() != size;
  wrong += !omp_in_parallel() || omp_get_team_size(1) != size;
  wrong += omp_get_ancestor_thread_num(1) != runner || runner < 0 || runner >= size;
  #pragma omp parallel num_threads(2) reduction(+: wrong)
  wrong += omp_get_level() != 2 || omp_get_num_threads() != 1
           || omp_get_ancestor_thread_num(1) != runner;
  if (wrong)
    fprintf(stderr, "task of member %d run by %d: level %d, threads %d, in parallel %d,"
            " team size(1) %d: %d wrong\n", me, runner, omp_get_level(),
            omp_get_num_threads(), omp_in_parallel(), omp_get_team_size(1), wrong);
  return wrong;
}
int main(void) {
  int owner[N];
  CHECK(omp_get_level() == 0 && omp_get_active_level() == 0, "levels outside a region");
  CHECK(omp_get_ancestor_thread_num(0) == 0 && omp_get_team_size(0) == 1, "level 0");
  CHECK(omp_get_ancestor_thread_num(1) == -1 && omp_get_team_size(1) == -1, "no level 1");
  CHECK(omp_get_ancestor_thread_num(-1) == -1 && omp_get_team_size(-1) == -1, "level -1");
  CHECK(omp_get_num_procs() >= 1, "%d processors", omp_get_num_procs());
  CHECK(omp_get_thread_limit() >= omp_get_max_threads(), "thread limit %d",
        omp_get_thread_limit());
  CHECK(omp_get_dynamic() == 0 && omp_get_nested() == 0, "dynamic or nested by default");
  CHECK(omp_get_max_active_levels() >= 1 && omp_get_supported_active_levels() >= 1,
        "active levels");
  CHECK(omp_get_cancellation() == 0, "cancellation");
  CHECK(omp_get_max_task_priority() == 0, "task priority");
  CHECK(omp_get_proc_bind() == omp_proc_bind_false, "proc bind");
  CHECK(omp_get_num_places() == 0 && omp_get_place_num() == -1
            && omp_get_partition_num_places() == 0, "places");
  CHECK(omp_get_num_devices() == 0 && omp_is_initial_device(), "devices");
  omp_set_default_device(0);
  CHECK(omp_get_default_device() == 0, "default device");
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0, "teams");
  omp_set_dynamic(0);
  omp_set_nested(0);
  omp_set_max_active_levels(1);
  int threads = omp_get_max_threads(), bad = 0;
  /* Each wrong answer is counted and named on stderr: the check, the member (its thread
     number in the outer region), what was expected and what came back. */
#define EXPECT(what, actual, expected) do { int a_ = (actual), e_ = (expected); \
    if (a_ != e_) { bad++; fprintf(stderr, "member %d: %s is %d, expected %d\n", \
                                   me, what, a_, e_); } } while (0)
  #pragma omp parallel reduction(+: bad)
  {
    int me = omp_get_thread_num(), size = omp_get_num_threads();
    EXPECT("omp_get_num_threads()", size, threads);
    EXPECT("omp_get_level()", omp_get_level(), 1);
    EXPECT("omp_get_active_level()", omp_get_active_level(), size > 1);
    EXPECT("omp_get_ancestor_thread_num(1)", omp_get_ancestor_thread_num(1), me);
    EXPECT("omp_get_team_size(1)", omp_get_team_size(1), size);
    EXPECT("omp_get_ancestor_thread_num(0)", omp_get_ancestor_thread_num(0), 0);
    EXPECT("omp_get_team_size(0)", omp_get_team_size(0), 1);
    EXPECT("omp_get_ancestor_thread_num(2)", omp_get_ancestor_thread_num(2), -1);
    #pragma omp parallel num_threads(2) reduction(+: bad)
    {
      EXPECT("nested omp_get_level()", omp_get_level(), 2);
      EXPECT("nested omp_get_active_level()", omp_get_active_level(), size > 1);
      EXPECT("nested omp_get_num_threads()", omp_get_num_threads(), 1);
      EXPECT("nested omp_get_team_size(2)", omp_get_team_size(2), 1);
      EXPECT("nested omp_get_ancestor_thread_num(1)", omp_get_ancestor_thread_num(1), me);
      EXPECT("nested omp_get_team_size(1)", omp_get_team_size(1), size);
      EXPECT("nested omp_get_ancestor_thread_num(2)", omp_get_ancestor_thread_num(2), 0);
      #pragma omp task shared(bad)
      {
        int level = omp_get_level(), ancestor = omp_get_ancestor_thread_num(1);
        if (level != 2 || ancestor != me) {
          fprintf(stderr, "member %d: in a nested task omp_get_level() is %d, expected 2;"
                  " omp_get_ancestor_thread_num(1) is %d, expected %d\n",
                  me, level, ancestor, me);
          #pragma omp atomic
          bad += 1;
        }
      }
    }
    /* Deferred tasks of the team answer as the member that runs them. */
    for (int k = 0; k < 4; k++) {
      #pragma omp task shared(bad)
      {
        int wrong = in_task(me, size);
        #pragma omp atomic
        bad += wrong;
      }
    }
  }
#undef EXPECT
  /* Tasks made as soon as regions start, while other members may still be on their
     way into the region. */
  for (int rep = 0; rep < 50; rep++) {
    #pragma omp parallel reduction(+: bad)
    {
      int me = omp_get_thread_num(), size = omp_get_num_threads();
      for (int k = 0; k < 4; k++) {
        #pragma omp task shared(bad)
        {
          int wrong = in_task(me, size);
          #pragma omp atomic
          bad += wrong;
        }
      }
    }
  }
  CHECK(bad == 0, "%d wrong answers in regions", bad);
  omp_sched_t kind;
  int chunk;
  omp_set_schedule(omp_sched_dynamic, 5);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_dynamic && chunk == 5, "dynamic,5 read back as %d,%d", kind, chunk);
  omp_set_schedule(omp_sched_guided, 3);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_guided && chunk == 3, "guided,3 read back as %d,%d", kind, chunk);
  omp_set_schedule(omp_sched_static, 4);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_static && chunk == 4, "static,4 read back as %d,%d", kind, chunk);
  #pragma omp parallel for schedule(runtime)
  for (int i = 0; i < N; i++) owner[i] = omp_get_thread_num();
  for (int i = 0; i < N; i++)
    CHECK(owner[i] == (i / 4) % threads, "static,4: iteration %d ran on %d", i, owner[i]);
  printf("omp api ok\n");
  return 0;
}
