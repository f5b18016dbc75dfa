/* A shared library the C test program loads with dlopen. */
#include "probe.h"

__attribute__((noinline)) static void plugin_leaf(void) {
  void* here = probe_return_address();
  __asm__ volatile("" : : "r"(here) : "memory");
  printf("frame\t%p\tplugin_leaf()\tplugin.c:%d\n", here, __LINE__ - 2);
}

void plugin_run(void) {
  plugin_leaf();
  __asm__ volatile("" : : : "memory");
}
