/* Task reductions: taskloop reduction (several operators, an empty loop), taskgroup
   task_reduction with tasks and their children in_reduction, nested taskgroups whose
   inner tasks take part in the outer reduction, a taskloop in_reduction, and all of it
   outside any parallel region too. */
#include "check.h"
static long fib_sum;
static void spawn(int depth) {
  #pragma omp task in_reduction(+: fib_sum)
  {
    fib_sum += depth;
    if (depth > 0) { spawn(depth - 1); spawn(depth - 1); }
  }
}
static void run(int n, long *out) {
  long s = 0, t = 0, u = 0, empty = 5;
  double d = 1;
  int mx = -1;
  #pragma omp taskloop reduction(+: s) reduction(*: d) reduction(max: mx) grainsize(3)
  for (int i = 0; i < n; i++) {
    s += i;
    if (i % 25 == 0) d *= 2;
    if (i > mx) mx = i;
  }
  #pragma omp taskloop reduction(+: empty)
  for (int i = n; i < 0; i++) empty += 1000;
  fib_sum = 0;
  #pragma omp taskgroup task_reduction(+: fib_sum, t)
  {
    spawn(6);
    for (int i = 0; i < 50; i++) {
      #pragma omp task in_reduction(+: t) firstprivate(i)
      t += i;
    }
    #pragma omp taskgroup task_reduction(+: u)
    {
      for (int i = 0; i < 20; i++) {
        #pragma omp task in_reduction(+: u, t) firstprivate(i)
        { u += 1; t += 1000; }
      }
      #pragma omp taskloop in_reduction(+: t) num_tasks(4) nogroup
      for (int i = 0; i < 8; i++) t += 100000;
      #pragma omp taskwait
    }
  }
  out[0] = s; out[1] = (long)d; out[2] = mx; out[3] = empty;
  out[4] = fib_sum; out[5] = t; out[6] = u;
}
static void expect(const long *r, int n) {
  long d = 1;
  for (int i = 0; i < n; i += 25) d *= 2;
  CHECK(r[0] == (long)n * (n - 1) / 2 && r[1] == d && r[2] == n - 1, "taskloop %ld %ld %ld",
        r[0], r[1], r[2]);
  CHECK(r[3] == 5, "empty taskloop reduced to %ld", r[3]);
  /* spawn(k) adds k, then twice spawn(k - 1): sum over levels of level * 2^(6 - level) */
  long f = 0;
  for (int k = 0; k <= 6; k++) f += (long)k << (6 - k);
  CHECK(r[4] == f, "in_reduction tree %ld, not %ld", r[4], f);
  CHECK(r[5] == 1225 + 20 * 1000 + 8 * 100000, "outer reduction %ld", r[5]);
  CHECK(r[6] == 20, "inner reduction %ld", r[6]);
}
int main(void) {
  long in_region[7], alone[7];
  #pragma omp parallel
  #pragma omp single
  run(300, in_region);
  expect(in_region, 300);
  run(130, alone);
  expect(alone, 130);
  printf("reduction ok %ld %ld %ld %ld\n", in_region[0], in_region[4], in_region[5], alone[0]);
  return 0;
}
