/* Merge sort with tasks above a cutoff. */
#include "check.h"
static void merge(const int *a, int n1, const int *b, int n2, int *out) {
  int i = 0, j = 0, k = 0;
  while (i < n1 && j < n2) out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
  while (i < n1) out[k++] = a[i++];
  while (j < n2) out[k++] = b[j++];
}
static void insertion(int *a, int n) {
  for (int i = 1; i < n; i++) { int x = a[i], j = i; while (j > 0 && a[j - 1] > x) { a[j] = a[j - 1]; j--; } a[j] = x; }
}
static void sort(int *a, int *tmp, int n, int cutoff) {
  if (n <= cutoff || n < 16) { insertion(a, n); return; }
  int h = n / 2;
  #pragma omp task
  sort(a, tmp, h, cutoff);
  #pragma omp task
  sort(a + h, tmp + h, n - h, cutoff);
  #pragma omp taskwait
  merge(a, h, a + h, n - h, tmp);
  for (int i = 0; i < n; i++) a[i] = tmp[i];
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  int cutoff = argc > 2 ? atoi(argv[2]) : 256;
  int *a = malloc(sizeof(int) * n), *tmp = malloc(sizeof(int) * n);
  unsigned long long x = 88172645463325252ULL, sum = 0, after = 0;
  for (int i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; a[i] = (int) (x % 1000003); sum += a[i]; }
  #pragma omp parallel
  #pragma omp single
  sort(a, tmp, n, cutoff);
  for (int i = 0; i < n; i++) { after += a[i]; if (i) CHECK(a[i - 1] <= a[i], "unsorted at %d", i); }
  CHECK(after == sum, "elements lost");
  printf("sorted %d, first %d, last %d\n", n, a[0], a[n - 1]);
  free(a); free(tmp);
  return 0;
}
