/* Loads deep_bound_library with RTLD_DEEPBIND and allocates and releases through it: a 35-byte
 * strdup, malloc, realloc and calloc blocks, every one released by the library, and one block of
 * 48 bytes kept to the end.
 * Usage: deep_bound_program <library path> */
#include <dlfcn.h>
#include <stddef.h>

static void* volatile kept;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND);
  if (library == NULL) return 3;
  char* (*copy)(const char*) = (char* (*)(const char*))dlsym(library, "deep_copy");
  void* (*allocate)(size_t) = (void* (*)(size_t))dlsym(library, "deep_allocate");
  void* (*zeroed)(size_t, size_t) = (void* (*)(size_t, size_t))dlsym(library, "deep_zeroed");
  void* (*resize)(void*, size_t) = (void* (*)(void*, size_t))dlsym(library, "deep_resize");
  void (*release)(void*) = (void (*)(void*))dlsym(library, "deep_release");
  if (copy == NULL || allocate == NULL || zeroed == NULL || resize == NULL || release == NULL) {
    return 4;
  }
  release(copy("a string of thirty-four characters"));
  for (size_t i = 1; i <= 10; ++i) {
    void* block = resize(allocate(i * 16), i * 32);
    release(block);
    release(zeroed(i, 8));
  }
  kept = allocate(48);
  return 0;
}
