/* A program traced from the middle: it allocates 222 bytes, prints its pid and waits for a line on
 * standard input (meanwhile the test toggles tracing on), then allocates 111 bytes. Neither block
 * is freed: only the second may appear among the leaks.
 *
 * With an argument it first takes SIGUSR1 away from the tracer: "own-handler" installs a handler
 * of its own, "default-handler" resets it to the default (which would kill it). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void own_handler(int signal_number) {
  (void)signal_number;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "own-handler") == 0)
    signal(SIGUSR1, own_handler);
  if (argc > 1 && strcmp(argv[1], "default-handler") == 0)
    signal(SIGUSR1, SIG_DFL);
  void* volatile before = malloc(222); /* kept: the compiler may not leave the call out */
  printf("%d\n", (int)getpid());
  fflush(stdout);
  char line[16];
  if (fgets(line, sizeof(line), stdin) == NULL)
    return 1;
  void* volatile after = malloc(111);
  return before != NULL && after != NULL ? 0 : 2;
}
