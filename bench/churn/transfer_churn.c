/* Transfer churn: the benchmark program for the memtransfer module's overhead, the counterpart
 * of churn.c (the memory module's): the same call chains (12-15 frames deep), the same number of
 * traced calls (two per iteration: a memcpy of 16..1039 bytes, then a memset of as many: one
 * random size per iteration, as churn.c's malloc). With `independent` the memset's size is drawn
 * on its own (16..1039 bytes too): two random sizes per iteration.
 *
 * Usage: transfer_churn [iterations = 1000000] [same | independent]
 * Prints, per operation (one memcpy or one memset), the wall time of the churn itself and the
 * CPU time the churning thread used. Built with -fno-builtin: every call reaches the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINL __attribute__((noinline))

static char source[1040];
static char target[1040];

static unsigned next_random(unsigned* state) {
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

/* A call chain of `depth` frames above the transfers; distinct depths give distinct stacks. */
NOINL static void transfer(int depth, size_t size, size_t set_size) {
  if (depth > 0) {
    transfer(depth - 1, size, set_size);
  } else {
    memcpy(target, source, size);
    memset(target, (int)size, set_size);
  }
  __asm__ volatile("" ::: "memory"); /* keep the frames: no tail calls */
}

static double clock_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? atol(argv[1]) : 1000000;
  const int independent = argc > 2 && strcmp(argv[2], "independent") == 0;
  unsigned random = 7;
  const double start = clock_ns(CLOCK_MONOTONIC);
  const double cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (long i = 0; i < iterations; ++i) {
    const unsigned r = next_random(&random);
    const size_t size = 16 + r % 1024;
    transfer(12 + (int)(r % 4), size, independent ? 16 + next_random(&random) % 1024 : size);
  }
  const double operations = 2.0 * (double)iterations;
  printf("threads=1 operations=%.0f ns_per_op=%.1f cpu_ns_per_op=%.1f\n", operations,
         (clock_ns(CLOCK_MONOTONIC) - start) / operations,
         (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start) / operations);
  return 0;
}
