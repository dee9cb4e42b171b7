/* Memory allocators: predefined ones, traits (alignment, pool size, fallback), the
   default allocator, calloc and realloc, and the allocate clause. */
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
int main(void) {
  double *d = omp_alloc(1000 * sizeof(double), omp_high_bw_mem_alloc);
  CHECK(d != NULL, "omp_alloc from omp_high_bw_mem_alloc");
  for (int i = 0; i < 1000; i++) d[i] = i;
  omp_free(d, omp_high_bw_mem_alloc);
  CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL, "omp_alloc of 0 bytes");

  omp_alloctrait_t aligned_traits[] = {{omp_atk_alignment, 256}};
  omp_allocator_handle_t aligned = omp_init_allocator(omp_default_mem_space, 1, aligned_traits);
  CHECK(aligned != omp_null_allocator, "an allocator aligned to 256");
  void *p = omp_alloc(100, aligned);
  CHECK(((uintptr_t)p & 255) == 0, "alignment 256: %p", p);
  void *q = omp_aligned_alloc(4096, 10, aligned);
  CHECK(((uintptr_t)q & 4095) == 0, "aligned_alloc 4096: %p", q);
  omp_free(q, aligned);

  omp_alloctrait_t pool_traits[] = {{omp_atk_pool_size, 1024}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t pool = omp_init_allocator(omp_default_mem_space, 2, pool_traits);
  CHECK(pool != omp_null_allocator, "a pool of 1024 bytes");
  char *a = omp_alloc(600, pool);
  CHECK(a != NULL, "600 bytes of a 1024-byte pool");
  CHECK(omp_alloc(600, pool) == NULL, "another 600 bytes of a 1024-byte pool");
  omp_free(a, pool);
  a = omp_alloc(600, pool);
  CHECK(a != NULL, "600 bytes again once freed");
  omp_free(a, omp_null_allocator);

  /* allocator_fb: what the 64-byte pool cannot serve goes to the 1024-byte pool, whose
     own fallback is a null pointer. */
  omp_alloctrait_t fb_traits[] = {{omp_atk_pool_size, 64}, {omp_atk_fallback, omp_atv_allocator_fb}, {omp_atk_fb_data, (omp_uintptr_t)pool}};
  omp_allocator_handle_t fb = omp_init_allocator(omp_default_mem_space, 3, fb_traits);
  CHECK(fb != omp_null_allocator, "an allocator falling back to the pool");
  void *mid = omp_alloc(500, fb);
  CHECK(mid != NULL, "500 bytes through the fallback");
  CHECK(omp_alloc(2000, fb) == NULL, "2000 bytes: past both pools");
  omp_free(mid, fb);

  omp_alloctrait_t bad_traits[] = {{omp_atk_alignment, 24}};
  CHECK(omp_init_allocator(omp_default_mem_space, 1, bad_traits) == omp_null_allocator, "alignment 24");

  int *z = omp_calloc(500, sizeof(int), omp_default_mem_alloc);
  for (int i = 0; i < 500; i++) CHECK(z[i] == 0, "calloc'd z[%d] = %d", i, z[i]);
  for (int i = 0; i < 500; i++) z[i] = i;
  z = omp_realloc(z, 5000 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
  for (int i = 0; i < 500; i++) CHECK(z[i] == i, "realloc'd z[%d] = %d", i, z[i]);
  omp_free(z, omp_default_mem_alloc);

  omp_set_default_allocator(aligned);
  CHECK(omp_get_default_allocator() == aligned, "the default allocator");
  void *r = omp_alloc(8, omp_null_allocator);
  CHECK(((uintptr_t)r & 255) == 0, "omp_null_allocator is the default: %p", r);
  omp_free(r, omp_null_allocator);
  omp_set_default_allocator(omp_default_mem_alloc);
  omp_free(p, aligned);
  omp_destroy_allocator(fb);
  omp_destroy_allocator(pool);
  omp_destroy_allocator(aligned);

  long total = 0;
  int buf[64];
  #pragma omp parallel private(buf) allocate(omp_low_lat_mem_alloc: buf) reduction(+: total)
  {
    for (int i = 0; i < 64; i++) buf[i] = i;
    for (int i = 0; i < 64; i++) total += buf[i];
  }
  CHECK(total % 2016 == 0 && total > 0, "allocate clause: total %ld", total);
  printf("alloc ok\n");
  return 0;
}
