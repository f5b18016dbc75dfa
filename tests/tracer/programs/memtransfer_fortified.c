// The fortified forms: built with -O2 -D_FORTIFY_SOURCE=2, where copies into a buffer of known
// size with a length known only at run time become __memcpy_chk, __strcpy_chk, ... calls.
// Prints "name bytes destination" for each, in order. With the argument "overflow", first
// copies the source into a buffer too small for it: the fortified strcpy must abort.
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static char source[64] = "fortified source text";

int main(int argc, char** argv) {
  char buffer[64];
  if (argc == 2 && strcmp(argv[1], "overflow") == 0) {
    char small[8];
    fputs("copying\n", stderr);
    strcpy(small, source + argc - 2);  // 22 bytes into 8: __strcpy_chk aborts
    puts(small);
    return 0;
  }
  const size_t size = (size_t)argc * 16;  // 16 when run without arguments

  memset(buffer, 0, size);
  printf("__memset_chk %zu %p\n", size, (void*)buffer);
  memcpy(buffer, source, size);
  printf("__memcpy_chk %zu %p\n", size, (void*)buffer);
  memmove(buffer + 1, buffer, size);
  printf("__memmove_chk %zu %p\n", size, (void*)(buffer + 1));
  strcpy(buffer, source + argc);
  printf("__strcpy_chk %zu %p\n", sizeof "ortified source text", (void*)buffer);
  strcat(buffer, source + argc * 10);
  printf("__strcat_chk %zu %p\n", sizeof "source text", (void*)buffer);
  puts(buffer);
  return 0;
}
