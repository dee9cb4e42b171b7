/* taskloop: every iteration runs once under grainsize, strict grainsize, num_tasks and
   the default split, counting up and down, signed and unsigned long long (variable
   bounds, so GCC calls GOMP_taskloop_ull); the number of tasks is libgomp's; firstprivate
   data (an array, copied by cpyfn) is each task's own; lastprivate gets the last
   iteration's value; nogroup tasks finish by a taskwait; if(0) and final run the tasks
   at once; taskloops nest inside taskloop tasks. */
#include "check.h"
#include <omp.h>
#include <string.h>
#define N 1000
static int hits[N];
static void reset(void) { memset(hits, 0, sizeof hits); }
static void expect(const char *what, int step, int from) {
  for (int i = 0; i < N; i++)
    CHECK(hits[i] == (i >= from && (i - from) % step == 0), "%s: iteration %d ran %d times",
          what, i, hits[i]);
}
static long nested(int depth, int lo, int hi) {
  long sum = 0;
  #pragma omp taskloop grainsize(4) shared(sum)
  for (int i = lo; i < hi; i++) {
    long part = depth > 0 ? nested(depth - 1, 0, i % 9) : i;
    #pragma omp atomic
    sum += part;
  }
  return sum;
}
int main(int argc, char **argv) {
  unsigned long long lo = 30, hi = N + (argc > 5); /* not constants: the _ull form */
  long tasks[8] = {0};
  long sum_ull = 0, sum_down = 0, nest = 0;
  int last = -1, in_final = 0, arr[16];
  for (int i = 0; i < 16; i++) arr[i] = i;
  #pragma omp parallel
  #pragma omp single
  {
    reset();
    int first = 1;
    #pragma omp taskloop grainsize(7) firstprivate(first)
    for (int i = 0; i < N; i++) {
      hits[i]++;
      if (first) { first = 0;
        #pragma omp atomic
        tasks[0]++; }
    }
    expect("grainsize 7", 1, 0); reset();
    #pragma omp taskloop grainsize(strict: 9) firstprivate(first)
    for (int i = N - 1; i >= 0; i -= 2) {
      hits[i]++;
      if (first) { first = 0;
        #pragma omp atomic
        tasks[1]++; }
    }
    for (int i = 0; i < N; i++) CHECK(hits[i] == ((N - 1 - i) % 2 == 0), "strict down %d", i);
    reset();
    #pragma omp taskloop num_tasks(13) firstprivate(first)
    for (int i = 5; i < N; i += 3) {
      hits[i]++;
      if (first) { first = 0;
        #pragma omp atomic
        tasks[2]++; }
    }
    expect("num_tasks 13", 3, 5); reset();
    #pragma omp taskloop firstprivate(first)
    for (int i = 0; i < N; i++) {
      hits[i]++;
      if (first) { first = 0;
        #pragma omp atomic
        tasks[3]++; }
    }
    expect("default split", 1, 0); reset();
    #pragma omp taskloop grainsize(5000) firstprivate(first)
    for (int i = 0; i < N; i++) {
      hits[i]++;
      if (first) { first = 0;
        #pragma omp atomic
        tasks[4]++; }
    }
    expect("one task", 1, 0); reset();
    #pragma omp taskloop num_tasks(6) shared(sum_ull)
    for (unsigned long long i = lo; i < hi; i += 4) {
      hits[i]++;
      #pragma omp atomic
      sum_ull += (long)i;
    }
    expect("ull up", 4, 30); reset();
    #pragma omp taskloop grainsize(11) shared(sum_down)
    for (unsigned long long i = hi - 1; i > lo; i -= 5) {
      hits[i]++;
      #pragma omp atomic
      sum_down += (long)i;
    }
    for (int i = 0; i < N; i++)
      CHECK(hits[i] == (i > 30 && (N - 1 - i) % 5 == 0), "ull down %d: %d", i, hits[i]);
    reset();
    #pragma omp taskloop grainsize(3) firstprivate(arr, first)
    for (int i = 0; i < N; i++) {
      long s = 0;
      for (int k = 0; k < 16; k++) s += arr[k];
      CHECK(!first || s == 120, "a task's firstprivate array sums to %ld", s);
      arr[i % 16] += 100; /* this task's own copy, kept by its later iterations */
      hits[i]++;
      if (first) { first = 0;
        #pragma omp atomic
        tasks[5]++; }
    }
    expect("firstprivate", 1, 0); reset();
    #pragma omp taskloop lastprivate(last) num_tasks(7)
    for (int i = 0; i < N; i += 7) { last = i * 2; hits[i]++; }
    expect("lastprivate", 7, 0); reset();
    #pragma omp taskloop nogroup grainsize(50)
    for (int i = 0; i < N; i++) {
      #pragma omp atomic
      hits[i]++;
    }
    #pragma omp taskwait
    expect("nogroup", 1, 0); reset();
    #pragma omp taskloop if(0) grainsize(100) firstprivate(first)
    for (int i = 0; i < N; i++) {
      hits[i]++;
      if (first) { first = 0;
        #pragma omp atomic
        tasks[6]++; }
    }
    expect("if(0)", 1, 0); reset();
    #pragma omp taskloop final(1) num_tasks(4) shared(in_final)
    for (int i = 0; i < N; i++) {
      hits[i]++;
      if (omp_in_final()) {
        #pragma omp atomic
        in_final++;
      }
    }
    expect("final", 1, 0); reset();
    nest = nested(2, 0, 40);
  }
  long want_ull = 0, want_down = 0;
  for (unsigned long long i = 30; i < N; i += 4) want_ull += (long)i;
  for (unsigned long long i = N - 1; i > 30; i -= 5) want_down += (long)i;
  CHECK(sum_ull == want_ull, "ull sum %ld, not %ld", sum_ull, want_ull);
  CHECK(sum_down == want_down, "ull down sum %ld, not %ld", sum_down, want_down);
  CHECK(last == 994 * 2, "lastprivate %d", last);
  CHECK(in_final == N, "%d iterations in a final task", in_final);
  CHECK(tasks[0] == 142 && tasks[1] == 56 && tasks[2] == 13 && tasks[4] == 1 && tasks[5] == 333
            && tasks[6] == 10,
        "task counts %ld %ld %ld %ld %ld %ld", tasks[0], tasks[1], tasks[2], tasks[4], tasks[5],
        tasks[6]);
  CHECK(tasks[3] == omp_get_max_threads(), "default split: %ld tasks", tasks[3]);
  printf("taskloop ok: tasks %ld %ld %ld %ld %ld %ld, sums %ld %ld, last %d, nested %ld\n",
         tasks[0], tasks[1], tasks[2], tasks[4], tasks[5], tasks[6], sum_ull, sum_down, last, nest);
  return 0;
}
