/* The library dlopen_program loads: one allocation of 6666 bytes. */
#include <stdlib.h>

__attribute__((noinline)) void* dlopen_target_allocate(void) {
  void* p = malloc(6666);
  __asm__ volatile("" ::: "memory");
  return p;
}
