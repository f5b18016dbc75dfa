/* A library the program loads with RTLD_DEEPBIND: its own dependencies (the C library) come
 * first in its scope, so an interposing malloc or free reaches it only if its calls are hooked.
 * strdup allocates inside the C library (where the interposer is bound), its free here. */
#include <stdlib.h>
#include <string.h>

char* deep_copy(const char* text) {
  return strdup(text);
}

void* deep_allocate(size_t size) {
  return malloc(size);
}

void* deep_zeroed(size_t count, size_t size) {
  return calloc(count, size);
}

void* deep_resize(void* block, size_t size) {
  return realloc(block, size);
}

void deep_release(void* block) {
  free(block);
}
