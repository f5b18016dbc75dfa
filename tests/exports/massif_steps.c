/* Allocations whose massif snapshots are known: 100 rounds of one 3000-byte block from
 * big_buffer and one 1000-byte block from small_buffer, then one 8-byte block from tiny_buffer
 * (the peak: 400,008 bytes), then every block freed in the order allocated, the tiny one last.
 * 402 changes of the live bytes, no other allocation (no stdio).
 * With an argument N, it sleeps N microseconds after each allocation: on a clock of
 * milliseconds each allocation then has a time of its own (a profile viewer weighs a sample by
 * the time to the next one). */
#include <stdlib.h>
#include <unistd.h>

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

static useconds_t pause_us;

static void* paused(void* block) {
  if (pause_us > 0) {
    usleep(pause_us);
  }
  return block;
}

int main(int argc, char** argv) {
  pause_us = argc > 1 ? (useconds_t)atoi(argv[1]) : 0;
  for (int i = 0; i < kRounds; ++i) {
    blocks[2 * i] = paused(big_buffer());
    blocks[2 * i + 1] = paused(small_buffer());
  }
  void* tiny = paused(tiny_buffer());
  for (int i = 0; i < 2 * kRounds; ++i) {
    free(blocks[i]);
  }
  free(tiny);
  return 0;
}
