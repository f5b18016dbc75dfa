/* Allocation churn: the benchmark program for tracer overhead (rtrace vs heaptrack).
 *
 * Usage: churn [iterations per thread = 1000000] [threads = 1]
 * Each iteration allocates a block of 16..1039 bytes from call chains 12 frames deep (so a
 * depth-10 backtrace is full) and frees the block allocated 64 iterations earlier; every
 * 4096th block is leaked. The few hundred distinct stacks repeat, as they do in real programs.
 * Prints, per operation (one malloc or one free), the wall time of the churn itself (without
 * start-up) and the CPU time the churning threads themselves used (what a tracer adds inline,
 * whatever else runs on the machine). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WINDOW 64
#define NOINL __attribute__((noinline))

static long iterations = 1000000;
static _Atomic double thread_cpu_ns;

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

static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void* run(void* arg) {
  const double start = cpu_ns();
  struct state s = {{0}, (unsigned)(size_t)arg * 2654435761u + 7, 0};
  for (long i = 0; i < iterations; ++i)
    step(&s, i);
  for (int i = 0; i < WINDOW; ++i)
    free(s.window[i]);
  const double used = cpu_ns() - start;
  double seen = thread_cpu_ns;
  while (!atomic_compare_exchange_weak(&thread_cpu_ns, &seen, seen + used)) {
  }
  return NULL;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc > 1)
    iterations = atol(argv[1]);
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  if (threads < 1 || threads > 256)
    threads = 1;
  pthread_t ids[256];
  const double start = now_ns();
  for (int i = 0; i < threads; ++i)
    pthread_create(&ids[i], NULL, run, (void*)(size_t)(i + 1));
  for (int i = 0; i < threads; ++i)
    pthread_join(ids[i], NULL);
  const double elapsed = now_ns() - start;
  const double operations = 2.0 * (double)iterations * threads;
  printf("threads=%d operations=%.0f ns_per_op=%.1f cpu_ns_per_op=%.1f\n", threads, operations,
         elapsed / operations, thread_cpu_ns / operations);
  return 0;
}
