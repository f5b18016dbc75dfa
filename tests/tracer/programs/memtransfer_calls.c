// Calls every memory transfer function the memtransfer module traces, once each (memcpy ten times
// more from one call site), and prints "name bytes destination" for each, in order: the test
// compares this with the trace. Built with -fno-builtin so that every call reaches the library.
// The strndup copy is leaked on purpose (the memory module finds it; memtransfer never leaks).
#define _GNU_SOURCE  // mempcpy
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "announce_files.h"

static void say(const char* name, size_t bytes, const void* destination) {
  printf("%s %zu %p\n", name, bytes, destination);
}

int main(void) {
  if (announce_files() != 0) {
    return 4;
  }
  char* a = malloc(64);
  char* b = malloc(64);
  wchar_t wide[16];

  memset(a, 'x', 32);
  say("memset", 32, a);
  memcpy(b, a, 32);
  say("memcpy", 32, b);
  memmove(a + 1, a, 16);
  say("memmove", 16, a + 1);
  mempcpy(b, a, 8);
  say("mempcpy", 8, b);
  strcpy(a, "hello");
  say("strcpy", 6, a);
  strncpy(b, "hi", 10);
  say("strncpy", 10, b);
  stpcpy(b, "world");
  say("stpcpy", 6, b);
  strcat(a, "abc");
  say("strcat", 4, a);
  strncat(a, "defgh", 3);
  say("strncat", 4, a);
  char* copy = strdup("copy me");
  say("strdup", 8, copy);
  char* prefix = strndup("truncate", 4);
  say("strndup", 5, prefix);
  wmemcpy(wide, L"abcd", 5);
  say("wmemcpy", 5 * sizeof(wchar_t), wide);
  wcscpy(wide, L"xy");
  say("wcscpy", 3 * sizeof(wchar_t), wide);
  for (int i = 0; i < 10; ++i) {
    memcpy(b, a, 48);
    say("memcpy", 48, b);
  }

  free(copy);
  free(a);
  free(b);
  printf("leaked %p\n", (void*)prefix);
  return 0;
}
