/* critical (unnamed and named), atomic, and both lock families, from many tasks. */
#include "check.h"
#include <omp.h>
int main(void) {
  long a = 0, b = 0, c = 0, d = 0, e = 0;
  long double f = 0;
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  #pragma omp parallel
  {
    #pragma omp single
    for (int t = 0; t < 400; t++) {
      #pragma omp task shared(a, b, c, d, e, f, lock, nest)
      {
        #pragma omp critical
        a += 1;
        #pragma omp critical(second)
        b += 2;
        #pragma omp atomic
        c += 3;
        #pragma omp atomic
        f += 0.5L; /* long double: GOMP_atomic_start/end */
        omp_set_lock(&lock);
        d += 4;
        omp_unset_lock(&lock);
        omp_set_nest_lock(&nest);
        if (omp_test_nest_lock(&nest) == 2) e += 5;
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
      }
    }
  }
  CHECK(omp_test_lock(&lock) == 1, "a free lock is taken by test");
  CHECK(omp_test_lock(&lock) == 0, "a held lock is not");
  omp_unset_lock(&lock);
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  CHECK(a == 400 && b == 800 && c == 1200 && d == 1600 && e == 2000 && f == 200.0L,
        "counts %ld %ld %ld %ld %ld %Lf", a, b, c, d, e, f);
  printf("locks ok %ld %ld %ld %ld %ld %.1Lf\n", a, b, c, d, e, f);
  return 0;
}
