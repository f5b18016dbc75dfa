/* A program traced from the middle: it allocates 222 bytes, prints its pid and waits for a line on
 * standard input (meanwhile the test toggles tracing on), then allocates 111 bytes. Neither block
 * is freed: only the second may appear among the leaks. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  void* before = malloc(222);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  char line[16];
  if (fgets(line, sizeof(line), stdin) == NULL)
    return 1;
  void* after = malloc(111);
  return before != NULL && after != NULL ? 0 : 2;
}
