/* A doacross loop of ten ordered dimensions (more than the variadic
   GOMP_doacross_wait passes in registers, and more than any fixed table of
   dimensions would hold): each iteration waits for the one before it in the last
   dimension and for the one before it in the first, under static, dynamic and
   guided schedules. */
#include <omp.h>
#include "check.h"
#define D 2
#define O 6
static int g[O][D][D][D][D][D][D][D][D][D];

#define LOOPS \
  for (int i0 = 0; i0 < O; i0++) for (int i1 = 0; i1 < D; i1++) \
  for (int i2 = 0; i2 < D; i2++) for (int i3 = 0; i3 < D; i3++) \
  for (int i4 = 0; i4 < D; i4++) for (int i5 = 0; i5 < D; i5++) \
  for (int i6 = 0; i6 < D; i6++) for (int i7 = 0; i7 < D; i7++) \
  for (int i8 = 0; i8 < D; i8++) for (int i9 = 0; i9 < D; i9++)
#define AT(a) g[a##0][a##1][a##2][a##3][a##4][a##5][a##6][a##7][a##8][a##9]
#define BODY \
  { \
    _Pragma("omp ordered depend(sink: i0 - 1, i1, i2, i3, i4, i5, i6, i7, i8, i9) depend(sink: i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 - 1)") \
    int before = i0 > 0 ? g[i0 - 1][i1][i2][i3][i4][i5][i6][i7][i8][i9] : 0; \
    int left = i9 > 0 ? g[i0][i1][i2][i3][i4][i5][i6][i7][i8][i9 - 1] : 0; \
    CHECK(i0 == 0 || before > 0, "sink (%d - 1, ...) not done", i0); \
    CHECK(i9 == 0 || left > 0, "sink (..., %d - 1) not done", i9); \
    g[i0][i1][i2][i3][i4][i5][i6][i7][i8][i9] = 1 + before + left; \
    _Pragma("omp ordered depend(source)") \
  }

static long sum(void) {
  long s = 0;
  LOOPS s += AT(i);
  return s;
}

static void clear(void) {
  LOOPS AT(i) = 0;
}

int main(void) {
  long sums[3];
  clear();
  #pragma omp parallel for ordered(10) schedule(static)
  LOOPS BODY
  sums[0] = sum();
  clear();
  #pragma omp parallel for ordered(10) schedule(dynamic, 2)
  LOOPS BODY
  sums[1] = sum();
  clear();
  #pragma omp parallel for ordered(10) schedule(guided)
  LOOPS BODY
  sums[2] = sum();
  CHECK(sums[0] == sums[1] && sums[1] == sums[2], "sums %ld %ld %ld", sums[0], sums[1], sums[2]);
  printf("doacross deep ok %ld\n", sums[0]);
  return 0;
}
