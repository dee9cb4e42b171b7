/* sections: each section runs exactly once, in a region and combined with it (more
   sections than threads, and again many times in a row), lastprivate takes the last
   section's value; single copyprivate hands the executor's values (a scalar and an
   array) to every member, round after round. */
#include "check.h"
#include <omp.h>
#include <string.h>
#define ROUNDS 200
static int ran[8];
int main(void) {
  int last = 0, copied = 0, bad = 0, members = 0;
  #pragma omp parallel reduction(+: copied, bad, members)
  {
    members++;
    for (int r = 0; r < ROUNDS; r++) {
      #pragma omp sections
      {
        #pragma omp section
        { ran[0]++; }
        #pragma omp section
        { ran[1]++; }
        #pragma omp section
        { ran[2]++; }
        #pragma omp section
        { ran[3]++; }
        #pragma omp section
        { ran[4]++; }
      }
      int v = -1;
      int arr[4] = {0, 0, 0, 0};
      #pragma omp single copyprivate(v, arr)
      {
        v = r * 3;
        for (int k = 0; k < 4; k++) arr[k] = r + k;
      }
      copied++;
      if (v != r * 3 || arr[0] != r || arr[3] != r + 3) bad++;
    }
    #pragma omp sections lastprivate(last)
    {
      #pragma omp section
      last = 10;
      #pragma omp section
      last = 20;
      #pragma omp section
      last = 30;
    }
    #pragma omp sections nowait
    {
      #pragma omp section
      {
        #pragma omp atomic
        ran[5]++;
      }
      #pragma omp section
      {
        #pragma omp atomic
        ran[6]++;
      }
    }
  }
  for (int k = 0; k < 5; k++) CHECK(ran[k] == ROUNDS, "section %d ran %d times", k, ran[k]);
  CHECK(ran[5] == 1 && ran[6] == 1, "nowait sections ran %d, %d times", ran[5], ran[6]);
  CHECK(last == 30, "lastprivate %d", last);
  CHECK(bad == 0, "%d members saw another member's copyprivate values", bad);
  CHECK(copied == ROUNDS * members, "%d copies", copied);
  memset(ran, 0, sizeof ran);
  for (int r = 0; r < ROUNDS; r++) {
    #pragma omp parallel sections
    {
      #pragma omp section
      ran[0]++;
      #pragma omp section
      ran[1]++;
      #pragma omp section
      ran[2]++;
      #pragma omp section
      ran[3]++;
    }
  }
  for (int k = 0; k < 4; k++) CHECK(ran[k] == ROUNDS, "parallel section %d ran %d times", k, ran[k]);
  printf("sections ok, last %d\n", last);
  return 0;
}
