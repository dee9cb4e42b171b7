/* The error directive's messages at run time, which must read as libgomp prints them
   (programs and test suites look for those lines): a warning without a message, one
   whose message is a string computed at run time, then, with an argument, a fatal
   error, which ends the program with status 1 before the last warning. */
#include <omp.h>
#include "check.h"
int main(int argc, char **argv) {
  (void)argv;
  #pragma omp error at(execution) severity(warning)
  const char *msg = "the message" + 4;
  #pragma omp error at(execution) severity(warning) message(msg)
  if (argc > 1) {
    #pragma omp error at(execution) severity(fatal) message(msg - 4)
  }
  #pragma omp error at(execution) severity(warning) message("the last one")
  printf("error message ok\n");
  return 0;
}
