/* Host teams: every team runs once with its number, a distribute loop covers the
   range once over the teams, and thread_limit caps the parallel regions inside. */
#include <omp.h>
#include "check.h"
#define N 1000
int main(void) {
  int ran[8] = {0}, size[8] = {0}, widest = 0, limit = 0;
  long hits[N] = {0};
  #pragma omp teams num_teams(4) thread_limit(2)
  {
    int t = omp_get_team_num();
    ran[t]++;
    size[t] = omp_get_num_teams();
    #pragma omp parallel
    {
      int w = omp_get_num_threads();
      #pragma omp atomic compare
      if (widest < w) { widest = w; }
      #pragma omp atomic write
      limit = omp_get_thread_limit();
    }
  }
  for (int t = 0; t < 4; t++) CHECK(ran[t] == 1 && size[t] == 4, "team %d ran %d times of %d", t, ran[t], size[t]);
  CHECK(widest >= 1 && widest <= 2, "a team's region had %d threads past thread_limit(2)", widest);
  CHECK(limit == 2, "omp_get_thread_limit() in the teams region: %d", limit);
  #pragma omp teams distribute parallel for num_teams(3)
  for (int i = 0; i < N; i++) {
    #pragma omp atomic
    hits[i]++;
  }
  for (int i = 0; i < N; i++) CHECK(hits[i] == 1, "index %d ran %ld times", i, hits[i]);
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0, "outside teams");
  omp_set_num_teams(5);
  omp_set_teams_thread_limit(3);
  CHECK(omp_get_max_teams() == 5 && omp_get_teams_thread_limit() == 3, "teams settings");
  int once[8] = {0}, seen = 0;
  #pragma omp teams
  once[omp_get_team_num()]++;
  for (int t = 0; t < 8; t++) seen += once[t];
  for (int t = 0; t < 5; t++) CHECK(once[t] == 1, "team %d ran %d times", t, once[t]);
  CHECK(seen == 5, "omp_set_num_teams(5) gave %d teams", seen);
  /* Pausing outside any region succeeds, and the next region runs as before. */
  CHECK(omp_pause_resource_all(omp_pause_soft) == 0, "omp_pause_resource_all");
  CHECK(omp_pause_resource(omp_pause_hard, omp_get_initial_device()) == 0, "omp_pause_resource");
  int after = 0;
  #pragma omp parallel num_threads(2) reduction(+: after)
  after += 1;
  CHECK(after >= 1, "a region after the pause");
  printf("teams ok %d %d\n", seen, omp_get_initial_device() == omp_get_device_num());
  return 0;
}
