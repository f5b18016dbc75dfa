/* Allocations whose massif snapshots are known: 100 rounds of one 3000-byte block from
 * big_buffer and one 1000-byte block from small_buffer, then one 8-byte block from tiny_buffer
 * (the peak: 400,008 bytes), then every block freed in the order allocated, the tiny one last.
 * 402 changes of the live bytes, no other allocation (no stdio). */
#include <stdlib.h>

#define NOINL __attribute__((noinline))
enum { kRounds = 100 };

static void* blocks[2 * kRounds];

NOINL static void* big_buffer(void) {
  void* p = malloc(3000);
  __asm__ volatile("" ::: "memory"); /* keep the frame: no tail call */
  return p;
}

NOINL static void* small_buffer(void) {
  void* p = malloc(1000);
  __asm__ volatile("" ::: "memory");
  return p;
}

NOINL static void* tiny_buffer(void) {
  void* p = malloc(8);
  __asm__ volatile("" ::: "memory");
  return p;
}

int main(void) {
  for (int i = 0; i < kRounds; ++i) {
    blocks[2 * i] = big_buffer();
    blocks[2 * i + 1] = small_buffer();
  }
  void* tiny = tiny_buffer();
  for (int i = 0; i < 2 * kRounds; ++i) {
    free(blocks[i]);
  }
  free(tiny);
  return 0;
}
