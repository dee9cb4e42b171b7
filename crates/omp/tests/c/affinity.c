/* The affinity format: set, read back (cut short as asked), and each member's line
   captured with its own thread number and team size. */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
int main(void) {
  char buf[64];
  omp_set_affinity_format("thread %{thread_num} of %N");
  size_t len = omp_get_affinity_format(buf, sizeof buf);
  CHECK(len == strlen("thread %{thread_num} of %N") && strcmp(buf, "thread %{thread_num} of %N") == 0, "format %s", buf);
  len = omp_get_affinity_format(buf, 7);
  CHECK(len == 26 && strcmp(buf, "thread") == 0, "cut short: %zu %s", len, buf);
  int ok = 0;
  #pragma omp parallel num_threads(3) reduction(+: ok)
  {
    char line[64], want[64];
    size_t n = omp_capture_affinity(line, sizeof line, NULL);
    snprintf(want, sizeof want, "thread %d of %d", omp_get_thread_num(), omp_get_num_threads());
    ok += n == strlen(want) && strcmp(line, want) == 0;
    n = omp_capture_affinity(line, sizeof line, "[%0.3n|%.4L]");
    snprintf(want, sizeof want, "[%03d|   1]", omp_get_thread_num());
    ok += n == 10 && strcmp(line, want) == 0;
  }
  CHECK(ok == 6, "lines right: %d of 6", ok);
  char small[4];
  len = omp_capture_affinity(small, sizeof small, "%P");
  CHECK(len >= 1 && strlen(small) == (len < 4 ? len : 3), "capture cut short");
  omp_display_affinity("pid %P on %H, cpus %A");
  printf("affinity ok %d\n", ok > 0);
  return 0;
}
