/* Call chains of many frame shapes, for comparing the tracer's fast unwinder with libunwind.
 * Built twice (tests/tracer/CMakeLists.txt): -O2 -fno-omit-frame-pointer, where every frame
 * keeps rbp as its frame pointer, and -O2 -fomit-frame-pointer, where rbp is an ordinary register
 * and only the call frame information says where a frame starts. FRAME_SHAPES_CHAIN names the
 * entry point, so that both builds link into one test.
 *
 * Each chain passes through: plain recursion, frames with alloca (their CFA is rbp-based even
 * without frame pointers), frames with large locals, and the C library (qsort, built without
 * frame pointers), whose comparator calls `leaf` once at the bottom. */
#include "unwind/frame_shapes.h"

#include <alloca.h>
#include <stdlib.h>
#include <string.h>

#define NOINL __attribute__((noinline))

static chain_leaf g_leaf;
static void* g_context;

static int compare(const void* a, const void* b) {
  if (g_leaf != NULL) {
    chain_leaf leaf = g_leaf;
    g_leaf = NULL;
    leaf(g_context);
  }
  return *(const int*)a - *(const int*)b;
}

NOINL static int bottom(void) {
  int values[3] = {3, 1, 2};
  qsort(values, 3, sizeof values[0], compare);
  return values[0];
}

NOINL static int big_locals(int depth, volatile int* sink);

NOINL static int level(int depth, volatile int* sink) {
  int result;
  if (depth == 0) {
    result = bottom();
  } else if (depth % 3 == 0) {
    char* buffer = alloca(16 + (size_t)depth * 8);
    memset(buffer, depth, 16);
    result = level(depth - 1, sink) + buffer[3];
  } else if (depth % 5 == 0) {
    result = big_locals(depth - 1, sink);
  } else {
    result = level(depth - 1, sink);
  }
  *sink += result; /* keeps the call from being a tail call */
  return result;
}

NOINL static int big_locals(int depth, volatile int* sink) {
  volatile char block[5000];
  block[depth] = (char)depth;
  const int result = level(depth, sink) + block[depth];
  *sink += result;
  return result;
}

int FRAME_SHAPES_CHAIN(int depth, chain_leaf leaf, void* context) {
  volatile int sink = 0;
  g_leaf = leaf;
  g_context = context;
  const int result = level(depth, &sink);
  return result + sink;
}
