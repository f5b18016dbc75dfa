// A program linked with mimalloc: its own entry points and the malloc family (which mimalloc
// provides), blocks released by the other family's function, two leaks. Prints what the trace
// must show (allocator_output.h) and "malloc is mimalloc's: yes" when mimalloc owns malloc's
// blocks.
#include <mimalloc.h>
#include <stdlib.h>
#include <string.h>

#include "allocator_output.h"

int main(void) {
  quiet_stdout();
  void* first = mi_malloc(100);
  allocated("mi_malloc", 100, first);
  void* counted = mi_calloc(4, 25);
  allocated("mi_calloc", 100, counted);
  void* zeroed = mi_zalloc(10);
  allocated("mi_zalloc", 10, zeroed);
  void* grown = mi_realloc(counted, 3000);
  released("mi_realloc", counted);
  allocated("mi_realloc", 3000, grown);
  char* copy = mi_strdup("seven!");
  allocated("mi_strdup", 7, copy);
  void* aligned = mi_malloc_aligned(64, 256);
  allocated("mi_malloc_aligned", 64, aligned);
  void* plain = malloc(40);
  allocated("malloc", 40, plain);
  const int owned = mi_is_in_heap_region(plain);

  mi_free(zeroed);
  released("mi_free", zeroed);
  free(first);  // mimalloc's block through free: mimalloc's free
  released("free", first);
  mi_free(plain);  // and malloc's block through mi_free
  released("mi_free", plain);
  mi_free(aligned);
  released("mi_free", aligned);

  leaked("mi_realloc", 3000, grown);
  leaked("mi_strdup", 7, copy);
  printf("malloc is mimalloc's: %s\n", owned ? "yes" : "no");
  return 0;
}
