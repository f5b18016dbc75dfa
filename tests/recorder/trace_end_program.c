/* Ends its trace the way its first argument says, after the same allocations every time: 8 MiB
 * touched and freed (so that the peak RSS is at least that), 50 bytes freed, 100 bytes never
 * freed.
 *   exit    returns from main (status 0)
 *   _exit   calls _exit(3)
 *   segv    writes through a null pointer (SIGSEGV)
 *   kill    sleeps 100 ms (10 times the tracer's flush interval), then SIGKILLs itself
 *   wait    prints its pid, waits for a line on standard input (the test toggles tracing off
 *           meanwhile), then returns from main */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  char* big = malloc(8 << 20);
  if (big == NULL)
    return 2;
  memset(big, 1, 8 << 20);
  free(big);
  free(malloc(50));
  volatile char* kept = malloc(100);
  kept[0] = 1;
  if (strcmp(mode, "_exit") == 0)
    _exit(3);
  if (strcmp(mode, "segv") == 0) {
    volatile int* nowhere = NULL;
    *nowhere = 1;
  }
  if (strcmp(mode, "kill") == 0) {
    const struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    kill(getpid(), SIGKILL);
  }
  if (strcmp(mode, "wait") == 0) {
    /* write/read, not stdio: its buffers would be allocations of their own */
    char line[16];
    const int length = snprintf(line, sizeof(line), "%d\n", (int)getpid());
    if (write(1, line, (size_t)length) != length || read(0, line, sizeof(line)) <= 0)
      return 1;
  }
  return 0;
}
