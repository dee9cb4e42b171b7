/* N-queens counting with tasks (BOTS-style: each task copies the partial board),
   without and with a depth cutoff. */
#include "check.h"
#include <string.h>
static int ok(int n, const char *a) {
  for (int i = 0; i < n; i++) {
    char p = a[i];
    for (int j = i + 1; j < n; j++) {
      char q = a[j];
      if (q == p || q == p - (j - i) || q == p + (j - i)) return 0;
    }
  }
  return 1;
}
static long serial(int n, int j, char *a) {
  if (n == j) return 1;
  long s = 0;
  for (int i = 0; i < n; i++) { a[j] = (char) i; if (ok(j + 1, a)) s += serial(n, j + 1, a); }
  return s;
}
static long queens(int n, int j, const char *a, int cutoff) {
  if (n == j) return 1;
  if (cutoff >= 0 && j >= cutoff) { char b[32]; memcpy(b, a, j); return serial(n, j, b); }
  long counts[32] = {0};
  for (int i = 0; i < n; i++) {
    #pragma omp task firstprivate(i) shared(counts)
    {
      char b[32];
      memcpy(b, a, j);
      b[j] = (char) i;
      if (ok(j + 1, b)) counts[i] = queens(n, j + 1, b, cutoff);
    }
  }
  #pragma omp taskwait
  long s = 0;
  for (int i = 0; i < n; i++) s += counts[i];
  return s;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 7;
  int cutoff = argc > 2 ? atoi(argv[2]) : -2;
  static const long known[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};
  CHECK(n >= 1 && n <= 14, "n in 1..=14");
  for (int c = 0; c < 2; c++) {
    int cut = cutoff != -2 ? cutoff : (c == 0 ? -1 : 3);
    long r = 0;
    #pragma omp parallel
    #pragma omp single
    r = queens(n, 0, "", cut);
    CHECK(r == known[n], "queens(%d) cutoff %d gave %ld", n, cut, r);
    printf("queens(%d) cutoff %d = %ld\n", n, cut, r);
    if (cutoff != -2) break;
  }
  return 0;
}
