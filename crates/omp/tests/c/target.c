/* Target constructs with no offload device run on the host: maps are the host's own
   memory, firstprivate data is copied, nowait regions are tasks that keep their
   depend clauses, and teams inside share a distribute loop. With an argument, one
   region asks for device 7. */
#include <omp.h>
#include <string.h>
#include "check.h"
#define N 4096
static double a[N], b[N];
struct point { int x, y, z; };
int main(int argc, char **argv) {
  (void)argv;
  for (int i = 0; i < N; i++) { a[i] = i; b[i] = 0; }
  #pragma omp target map(to: a) map(from: b)
  for (int i = 0; i < N; i++) b[i] = 2 * a[i];
  for (int i = 0; i < N; i++) CHECK(b[i] == 2.0 * i, "b[%d] = %g", i, b[i]);

  double sum = 0;
  #pragma omp target teams distribute parallel for reduction(+: sum) map(tofrom: sum) num_teams(3) thread_limit(2)
  for (int i = 0; i < N; i++) sum += a[i];
  CHECK(sum == (double)N * (N - 1) / 2, "sum = %g", sum);

  int team_of[8] = {0}, widest = 0;
  #pragma omp target teams num_teams(4) thread_limit(2) map(tofrom: team_of, widest)
  {
    team_of[omp_get_team_num()] = omp_get_num_teams();
    #pragma omp parallel
    {
      int w = omp_get_num_threads();
      #pragma omp atomic compare
      if (widest < w) { widest = w; }
    }
  }
  for (int t = 0; t < 4; t++) CHECK(team_of[t] == 4, "team %d saw %d teams", t, team_of[t]);
  CHECK(widest >= 1 && widest <= 2, "%d threads past thread_limit(2)", widest);

  long hits[N];
  memset(hits, 0, sizeof hits);
  #pragma omp target teams distribute map(tofrom: hits)
  for (int i = 0; i < N; i++) hits[i]++;
  for (int i = 0; i < N; i++) CHECK(hits[i] == 1, "hits[%d] = %ld", i, hits[i]);

  struct point p = {1, 2, 3};
  int seen = 0;
  #pragma omp target firstprivate(p) map(from: seen)
  { p.x += 10; seen = p.x + p.y + p.z; }
  CHECK(p.x == 1 && seen == 16, "firstprivate: p.x = %d, seen = %d", p.x, seen);

  int x = 0, y = 0;
  #pragma omp parallel
  #pragma omp single
  {
    #pragma omp target nowait depend(out: x) map(tofrom: x)
    x = 5;
    #pragma omp target nowait depend(in: x) depend(out: y) map(to: x) map(from: y)
    y = x * 3;
    #pragma omp task depend(in: y) shared(y)
    CHECK(y == 15, "the nowait chain gave y = %d", y);
    #pragma omp taskwait
  }
  CHECK(x == 5 && y == 15, "x = %d, y = %d", x, y);

  double *d = omp_target_alloc(N * sizeof(double), omp_get_initial_device());
  CHECK(d != NULL, "omp_target_alloc on the host device");
  CHECK(omp_target_memcpy(d, a, N * sizeof(double), 0, 0, omp_get_initial_device(), omp_get_initial_device()) == 0, "memcpy");
  CHECK(omp_target_is_present(a, omp_get_initial_device()), "host memory is present on the host");
  #pragma omp target is_device_ptr(d)
  for (int i = 0; i < N; i++) d[i] += 1;
  CHECK(d[N - 1] == N, "d[N - 1] = %g", d[N - 1]);
  omp_target_free(d, omp_get_initial_device());

  #pragma omp target enter data map(to: a)
  #pragma omp target update from(a)
  #pragma omp target exit data map(delete: a)
  #pragma omp target data map(tofrom: b)
  {
    #pragma omp target
    b[0] = -1;
  }
  CHECK(b[0] == -1, "target data");
  /* A device number that is not the host's: the host runs it, unless
     OMP_TARGET_OFFLOAD=mandatory. */
  int on = 0;
  #pragma omp target device(argc > 1 ? 7 : omp_get_initial_device()) map(from: on)
  on = 1;
  CHECK(on == 1, "the device clause's region did not run");
  printf("target ok %.0f %d %d\n", sum, seen, y);
  return 0;
}
