/* Shared by the test programs: each checks its own answer and exits 1 naming what was
   wrong, else prints its answers (the same under every runtime) and exits 0. */
#include <stdio.h>
#include <stdlib.h>
#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "check failed: " __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)
