/* Allocation churn: the benchmark program for tracer overhead (rtrace vs heaptrack).
 *
 * Usage: churn [iterations per thread = 1000000] [threads = 1]
 * Each iteration allocates a block of 16..1039 bytes from call chains 12 frames deep (so a
 * depth-10 backtrace is full) and frees the block allocated 64 iterations earlier; every
 * 4096th block is leaked. The few hundred distinct stacks repeat, as they do in real programs.
 * Prints the figures churn_harness.h describes. */
#include <stdlib.h>

#include "churn_harness.h"

#define WINDOW 64
#define NOINL __attribute__((noinline))

struct state {
  void* window[WINDOW];
  unsigned random;
  long leaked;
};

static unsigned next_random(unsigned* state) {
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

/* A call chain of `depth` frames above the malloc; distinct depths give distinct stacks. */
NOINL static void* allocate(int depth, size_t size) {
  void* p;
  if (depth > 0) {
    p = allocate(depth - 1, size);
  } else {
    p = malloc(size);
  }
  __asm__ volatile("" ::: "memory"); /* keep the frames: no tail calls */
  return p;
}

NOINL static void step(struct state* s, long i) {
  unsigned r = next_random(&s->random);
  void* block = allocate(12 + (int)(r % 4), 16 + r % 1024);
  int slot = (int)(i % WINDOW);
  if (i % 4096 == 4095) {
    ++s->leaked;
  } else {
    free(s->window[slot]);
  }
  s->window[slot] = block;
}

static void* run(void* arg) {
  const double start = cpu_ns();
  struct state s = {{0}, (unsigned)(size_t)arg * 2654435761u + 7, 0};
  for (long i = 0; i < iterations; ++i)
    step(&s, i);
  for (int i = 0; i < WINDOW; ++i)
    free(s.window[i]);
  add_thread_cpu(cpu_ns() - start);
  return NULL;
}

int main(int argc, char** argv) {
  return churn_main(argc, argv, run);
}
