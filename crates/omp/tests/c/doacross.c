/* Doacross loops (ordered(n) with depend(sink)/depend(source)) under every schedule:
   each cell is computed from cells of earlier iterations, which must be done. Also a
   loop of eight ordered dimensions, whose sink vectors reach the stack arguments of
   the variadic GOMP_doacross_wait, and an unsigned long long loop. */
#include <omp.h>
#include <unistd.h>
#include "check.h"
#define R 60
#define C 40
static long g[R][C];

static long expected(int i, int j) {
  static long e[R][C];
  static int done = 0;
  if (!done) {
    for (int a = 0; a < R; a++)
      for (int b = 0; b < C; b++)
        e[a][b] = 1 + (a > 0 ? e[a - 1][b] : 0) + (b > 0 ? e[a][b - 1] : 0) % 1000003;
    done = 1;
  }
  return e[i][j];
}

static void check_grid(const char *what) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      CHECK(g[i][j] == expected(i, j), "%s: g[%d][%d] = %ld, not %ld", what, i, j, g[i][j], expected(i, j));
}

static void reset(void) {
  for (int i = 0; i < R; i++) for (int j = 0; j < C; j++) g[i][j] = -1;
}

#define CELL(i, j) (1 + ((i) > 0 ? g[(i) - 1][j] : 0) + ((j) > 0 ? g[i][(j) - 1] : 0) % 1000003)

/* The wavefront under schedule(runtime), as omp_set_schedule sets it. */
static void wavefront(omp_sched_t kind, int chunk, const char *what) {
  omp_set_schedule(kind, chunk);
  reset();
  #pragma omp parallel for ordered(2) schedule(runtime)
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      #pragma omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
      g[i][j] = CELL(i, j);
      #pragma omp ordered depend(source)
    }
  check_grid(what);
}

int main(int argc, char **argv) {
  (void)argv;
  wavefront(omp_sched_static, 0, "static");
  wavefront(omp_sched_static, 1, "static, 1");
  wavefront(omp_sched_static, 7, "static, 7");
  wavefront(omp_sched_dynamic, 1, "dynamic");
  wavefront(omp_sched_dynamic, 4, "dynamic, 4");
  wavefront(omp_sched_guided, 2, "guided, 2");
  /* collapse(2) of ordered(3): the first two dimensions dealt as one. */
  reset();
  #pragma omp parallel for collapse(2) ordered(3) schedule(static, 3)
  for (int i = 0; i < R; i++)
    for (int jb = 0; jb < C / 8; jb++)
      for (int jo = 0; jo < 8; jo++) {
        /* Column j = 8 jb + jo; its left neighbour is (jb, jo - 1), or (jb - 1, 7). */
        #pragma omp ordered depend(sink: i - 1, jb, jo) depend(sink: i, jb, jo - 1) depend(sink: i, jb - 1, jo + 7)
        g[i][8 * jb + jo] = CELL(i, 8 * jb + jo);
        #pragma omp ordered depend(source)
      }
  check_grid("collapse(2) ordered(3)");

  /* A prefix sum, one dimension. */
  long p[1000];
  #pragma omp parallel for ordered(1) schedule(dynamic, 3)
  for (int i = 0; i < 1000; i++) {
    #pragma omp ordered depend(sink: i - 1)
    p[i] = i + (i > 0 ? p[i - 1] : 0);
    #pragma omp ordered depend(source)
  }
  CHECK(p[999] == 999L * 1000 / 2, "prefix sum %ld", p[999]);

  /* Eight dimensions of two: every cell counts the cells before it in the last
     dimension's order, through a sink on the previous value of the last index. */
  static int h[2][2][2][2][2][2][2][2];
  #pragma omp parallel for ordered(8) schedule(static, 1)
  for (int a = 0; a < 2; a++)
  for (int b = 0; b < 2; b++)
  for (int c = 0; c < 2; c++)
  for (int d = 0; d < 2; d++)
  for (int e = 0; e < 2; e++)
  for (int f = 0; f < 2; f++)
  for (int q = 0; q < 2; q++)
  for (int r = 0; r < 2; r++) {
    #pragma omp ordered depend(sink: a, b, c, d, e, f, q, r - 1) depend(sink: a - 1, b, c, d, e, f, q, r)
    /* Slow the first half down, so that a wait misread would be seen. */
    if (a == 0) usleep(20);
    h[a][b][c][d][e][f][q][r] = 1 + (r ? h[a][b][c][d][e][f][q][0] : 0) + (a ? h[0][b][c][d][e][f][q][r] : 0);
    #pragma omp ordered depend(source)
  }
  CHECK(h[1][1][1][1][1][1][1][1] == 5, "eight dimensions: %d", h[1][1][1][1][1][1][1][1]);
  CHECK(h[0][1][0][1][0][1][0][1] == 2 && h[1][0][0][0][0][0][0][0] == 2, "eight dimensions");

  /* An unsigned long long iteration variable past LONG_MAX, with bounds known only at
     run time (GCC then calls the _ull entry points). */
  static unsigned long long u[500];
  unsigned long long lo = (1ULL << 63) + (unsigned)argc, hi = lo + 500;
  #pragma omp parallel for ordered(1) schedule(dynamic, 5)
  for (unsigned long long k = lo; k < hi; k++) {
    #pragma omp ordered depend(sink: k - 1)
    u[k - lo] = 1 + (k > lo ? u[k - lo - 1] : 0);
    #pragma omp ordered depend(source)
  }
  CHECK(u[499] == 500, "ull loop: %llu", u[499]);
  printf("doacross ok %ld %ld %d %llu\n", g[R - 1][C - 1], p[999], h[1][1][1][1][1][1][1][1], u[499]);
  return 0;
}
