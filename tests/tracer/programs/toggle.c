/* Toggles tracing with SIGUSR1 twice on and twice off.
 * Markers: 1001 while on (first), 1002 while off, 1003 while on (second), 1004 after the end. */
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static void* volatile keep;

static void toggle_and_wait(void) {
  raise(SIGUSR1);
  struct timespec pause = {0, 300 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

int main(void) {
  toggle_and_wait();
  keep = malloc(1001);
  toggle_and_wait();
  keep = malloc(1002);
  toggle_and_wait();
  keep = malloc(1003);
  toggle_and_wait();
  keep = malloc(1004);
  return 0;
}
