#include "probe.h"

__attribute__((noinline)) void* probe_return_address(void) {
  void* address = __builtin_return_address(0);
  __asm__ volatile("" : : "r"(address) : "memory");
  return address;
}
