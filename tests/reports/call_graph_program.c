/* Traced by the call-tree views' tests: a C program (no C++ runtime allocating beside it) with a
   known call graph, every block left allocated, so that each weight of each function is known:
     main -> load -> parse -> alloc_node(100) twice, and parse allocates 50 itself
     main -> load -> alloc_node(1000)
     main -> parse (as above: 250 bytes in 3 blocks)
     main -> recurse(2) -> recurse(1) -> recurse(0) -> alloc_node(10)
   1510 bytes in 8 blocks in all. */
#include <stdlib.h>

static void* volatile kept[16];
static int count;

__attribute__((noinline)) void alloc_node(size_t size) {
  kept[count++] = malloc(size);
}

__attribute__((noinline)) void parse(void) {
  alloc_node(100);
  alloc_node(100);
  kept[count++] = malloc(50);
}

__attribute__((noinline)) void load(void) {
  parse();
  alloc_node(1000);
}

__attribute__((noinline)) void recurse(int depth) {
  if (depth == 0) {
    alloc_node(10);
  } else {
    recurse(depth - 1);
  }
}

int main(void) {
  load();
  parse();
  recurse(2);
  return 0;
}
