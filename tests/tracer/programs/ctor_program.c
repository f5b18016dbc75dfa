/* Uses ctor_library (whose constructor leaks two blocks before main); leaks nothing itself and
 * prints nothing (stdio would allocate a buffer that is never freed). */
#include <stdlib.h>

extern void* volatile ctor_library_blocks[2];

int main(void) {
  void* volatile block = malloc(77);
  free(block);
  return ctor_library_blocks[0] != NULL && ctor_library_blocks[1] != NULL ? 0 : 1;
}
