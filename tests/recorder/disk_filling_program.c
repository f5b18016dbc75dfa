/* Allocates and frees a million blocks of varied sizes (a trace of two million calls that
 * compresses poorly), keeps the last 100 blocks, then says how far it got: on a small file
 * system its trace runs out of space long before the program ends. */
#include <stdio.h>
#include <stdlib.h>

enum { kBlocks = 1000000, kKept = 100 };

int main(void) {
  void* kept[kKept] = {0};
  unsigned state = 12345;
  for (int i = 0; i < kBlocks; ++i) {
    state = state * 1103515245u + 12345u;
    void* block = malloc(1 + (state >> 16) % 4096);
    if (block == NULL) return 2;
    free(kept[i % kKept]);
    kept[i % kKept] = block;
  }
  printf("made %d blocks\n", kBlocks);
  return 0;
}
