/* One malloc call site (leaf), reached in turn through two callers of the same shape (caller_a,
 * caller_b: at the same stack depth, so that the tracer's walk starts at the same stack pointer
 * with the same call site and only a return address further down differs), and through chains
 * of 1 to 4 more frames: what the tracer's memory of recent walks (src/tracer/unwind/walk_memo.h) must
 * never mix up. The size says the path: 201 through caller_a, 202 through caller_b, 210 + n
 * through caller_a under n + 1 frames of nested. Built with and without frame pointers. */
#include <stdio.h>
#include <stdlib.h>

#include "own_frame.h" /* the two identical callers stay two functions */

static void* volatile sink;

OWN_FRAME void leaf(size_t size) {
  sink = malloc(size);
  free(sink);
  __asm__ volatile("" ::: "memory"); /* keep the frames: no tail calls */
}

OWN_FRAME void middle(size_t size) {
  leaf(size);
  __asm__ volatile("" ::: "memory");
}

OWN_FRAME void caller_a(size_t size) {
  middle(size);
  __asm__ volatile("" ::: "memory");
}

OWN_FRAME void caller_b(size_t size) {
  middle(size);
  __asm__ volatile("" ::: "memory");
}

OWN_FRAME void nested(int depth, size_t size) {
  if (depth > 0) {
    nested(depth - 1, size);
  } else {
    caller_a(size);
  }
  __asm__ volatile("" ::: "memory");
}

int main(void) {
  printf("middle=%p\n", (void*)&middle);
  fflush(stdout);
  for (int i = 0; i < 60; ++i) {
    if (i % 3 == 2) {
      caller_b(202);
    } else {
      caller_a(201);
    }
    if (i % 5 == 0) {
      const int depth = i % 4;
      nested(depth, 210 + (size_t)depth);
    }
  }
  return 0;
}
