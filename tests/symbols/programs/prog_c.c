/* The C test program: plain call chains, a callback from libc, a dlopen'ed library. */
#include <dlfcn.h>
#include <stdlib.h>

#include "probe.h"

/* Keeps the compiler from turning the probe call into a tail call. */
#define PROBE(var)                    \
  void* var = probe_return_address(); \
  __asm__ volatile("" : : "r"(var) : "memory")

__attribute__((noinline)) static void leaf_static(void) {
  PROBE(here); /* LINE_LEAF_STATIC */
  printf("frame\t%p\tleaf_static()\tprog_c.c:%d\n", here, __LINE__ - 1);
}

__attribute__((noinline)) void middle(int depth) {
  if (depth > 0) {
    PROBE(here);
    printf("frame\t%p\tmiddle()\tprog_c.c:%d\n", here, __LINE__ - 1);
  }
  leaf_static();
  __asm__ volatile("" : : : "memory");
}

static void* qsort_return;

static int compare(const void* a, const void* b) {
  if (qsort_return == NULL) qsort_return = __builtin_return_address(0);
  return *(const int*)a - *(const int*)b;
}

int main(int argc, char** argv) {
  PROBE(here);
  printf("frame\t%p\tmain()\tprog_c.c:%d\n", here, __LINE__ - 1);
  middle(1);

  int numbers[] = {3, 1, 2};
  qsort(numbers, 3, sizeof numbers[0], compare);
  printf("libc\t%p\n", qsort_return);

  if (argc > 1) {
    void* plugin = dlopen(argv[1], RTLD_NOW);
    if (plugin == NULL) return 1;
    void (*run)(void) = (void (*)(void))dlsym(plugin, "plugin_run");
    if (run == NULL) return 1;
    run();
  }
  probe_print_maps();
  return 0;
}
