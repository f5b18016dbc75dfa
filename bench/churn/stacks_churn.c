/* Allocation churn over many distinct stacks: the benchmark program for tracing a program whose
 * allocations come from a great many call paths, as a large C++ program's do (bench/churn/churn.c
 * repeats a few hundred).
 *
 * Usage: stacks-churn [iterations per thread = 1000000] [threads = 1]
 * Each iteration allocates a block of 16..1039 bytes (a size of its own for each path) through a
 * chain of LEVELS (18) levels, level k being one of two functions chosen by bit k of a counter
 * (level 17's call malloc): 2^18 = 262,144 distinct call paths, 22 frames deep with the thread's
 * own (step, run, start_thread, clone3). It frees the block allocated 64 iterations earlier; every
 * 4096th block is leaked. The counter goes up by one per iteration (threads take interleaved
 * values), so bit 0 changes the outermost level at every call: consecutive stacks share only the
 * thread's frames, and every path comes back after 262,144 iterations. Prints the figures
 * churn_harness.h describes. */
#include <stdlib.h>

#include "churn_harness.h"

#define WINDOW 64
#define LEVELS 18
/* Kept as they are: no inlining, no cloning, no merging of the identical pairs (GCC's -fipa-icf
 * would make level k's two functions one, and the paths fewer). Clang has no noipa, and merges
 * identical functions only when asked (-fmerge-functions). */
#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noipa))
#endif
/* No tail calls: the caller's frame stays on the stack. */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

/* Level K's two functions (K = 0 .. LEVELS - 1): each calls the one of level K + 1's two (NEXT)
 * that bit K + 1 of `path` chooses; the last level's call malloc. */
#define LEVEL(K, NEXT)                                                                    \
  KEEP static void* level##K##_a(unsigned path, size_t size) {                            \
    void* p = ((path >> (K + 1)) & 1) != 0 ? NEXT##_b(path, size) : NEXT##_a(path, size); \
    NO_TAIL_CALL();                                                                       \
    return p;                                                                             \
  }                                                                                       \
  KEEP static void* level##K##_b(unsigned path, size_t size) {                            \
    void* p = ((path >> (K + 1)) & 1) != 0 ? NEXT##_b(path, size) : NEXT##_a(path, size); \
    NO_TAIL_CALL();                                                                       \
    return p;                                                                             \
  }

KEEP static void* allocate_a(unsigned path, size_t size) {
  (void)path;
  void* p = malloc(size);
  NO_TAIL_CALL();
  return p;
}
KEEP static void* allocate_b(unsigned path, size_t size) {
  (void)path;
  void* p = malloc(size);
  NO_TAIL_CALL();
  return p;
}
#define level17_a allocate_a
#define level17_b allocate_b
LEVEL(16, level17)
LEVEL(15, level16)
LEVEL(14, level15)
LEVEL(13, level14)
LEVEL(12, level13)
LEVEL(11, level12)
LEVEL(10, level11)
LEVEL(9, level10)
LEVEL(8, level9)
LEVEL(7, level8)
LEVEL(6, level7)
LEVEL(5, level6)
LEVEL(4, level5)
LEVEL(3, level4)
LEVEL(2, level3)
LEVEL(1, level2)
LEVEL(0, level1)

struct state {
  void* window[WINDOW];
  long leaked;
};

/* Level 0's function is chosen by bit 0 of the path. */
KEEP static void step(struct state* s, long i, unsigned path) {
  /* Each path allocates its own size, as a call site allocates its own structure. (A size drawn
   * at random for every call makes about a million distinct (size, stack) pairs, on which
   * heaptrack's interpreter falls behind: over a minute for 1 M iterations, 3 s for 600,000.) */
  size_t size = 16 + (path * 2654435761u >> 16) % 1024;
  void* block = (path & 1) != 0 ? level0_b(path, size) : level0_a(path, size);
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
  const unsigned index = (unsigned)(size_t)arg;
  struct state s = {{0}, 0};
  for (long i = 0; i < iterations; ++i) {
    step(&s, i, (unsigned)(i * threads + (long)index - 1) & ((1u << LEVELS) - 1));
  }
  for (int i = 0; i < WINDOW; ++i)
    free(s.window[i]);
  add_thread_cpu(cpu_ns() - start);
  return NULL;
}

int main(int argc, char** argv) {
  return churn_main(argc, argv, run);
}
