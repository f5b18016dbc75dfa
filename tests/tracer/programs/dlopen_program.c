/* Loads a library after tracing started and allocates from it.
 * Usage: dlopen_program <library path> */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* library = dlopen(argv[1], RTLD_NOW);
  if (library == NULL) return 3;
  void* (*allocate)(void) = (void* (*)(void))dlsym(library, "dlopen_target_allocate");
  if (allocate == NULL) return 4;
  void* p = allocate();
  printf("allocated=%p\n", p);
  free(p);
  dlclose(library);
  return 0;
}
