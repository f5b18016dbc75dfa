/* Every C allocation function once, through leaf functions whose addresses are printed so the
 * test can check that frame 0 of each backtrace is the call site. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINL __attribute__((noinline))

static void* volatile keep;
static void* volatile null_pointer; /* a literal free(NULL) would be optimised away */

NOINL void* leaf_malloc(size_t size) {
  void* p = malloc(size);
  keep = p;
  return p;
}

int main(void) {
  void* a = leaf_malloc(100);
  free(a);
  free(null_pointer);
  void* c = calloc(10, 24);
  void* r = malloc(50);
  void* r2 = realloc(r, 300);
  void* m = NULL;
  if (posix_memalign(&m, 32, 64) != 0) return 1;
  void* al = aligned_alloc(64, 128);
  void* me = memalign(64, 100);
  void* v = valloc(10);
  void* pv = pvalloc(10);
  void* ra = reallocarray(NULL, 4, 8);
  void* r3 = realloc(r2, 0);
  printf("leaf_malloc=%p\n", (void*)leaf_malloc);
  printf("a=%p c=%p r=%p r2=%p m=%p al=%p me=%p v=%p pv=%p ra=%p r3=%p\n", a, c, r, r2, m, al, me,
         v, pv, ra, r3);
  free(c);
  free(m);
  free(al);
  free(me);
  free(v);
  free(pv);
  free(ra);
  return 0;
}
