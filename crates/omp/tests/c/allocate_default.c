/* The allocate clause under the default allocator (def-allocator-var) that
   omp_set_default_allocator set before a region: the private copies of every member
   of the region's team, and of its tasks, come from it (here aligned to 64 bytes), as
   each implicit task inherits the ICV. Also allocate with align(), and with a
   lastprivate(conditional:) variable. */
#include <omp.h>
#include <stdint.h>
#include "check.h"

static int task_bad;
static int misaligned(void *p, uintptr_t align) { return ((uintptr_t)p & (align - 1)) != 0; }

int main(void) {
  omp_alloctrait_t traits[] = {{omp_atk_alignment, 64}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, traits);
  CHECK(a != omp_null_allocator, "an allocator aligned to 64");
  int bad = 0, sum = 0;
  for (int round = 0; round < 2; round++) {
    omp_set_default_allocator(round ? a : omp_default_mem_alloc);
    int x = 42, y = 0, l = -1;
    #pragma omp parallel private(y) firstprivate(x) allocate(x, y) reduction(+: bad, sum)
    {
      CHECK(omp_get_default_allocator() == (round ? a : omp_default_mem_alloc),
            "round %d: thread %d's default allocator", round, omp_get_thread_num());
      y = omp_get_thread_num();
      x += y;
      if (round && (misaligned(&x, 64) || misaligned(&y, 64))) bad++;
      #pragma omp for lastprivate(conditional: l) allocate(l)
      for (int i = 0; i < 100; i++)
        if (i % 9 == 0) l = i;
      #pragma omp single
      {
        #pragma omp task firstprivate(x) allocate(x)
        {
          if (round && misaligned(&x, 64)) {
            #pragma omp atomic
            task_bad++;
          }
        }
        #pragma omp task private(y) allocate(align(128): y)
        {
          y = 1;
          if (misaligned(&y, 128)) {
            #pragma omp atomic
            task_bad++;
          }
        }
      }
      sum += l;
    }
    CHECK(l == 99, "round %d: lastprivate l = %d", round, l);
  }
  CHECK(bad + task_bad == 0, "%d private copies not where the default allocator puts them", bad + task_bad);
  omp_set_default_allocator(omp_default_mem_alloc);
  omp_destroy_allocator(a);
  printf("allocate default ok %d\n", sum > 0);
  return 0;
}
