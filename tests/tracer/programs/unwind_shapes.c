/* malloc + free at the bottom of call chains of many frame shapes (unwind/frame_shapes.c: alloca,
 * large locals, the C library's qsort), 1 to 30 levels deep, then once more from a signal
 * handler. Built with and without frame pointers; the test records it with the tracer's fast
 * unwinder and with libunwind and expects the same backtraces. */
#include <signal.h>
#include <stdlib.h>

#include "unwind/frame_shapes.h"

static void* volatile keep;

static void allocate(void* context) {
  keep = malloc((size_t)context);
  free(keep);
}

static void on_signal(int signal_number) {
  (void)signal_number;
  FRAME_SHAPES_CHAIN(7, allocate, (void*)1000);
}

int main(void) {
  for (int depth = 1; depth <= 30; ++depth) {
    FRAME_SHAPES_CHAIN(depth, allocate, (void*)(size_t)depth);
  }
  signal(SIGUSR2, on_signal);
  raise(SIGUSR2);
  return 0;
}
