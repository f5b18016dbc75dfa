/* Allocation churn in many threads with cross-thread frees and address reuse.
 * Usage: threads <threads> <operations per thread> [waves]: the threads are started `waves` times
 * one group after the other (short-lived threads whose buffers the tracer must recycle).
 * Every block the program allocates has a size in [2000, 3000). Prints what it did:
 *   allocs=N frees=N leaks=N leaked_bytes=N */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define POOL 64
#define SLOTS 256

static _Atomic(void*) exchange_slots[SLOTS];
static atomic_ulong total_allocs, total_frees, total_leaks, total_leaked_bytes;
static long operations;

struct block {
  size_t size;
};

static unsigned next_random(unsigned* state) {
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

static void* worker(void* arg) {
  unsigned state = (unsigned)(size_t)arg * 2654435761u + 1;
  struct block* pool[POOL];
  int used = 0;
  unsigned long allocs = 0, frees = 0;
  for (long i = 0; i < operations; ++i) {
    unsigned r = next_random(&state);
    if (used == 0 || (used < POOL && (r & 1))) {
      size_t size = 2000 + r % 1000;
      struct block* b = malloc(size);
      b->size = size;
      pool[used++] = b;
      ++allocs;
      continue;
    }
    int index = (int)((r >> 1) % (unsigned)used);
    struct block* b = pool[index];
    pool[index] = pool[--used];
    if (r & 2) {
      /* hand it to another thread; free what it left there */
      struct block* previous = atomic_exchange(&exchange_slots[(r >> 8) % SLOTS], b);
      if (previous == NULL) continue;
      b = previous;
    }
    free(b);
    ++frees;
  }
  unsigned long leaks = 0, leaked_bytes = 0;
  for (int i = 0; i < used; ++i) {
    if (i % 3 == 0) {
      ++leaks;
      leaked_bytes += pool[i]->size;
    } else {
      free(pool[i]);
      ++frees;
    }
  }
  atomic_fetch_add(&total_allocs, allocs);
  atomic_fetch_add(&total_frees, frees);
  atomic_fetch_add(&total_leaks, leaks);
  atomic_fetch_add(&total_leaked_bytes, leaked_bytes);
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 8;
  operations = argc > 2 ? atol(argv[2]) : 1000000;
  int waves = argc > 3 ? atoi(argv[3]) : 1;
  pthread_t ids[64];
  if (threads > 64) threads = 64;
  for (int wave = 0; wave < waves; ++wave) {
    for (int i = 0; i < threads; ++i) {
      pthread_create(&ids[i], NULL, worker, (void*)(size_t)(wave * threads + i + 1));
    }
    for (int i = 0; i < threads; ++i)
      pthread_join(ids[i], NULL);
  }
  for (int i = 0; i < SLOTS; ++i) {
    void* b = atomic_exchange(&exchange_slots[i], NULL);
    if (b != NULL) {
      free(b);
      atomic_fetch_add(&total_frees, 1);
    }
  }
  printf("allocs=%lu frees=%lu leaks=%lu leaked_bytes=%lu\n", atomic_load(&total_allocs),
         atomic_load(&total_frees), atomic_load(&total_leaks), atomic_load(&total_leaked_bytes));
  return 0;
}
