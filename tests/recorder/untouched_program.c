/* What a traced program sees of the tracer before tracing starts: at main it prints the bytes
 * malloc has handed out (mallinfo2().uordblks), the size of the malloc arena (0: the heap was
 * never touched) and its number of threads (Threads: of /proc/self/status), measured before
 * anything of its own allocates. Then it raises SIGUSR1 (the toggle signal: tracing starts),
 * allocates 4321 bytes (not freed: a leak the trace must show) and prints the same again. */
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int thread_count(void) {
  char status[4096];
  const int fd = open("/proc/self/status", O_RDONLY);
  if (fd < 0)
    return -1;
  const ssize_t length = read(fd, status, sizeof(status) - 1);
  close(fd);
  if (length <= 0)
    return -1;
  status[length] = '\0';
  const char* line = strstr(status, "\nThreads:");
  return line == NULL ? -1 : atoi(line + strlen("\nThreads:"));
}

struct state {
  size_t in_use;
  size_t arena;
  int threads;
};

static struct state now(void) {
  const struct mallinfo2 info = mallinfo2();
  struct state s = {info.uordblks, info.arena, thread_count()};
  return s;
}

static void* volatile keep;

int main(void) {
  const struct state at_main = now();
  raise(SIGUSR1);
  keep = malloc(4321);
  const struct state traced = now();
  printf("at main: heap=%zu arena=%zu threads=%d\n", at_main.in_use, at_main.arena,
         at_main.threads);
  printf("tracing: threads=%d\n", traced.threads);
  return keep != NULL ? 0 : 1;
}
