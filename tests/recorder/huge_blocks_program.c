/* Blocks of 4 GiB and more, which a 32-bit size field cannot hold, and one of exactly the largest
 * size such a field holds: malloc(5000000000) is freed, calloc(3, 2000000000) and
 * malloc(4294967295) stay allocated. Untouched, the blocks cost no memory. Exit status 2 when
 * the C library refuses one of them (the test then says so rather than compare sizes). */
#include <stdio.h>
#include <stdlib.h>

static void* volatile kept[2]; /* stored, so that no allocation is optimised away */

int main(void) {
  void* big = malloc(5000000000UL);
  kept[0] = calloc(3, 2000000000UL);
  kept[1] = malloc(4294967295UL);
  if (big == NULL || kept[0] == NULL || kept[1] == NULL) {
    fputs("huge_blocks_program: allocation refused\n", stderr);
    return 2;
  }
  free(big);
  return 0;
}
