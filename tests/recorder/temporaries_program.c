/* Four threads, each making 25000 temporary allocations (malloc, then free of that block as the
 * thread's very next call) at the same time, so that their calls interleave in the trace; the
 * main thread makes none. */
#include <pthread.h>
#include <stdlib.h>

enum { kThreads = 4, kTemporaries = 25000 };

static void* volatile last; /* stored, so that no pair is optimised away */

static void* churn(void* unused) {
  (void)unused;
  for (int i = 0; i < kTemporaries; ++i) {
    void* block = malloc(16 + (size_t)(i % 64));
    last = block;
    free(block);
  }
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    if (pthread_create(&threads[i], NULL, churn, NULL) != 0) return 2;
  }
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
  }
  return 0;
}
