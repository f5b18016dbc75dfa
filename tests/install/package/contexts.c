/* The context program of the package's smoke test, built with
 * `pkg-config --cflags --libs rtrace-context`: one allocation inside the context "loading", one
 * outside it, both kept. */
#include <rtrace/sp_rtrace_context.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  unsigned int loading = sp_context_create("loading");
  sp_context_enter(loading);
  void* in_context = malloc(100);
  sp_context_exit(loading);
  void* outside = malloc(200);
  printf("context %u, mask %u\n", loading, sp_context_get_mask());
  return in_context != NULL && outside != NULL ? 0 : 1;
}
