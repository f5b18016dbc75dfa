/* Allocation sites of fixed sizes and counts for the sampled recording's tests
 * (sampling_test.cpp): each site is a function of its own, so that the report names it. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

/* Every block passes through here, so that the compiler keeps each malloc/free pair. */
void* volatile g_seen;

/* Blocks far smaller than the interval: a sample stands for many of them. */
NOINLINE void small_blocks(void) {
  for (int i = 0; i < 200000; ++i) {
    char* block = malloc(64);
    g_seen = block;
    free(block);
  }
}

/* Blocks of about a quarter of the test's 4 KiB interval. */
NOINLINE void medium_blocks(void) {
  for (int i = 0; i < 20000; ++i) {
    char* block = malloc(1000);
    g_seen = block;
    free(block);
  }
}

/* Blocks of the interval's size, the odd ones kept until the end (never freed). */
NOINLINE void kept_blocks(void** kept) {
  for (int i = 0; i < 3000; ++i) {
    char* block = malloc(4096);
    g_seen = block;
    if (i % 2 == 1) {
      kept[i / 2] = block;
    } else {
      free(block);
    }
  }
}

/* Blocks far larger than the interval: always sampled, each standing for itself. */
NOINLINE void large_blocks(void) {
  for (int i = 0; i < 200; ++i) {
    char* block = calloc(1, 100000);
    g_seen = block;
    char* moved = realloc(block, 100000 + 16);
    g_seen = moved;
    free(moved);
  }
}

/* Less than 1 % of the bytes: its estimate may stray further. */
NOINLINE void few_bytes(void** kept) {
  for (int i = 0; i < 1000; ++i) {
    kept[i] = malloc(24);
    g_seen = kept[i];
  }
  for (int i = 0; i < 1000; ++i) {
    free(kept[i]);
  }
}

int main(void) {
  static void* kept[1500];
  static void* few[1000];
  small_blocks();
  medium_blocks();
  kept_blocks(kept);
  large_blocks();
  few_bytes(few);
  return kept[0] == NULL;
}
