// A program linked with tcmalloc (gperftools), in C++: tcmalloc declares tc_new and tc_delete for
// C++ only. Its own entry points and the malloc family (which tcmalloc provides), blocks released
// by the other family's function, a new[] released by tc_delete (a mismatch), two leaks. Prints
// what the trace must show (allocator_output.h) and "malloc is tcmalloc's: yes" when tcmalloc
// owns malloc's block.
#include <gperftools/malloc_extension_c.h>
#include <gperftools/tcmalloc.h>
#include <cstdlib>

#include "allocator_output.h"

int main() {
  quiet_stdout();
  void* first = tc_malloc(100);
  allocated("tc_malloc", 100, first);
  void* counted = tc_calloc(5, 20);
  allocated("tc_calloc", 100, counted);
  void* grown = tc_realloc(counted, 3000);
  released("tc_realloc", counted);
  allocated("tc_realloc", 3000, grown);
  void* aligned = tc_memalign(128, 64);
  allocated("tc_memalign", 64, aligned);
  void* object = tc_new(32);
  allocated("tc_new", 32, object);
  void* array = tc_newarray(80);
  allocated("tc_newarray", 80, array);
  void* plain = malloc(40);
  allocated("malloc", 40, plain);
  const bool owned = MallocExtension_GetOwnership(plain) == MallocExtension_kOwned;

  tc_free(plain);  // malloc's block through tc_free
  released("tc_free", plain);
  free(first);  // tc_malloc's block through free
  released("free", first);
  tc_delete(object);
  released("tc_delete", object);
  tc_delete(array);  // new[]'s block through delete: a mismatch
  released("tc_delete", array);
  tc_free(aligned);
  released("tc_free", aligned);

  leaked("tc_realloc", 3000, grown);
  void* lost = tc_malloc(24);
  allocated("tc_malloc", 24, lost);
  leaked("tc_malloc", 24, lost);
  printf("malloc is tcmalloc's: %s\n", owned ? "yes" : "no");
  return 0;
}
