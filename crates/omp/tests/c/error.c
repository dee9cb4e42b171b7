/* The error directive at run time: a warning goes on; with an argument, a fatal error
   ends the program with status 1. */
#include <omp.h>
#include "check.h"
int main(int argc, char **argv) {
  (void)argv;
  int n = 0;
  #pragma omp parallel reduction(+: n)
  n++;
  #pragma omp error at(execution) severity(warning) message("a warning from error.c")
  if (argc > 1) {
    #pragma omp error at(execution) severity(fatal) message("a fatal error from error.c")
  }
  printf("error ok %d\n", n > 0);
  return 0;
}
