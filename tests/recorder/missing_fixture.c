/* Stands in for fixtures/sp-rtrace/programs/memory.c when the fixtures are missing, so that the
 * tests that trace it fail with this message instead of the build failing for everyone. */
#include <stdio.h>

int main(void) {
  fputs("fixtures/sp-rtrace/programs/memory.c is missing: cannot run this test\n", stderr);
  return 3;
}
