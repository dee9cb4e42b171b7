/* depend(in/out/inout): a chain runs in order, a diamond respects both paths, readers
   between two writers see the first. */
#include "check.h"
int main(void) {
  int chain[200], pos = 0;
  int a = 0, b = 0, c = 0, d = 0;
  int seen[20];
  #pragma omp parallel
  #pragma omp single
  {
    for (int i = 0; i < 200; i++) {
      #pragma omp task depend(inout: pos) firstprivate(i) shared(chain, pos)
      chain[pos++] = i;
    }
    for (int round = 1; round <= 20; round++) {
      #pragma omp task depend(out: a) firstprivate(round) shared(a)
      a = round;
      #pragma omp task depend(in: a) depend(out: b) shared(a, b)
      b = a * 2;
      #pragma omp task depend(in: a) depend(out: c) shared(a, c)
      c = a * 3;
      #pragma omp task depend(in: b, c) depend(inout: d) firstprivate(round) shared(b, c, d, seen)
      { seen[round - 1] = b + c; d += b + c; }
    }
    #pragma omp taskwait
  }
  for (int i = 0; i < 200; i++) CHECK(chain[i] == i, "chain[%d] = %d", i, chain[i]);
  for (int r = 1; r <= 20; r++) CHECK(seen[r - 1] == 5 * r, "diamond %d saw %d", r, seen[r - 1]);
  CHECK(d == 5 * 210, "d = %d", d);
  printf("depend ok %d %d\n", pos, d);
  return 0;
}
