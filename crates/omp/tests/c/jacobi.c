/* A Jacobi sweep as tasks over blocks of rows, iterated 10 times: the same values as
   the serial sweep, to the bit. */
#include "check.h"
#include <string.h>
#define R 96
#define C 64
#define B 8
static double u[R][C], v[R][C], s[R][C], t[R][C];
static void rows(double (*from)[C], double (*to)[C], int lo, int hi) {
  for (int i = lo; i < hi; i++)
    for (int j = 0; j < C; j++) {
      if (i == 0 || j == 0 || i == R - 1 || j == C - 1) { to[i][j] = from[i][j]; continue; }
      to[i][j] = 0.25 * (from[i - 1][j] + from[i + 1][j] + from[i][j - 1] + from[i][j + 1]);
    }
}
int main(void) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) u[i][j] = s[i][j] = (i == 0 ? 100.0 : 0.0) + (j * 7 + i * 3) % 11;
  for (int it = 0; it < 10; it++) { rows(s, t, 0, R); memcpy(s, t, sizeof s); }
  #pragma omp parallel
  #pragma omp single
  for (int it = 0; it < 10; it++) {
    for (int b = 0; b < R; b += B) {
      #pragma omp task firstprivate(b)
      rows(u, v, b, b + B);
    }
    #pragma omp taskwait
    for (int b = 0; b < R; b += B) {
      #pragma omp task firstprivate(b)
      memcpy(u[b], v[b], sizeof(double) * C * B);
    }
    #pragma omp taskwait
  }
  double sum = 0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) { CHECK(u[i][j] == s[i][j], "cell %d,%d", i, j); sum += u[i][j]; }
  printf("jacobi ok %.6f\n", sum);
  return 0;
}
