/* Descriptor churn: the benchmark program for the file module's overhead
 * (bench/churn/measure-file.sh).
 *
 * Usage: fd_churn [iterations = 200000]
 * Each iteration opens /dev/null and closes it (two traced operations) from a call chain 12
 * frames deep (so a depth-10 backtrace is full). Prints, per operation (one open or one close),
 * the wall time of the churn and the CPU time of the churning thread, as bench/churn/churn.c does.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

static NOINL int open_close(void) {
  int fd = open("/dev/null", O_RDONLY);
  return fd < 0 ? -1 : close(fd);
}

/* 11 frames above open_close. */
static NOINL int depth(int n) {
  if (n == 0)
    return open_close();
  int r = depth(n - 1);
  __asm__ volatile("" ::: "memory"); /* no tail call: every level stays a frame */
  return r;
}

static double now_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? atol(argv[1]) : 200000;
  const double wall = now_ns(CLOCK_MONOTONIC);
  const double cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
  for (long i = 0; i < iterations; ++i) {
    if (depth(10) != 0)
      return 1;
  }
  const double operations = 2.0 * (double)iterations;
  printf("threads=1 operations=%.0f ns_per_op=%.1f cpu_ns_per_op=%.1f\n", operations,
         (now_ns(CLOCK_MONOTONIC) - wall) / operations,
         (now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu) / operations);
  return 0;
}
