/* Benchmark (not a test): mergesort N ints with a serial cutoff, best of 5 runs. See README. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
static void merge(const int *a, int n1, const int *b, int n2, int *out) { int i = 0, j = 0, k = 0;
  while (i < n1 && j < n2) out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
  while (i < n1) out[k++] = a[i++]; while (j < n2) out[k++] = b[j++]; }
static int cmp(const void *x, const void *y) { int a = *(const int*)x, b = *(const int*)y; return (a > b) - (a < b); }
static void sort(int *a, int *tmp, int n, int cutoff) {
  if (n <= cutoff) { qsort(a, n, sizeof(int), cmp); return; }
  int h = n / 2;
  #pragma omp task
  sort(a, tmp, h, cutoff);
  #pragma omp task
  sort(a + h, tmp + h, n - h, cutoff);
  #pragma omp taskwait
  merge(a, h, a + h, n - h, tmp);
  for (int i = 0; i < n; i++) a[i] = tmp[i]; }
int main(int argc, char **argv) { int n = atoi(argv[1]), cutoff = atoi(argv[2]), reps = 5; double best = 1e9;
  int *a = malloc(sizeof(int) * n), *tmp = malloc(sizeof(int) * n);
  for (int k = 0; k < reps; k++) { unsigned long long x = 88172645463325252ULL;
    for (int i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; a[i] = (int) (x % 1000003); }
    double t = omp_get_wtime();
    #pragma omp parallel
    #pragma omp single
    sort(a, tmp, n, cutoff);
    t = omp_get_wtime() - t; if (t < best) best = t; }
  for (int i = 1; i < n; i++) if (a[i-1] > a[i]) { printf("unsorted\n"); return 1; }
  printf("mergesort %d cutoff %d best %.4f s\n", n, cutoff, best); return 0; }
