// Writes a line to standard output and one to standard error every tenth of a second for a
// second, allocating in between: a progress line that the recorder drew meanwhile (it may redraw
// ten times a second) would run into these lines.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(void) {
  const double start = seconds_now();
  const struct timespec pause = {0, 1000000};  // 1 ms
  for (int line = 0; line < 10; ++line) {
    while (seconds_now() - start < 0.1 * (line + 1)) {
      for (int i = 0; i < 200; ++i) {
        void* volatile block = malloc(16 + (size_t)i);
        free(block);
      }
      nanosleep(&pause, NULL);
    }
    printf("out %d\n", line);
    fflush(stdout);
    fprintf(stderr, "err %d\n", line);
  }
  return 0;
}
