/* reduction(task, ...) on parallel, worksharing loops (GCC's schedule and the
   runtime's), sections and scope: tasks made in the construct take part with
   in_reduction, and the construct's own iterations too. */
#include <omp.h>
#include "check.h"
int main(void) {
  long s = 0, p = 1;
  #pragma omp parallel reduction(task, +: s) reduction(task, *: p) num_threads(3)
  {
    #pragma omp single
    for (int i = 1; i <= 20; i++) {
      #pragma omp task in_reduction(+: s) in_reduction(*: p) firstprivate(i)
      { s += i; if (i <= 10) p *= 2; }
    }
    s += 1000;
  }
  CHECK(s == 210 + 1000L * 3 && p == 1024, "parallel: s = %ld, p = %ld", s, p);

  long a = 0, b = 0, c = 0, d = 0, e = 0, order[60], pos = 0;
  #pragma omp parallel num_threads(3)
  {
    #pragma omp for reduction(task, +: a) schedule(static)
    for (int i = 0; i < 300; i++) {
      if (i % 3 == 0) {
        #pragma omp task in_reduction(+: a) firstprivate(i)
        a += i;
      } else {
        a += i;
      }
    }
    #pragma omp for reduction(task, +: b) schedule(dynamic, 7)
    for (int i = 0; i < 500; i++) {
      #pragma omp task in_reduction(+: b) firstprivate(i)
      b += i;
    }
    #pragma omp for ordered reduction(task, +: e) schedule(dynamic, 4)
    for (int i = 0; i < 60; i++) {
      #pragma omp task in_reduction(+: e) firstprivate(i)
      e += i;
      #pragma omp ordered
      order[pos++] = i;
    }
    #pragma omp sections reduction(task, +: c)
    {
      #pragma omp section
      {
        #pragma omp task in_reduction(+: c)
        c += 1;
      }
      #pragma omp section
      {
        #pragma omp task in_reduction(+: c)
        c += 10;
      }
      #pragma omp section
      c += 100;
    }
    #pragma omp scope reduction(task, +: d)
    {
      #pragma omp task in_reduction(+: d)
      d += 5;
    }
  }
  CHECK(a == 299L * 300 / 2, "for static: %ld", a);
  CHECK(b == 499L * 500 / 2, "for dynamic: %ld", b);
  CHECK(c == 111, "sections: %ld", c);
  CHECK(d == 15, "scope: %ld", d);
  CHECK(e == 59L * 60 / 2, "ordered for: %ld", e);
  for (int i = 0; i < 60; i++) CHECK(order[i] == i, "ordered: order[%d] = %ld", i, order[i]);
  printf("task reductions ok %ld %ld %ld %ld %ld %ld %ld\n", s, p, a, b, c, d, e);
  return 0;
}
