// Releases memcheck calls errors, done so that glibc's own checks let the program go on: a
// double free of a block (after its first release, in the tcache, the word by which glibc
// recognises a block already there is cleared) and a free of a stack address laid out as a chunk
// glibc accepts (a size word before it, 16-byte aligned). Both end in the tcache, which nothing
// walks at exit (the fastbins, which mallinfo walks, would hold the double-freed block in a
// loop). Then 1000 free(NULL)s, which release nothing, and a realloc(NULL, ...), which is an
// allocation. Each release sits in a function of its own, so that the report's backtraces name
// them.
#include <stdint.h>
#include <stdlib.h>

enum { kBlockSize = 24, kNullFrees = 1000 };

__attribute__((noinline)) void release_block(void* block) {
  free(block);
}

__attribute__((noinline)) void release_again(void* block) {
  free(block);
}

__attribute__((noinline)) void release_stack_address(void) {
  // A fake chunk: its size word (0x40, no flags) before the address handed to free.
  _Alignas(16) volatile uint64_t chunk[8] = {0, 0x40};
  free((void*)&chunk[2]);
}

// Through a volatile pointer: the compiler drops a free(NULL) it can see.
__attribute__((noinline)) void release_null(void) {
  void* volatile null_pointer = NULL;
  free(null_pointer);
}

int main(void) {
  void* block = malloc(kBlockSize);
  release_block(block);
  ((void* volatile*)block)[1] = NULL;  // the tcache's key: glibc would abort the second release
  release_again(block);
  release_stack_address();
  for (int i = 0; i < kNullFrees; ++i) {
    release_null();
  }
  void* volatile nothing_yet = NULL;
  void* volatile grown = realloc(nothing_yet, 16);  // kept: the compiler drops an unused pair
  free(grown);
  return 0;
}
