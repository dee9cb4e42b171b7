/* Nested parallelism and the ICVs it reads, in the manner of GCC's nested-1, nested-3,
   icv-1, icv-2, lib-1, lib-2, pr26943-3 and pr42942: omp_get_level,
   omp_get_active_level, omp_get_ancestor_thread_num, omp_get_team_size, nested teams
   of their own threads up to max-active-levels, and teams of one past it. */
#include "check.h"
#include <omp.h>
#include <stdbool.h>
static int inner_members[2][3];
int main(void) {
  CHECK(omp_get_level() == 0 && omp_get_active_level() == 0, "levels outside");
  CHECK(omp_get_max_active_levels() == 1 && !omp_get_nested(), "default max-active-levels %d",
        omp_get_max_active_levels());
  CHECK(omp_get_ancestor_thread_num(0) == 0 && omp_get_team_size(0) == 1, "level 0");
  CHECK(omp_get_ancestor_thread_num(1) == -1 && omp_get_team_size(-1) == -1, "no level 1");
  /* One active level: the inner region is a team of one. */
  int inner = 0;
  #pragma omp parallel num_threads(2)
  {
    #pragma omp parallel num_threads(2)
    {
      #pragma omp atomic
      inner++;
      CHECK(omp_get_num_threads() == 1 && omp_get_level() == 2 && omp_get_active_level() == 1,
            "inactive nested region: %d threads, level %d, active %d", omp_get_num_threads(),
            omp_get_level(), omp_get_active_level());
    }
  }
  CHECK(inner == 2, "inner regions %d", inner);
  omp_set_nested(1);
  CHECK(omp_get_nested() && omp_get_max_active_levels() > 1, "omp_set_nested(1)");
  omp_set_max_active_levels(2);
  CHECK(omp_get_max_active_levels() == 2 && omp_get_nested(), "max-active-levels 2");
  bool wrong = false;
  #pragma omp parallel num_threads(2) reduction(|| : wrong)
  {
    int outer = omp_get_thread_num();
    long done = 0;
    wrong = wrong || omp_get_level() != 1 || omp_get_active_level() != 1 || !omp_in_parallel();
    #pragma omp parallel num_threads(3) reduction(|| : wrong) shared(done)
    {
      int me = omp_get_thread_num();
      #pragma omp atomic
      inner_members[outer][me]++;
      wrong = wrong || omp_get_num_threads() != 3 || omp_get_level() != 2;
      wrong = wrong || omp_get_active_level() != 2;
      wrong = wrong || omp_get_ancestor_thread_num(1) != outer;
      wrong = wrong || omp_get_ancestor_thread_num(2) != me;
      wrong = wrong || omp_get_ancestor_thread_num(0) != 0 || omp_get_ancestor_thread_num(3) != -1;
      wrong = wrong || omp_get_team_size(1) != 2 || omp_get_team_size(2) != 3;
      wrong = wrong || omp_get_team_size(0) != 1 || omp_get_team_size(3) != -1;
      /* Past max-active-levels: a team of one, one level deeper, no more active. */
      #pragma omp parallel num_threads(2) reduction(|| : wrong)
      {
        wrong = wrong || omp_get_num_threads() != 1 || omp_get_level() != 3;
        wrong = wrong || omp_get_active_level() != 2 || omp_get_ancestor_thread_num(3) != 0;
      }
      /* Tasks of a nested team run on its members and are all done at its barrier. */
      #pragma omp single
      for (int t = 0; t < 30; t++) {
        #pragma omp task shared(done)
        {
          #pragma omp atomic
          done++;
        }
      }
    }
    wrong = wrong || done != 30;
  }
  CHECK(!wrong, "nested levels, ancestors or team sizes wrong");
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < 3; i++)
      CHECK(inner_members[o][i] == 1, "inner member %d of outer %d ran %d times", i, o,
            inner_members[o][i]);
  /* The ICVs a nested region's threads read are the program's. */
  omp_set_max_active_levels(0);
  int members = 0;
  #pragma omp parallel num_threads(3) reduction(+ : members)
  members++;
  CHECK(members == 1 && omp_get_max_active_levels() == 0, "max-active-levels 0: %d members",
        members);
  omp_set_nested(0);
  CHECK(omp_get_max_active_levels() == 0, "omp_set_nested(0) keeps a limit of 0");
  omp_set_max_active_levels(3);
  omp_set_nested(0);
  CHECK(!omp_get_nested() && omp_get_max_active_levels() == 1, "omp_set_nested(0)");
  printf("nested ok\n");
  return 0;
}
