/* lastprivate(conditional: x): x ends with the value of the last iteration (or
   section) that assigned it, wherever that ran. GCC keeps each member's last
   assigning iteration in the construct's scratch memory (the mem argument of
   GOMP_loop_start and GOMP_sections2_start) and compares them after the loop. */
#include <omp.h>
#include "check.h"
#define N 500

int main(void) {
  int hits = 0;
  for (int round = 0; round < 4; round++) {
    int x = -1, y = -1;
    long z = -1;
    #pragma omp parallel for lastprivate(conditional: x) schedule(dynamic, 3)
    for (int i = 0; i < N; i++)
      if (i % 7 == round)
        x = i;
    CHECK(x == (N - 1) - (N - 1 - round) % 7, "round %d: dynamic: x = %d", round, x);
    #pragma omp parallel
    {
      #pragma omp for lastprivate(conditional: y) schedule(static)
      for (int i = 0; i < N; i++)
        if (i < 100 + round)
          y = i * 2;
      #pragma omp for lastprivate(conditional: z) schedule(guided)
      for (int i = 0; i < N; i++)
        if (i % 11 == 0 && i < 300)
          z = i + round;
    }
    CHECK(y == 2 * (99 + round), "round %d: static: y = %d", round, y);
    CHECK(z == 297 + round, "round %d: guided: z = %ld", round, z);
    int s = -1;
    #pragma omp parallel sections firstprivate(s) lastprivate(conditional: s)
    {
      #pragma omp section
      s = 1;
      #pragma omp section
      { if (round > 1) s = 2; }
      #pragma omp section
      { if (round == 3) s = 3; }
    }
    int want = round == 3 ? 3 : round > 1 ? 2 : 1;
    CHECK(s == want, "round %d: sections: s = %d, not %d", round, s, want);
    hits += x + y + (int)z + s;
  }
  printf("lastprivate conditional ok %d\n", hits);
  return 0;
}
