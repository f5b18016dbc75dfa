/* Stands in for fixtures/sp-rtrace/programs/memory.c when the fixtures are missing, so that the
 * project builds without them; the tests that trace it skip (RTRACE_NEEDS_FIXTURES). */
#include <stdio.h>

int main(void) {
  fputs("fixtures/sp-rtrace/programs/memory.c is missing: cannot run this test\n", stderr);
  return 3;
}
