/* A program whose one leaked block is allocated 100 calls deep (far deeper than any default
 * backtrace depth): the recorded backtrace of its malloc(4321) has as many frames as the trace's
 * depth. Built without optimisation and with frame pointers, so that every level is a frame. */
#include <stdio.h>
#include <stdlib.h>

static void* descend(int levels) {
  void* block = levels == 0 ? malloc(4321) : descend(levels - 1);
  __asm__ volatile("" ::: "memory"); /* no tail call: the frame stays */
  return block;
}

int main(void) {
  void* block = descend(100);
  printf("deep %s\n", block != NULL ? "done" : "failed");
  return 0;
}
