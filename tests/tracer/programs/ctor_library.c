/* A library whose constructor allocates (and leaks) before main: 3210 bytes by malloc, 3 x 1070
 * by calloc. Its program depends on it, so it is set up before the tracer libraries. */
#include <stdlib.h>

void* volatile ctor_library_blocks[2];

__attribute__((constructor)) static void ctor_library_init(void) {
  ctor_library_blocks[0] = malloc(3210);
  ctor_library_blocks[1] = calloc(3, 1070);
}
