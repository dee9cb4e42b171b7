/* Regions of every team size from 1 to N (an argument, 100 by default), twice over, as
   omp_set_num_threads(t) for t = 1..N does: threads are reused across sizes, so the
   process never holds many more threads than its largest team. The peak (Threads: in
   /proc/self/status, read inside each region) goes to stderr, for the test to compare
   with GCC's libgomp; the answers go to stdout. */
#include "check.h"
#include <omp.h>
#include <string.h>
static int threads_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "Threads:", 8) == 0) n = atoi(line + 8);
  if (f) fclose(f);
  return n;
}
int main(int argc, char **argv) {
  int sizes = argc > 1 ? atoi(argv[1]) : 100, peak = 0;
  CHECK(sizes >= 1 && sizes <= 200, "sizes %d: expected 1..200", sizes);
  long total = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int t = 1; t <= sizes; t++) {
      omp_set_num_threads(t);
      int seen = 0;
      #pragma omp parallel reduction(+ : total)
      {
        total += omp_get_thread_num() + 1;
        #pragma omp single
        {
          seen = omp_get_num_threads();
          int now = threads_now();
          if (now > peak) peak = now;
        }
      }
      CHECK(seen == t, "a team of %d threads asked for %d", seen, t);
    }
  long want = 0;
  for (int t = 1; t <= sizes; t++) want += 2L * t * (t + 1) / 2;
  CHECK(total == want, "total %ld, expected %ld", total, want);
  /* The upper bound is the test's to judge: GCC's libgomp, whose surplus threads leave
     on their own time, can pass the largest team by a few dozen on a loaded machine. */
  CHECK(peak >= sizes, "peak %d threads for teams of up to %d", peak, sizes);
  fprintf(stderr, "peak threads %d\n", peak);
  printf("team_sizes %d ok\n", sizes);
  return 0;
}
