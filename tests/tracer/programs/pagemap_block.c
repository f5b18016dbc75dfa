/* The pagemap module's test program: mallocs a block of 256 pages, writes non-zero bytes over
 * its first half and zeros over the next quarter, leaves the last quarter untouched, prints
 * where the block's mapping is and ends (returning from main, or with `_exit` as argument, by
 * _exit) without freeing it.
 *
 * glibc serves a block this big with a mapping of its own (above the 128 KiB mmap threshold):
 * a 16-byte chunk header, then the block, 257 pages in all. Expected in the snapshot of that
 * mapping: 257 pages; resident: pages 0 to 192 (193: page 0 holds the header, page 192 the last
 * 16 zeroed bytes); all-zero: pages 129 to 192 (64: page 128 still holds 16 non-zero bytes).
 * The kernel merges adjacent anonymous mappings with the same flags into one, so the program
 * marks exactly the block's pages MADV_DONTFORK: they then form a mapping of their own, whatever
 * was mapped beside them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "announce_files.h"

enum { kPages = 256, kHeader = 16 };

int main(int argc, char** argv) {
  if (announce_files() != 0) {
    return 4;
  }
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char* block = malloc(kPages * page);
  if (block == NULL) {
    return 2;
  }
  const uintptr_t first = (uintptr_t)block - kHeader;
  const size_t mapping = (kPages * page + kHeader + page - 1) / page * page;
  if (first % page != 0 || madvise((void*)first, mapping, MADV_DONTFORK) != 0) {
    fprintf(stderr, "the block is not a mapping of its own at %p\n", (void*)block);
    return 3;
  }
  memset(block, 0x5a, kPages / 2 * page);
  memset(block + kPages / 2 * page, 0, kPages / 4 * page);
  printf("mapping=%lx-%lx page=%zu\n", (unsigned long)first, (unsigned long)(first + mapping),
         page);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "_exit") == 0) {
    _exit(0);
  }
  return 0;
}
