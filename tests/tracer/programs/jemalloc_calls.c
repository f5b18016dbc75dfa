// A program linked with jemalloc: its non-standard API and the malloc family (which jemalloc
// provides), blocks released by the other family's function, two leaks. Prints what the trace
// must show (allocator_output.h) and "malloc is jemalloc's: yes" when jemalloc counted malloc's
// block among this thread's allocations.
#include <jemalloc/jemalloc.h>
#include <stdint.h>

#include "allocator_output.h"

static uint64_t thread_allocated(void) {
  uint64_t value = 0;
  size_t length = sizeof value;
  return mallctl("thread.allocated", &value, &length, NULL, 0) == 0 ? value : 0;
}

int main(void) {
  quiet_stdout();
  void* first = mallocx(100, 0);
  allocated("mallocx", 100, first);
  void* zeroed = mallocx(64, MALLOCX_ZERO | MALLOCX_ALIGN(64));
  allocated("mallocx", 64, zeroed);
  void* moved = rallocx(first, 5000, 0);
  released("rallocx", first);
  allocated("rallocx", 5000, moved);
  // Shrinking in place always succeeds: the block stays where it is, with its new size.
  const size_t kept = xallocx(moved, 4000, 0, 0);
  if (kept >= 4000) {
    released("xallocx", moved);
    allocated("xallocx", 4000, moved);
  }
  const uint64_t before = thread_allocated();
  void* plain = malloc(4096);
  allocated("malloc", 4096, plain);
  const int counted = thread_allocated() >= before + 4096;
  void* sized = mallocx(48, 0);
  allocated("mallocx", 48, sized);

  sdallocx(sized, 48, 0);
  released("sdallocx", sized);
  dallocx(plain, 0);  // malloc's block through dallocx
  released("dallocx", plain);
  free(zeroed);  // mallocx's block through free
  released("free", zeroed);

  leaked("xallocx", 4000, moved);
  void* lost = mallocx(24, 0);
  allocated("mallocx", 24, lost);
  leaked("mallocx", 24, lost);
  printf("malloc is jemalloc's: %s\n", counted ? "yes" : "no");
  return 0;
}
