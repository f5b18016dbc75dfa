/* A program of about ten seconds whose heap grows steadily: every 20 ms it allocates and frees
 * blocks, and keeps one block of 1000 bytes, which it never frees (profile_series_test.cpp). */
#include <stdlib.h>
#include <time.h>

void* volatile g_seen;

static double seconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

__attribute__((noinline)) static void churn(void) {
  for (int i = 0; i < 100; ++i) {
    void* block = malloc(64 + (size_t)i);
    g_seen = block;
    free(block);
  }
}

__attribute__((noinline)) static void keep(void) {
  g_seen = malloc(1000);
}

int main(void) {
  const double start = seconds_now();
  const struct timespec pause = {0, 20 * 1000 * 1000};
  while (seconds_now() - start < 10.0) {
    churn();
    keep();
    nanosleep(&pause, NULL);
  }
  return 0;
}
