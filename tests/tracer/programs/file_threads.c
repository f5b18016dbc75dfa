/* 8 threads open and close descriptors concurrently (the kernel hands the same numbers from one
 * thread to another all the time), and each leaves exactly two open: one from open, one from dup.
 * Prints `leaked=<fd>` for each, after all threads are done. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { kThreads = 8, kRounds = 2000 };

static int g_leaked[kThreads][2];

static void* churn(void* argument) {
  int* leaked = argument;
  for (int i = 0; i < kRounds; ++i) {
    int fd = open("/dev/null", O_RDONLY);
    int p[2];
    if (fd < 0 || pipe(p) != 0) {
      return NULL;
    }
    int copy = dup(fd);
    close(p[0]);
    close(fd);
    close(p[1]);
    close(copy);
  }
  leaked[0] = open("/dev/null", O_RDONLY);
  leaked[1] = dup(leaked[0]);
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    pthread_create(&threads[i], NULL, churn, g_leaked[i]);
  }
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
  }
  for (int i = 0; i < kThreads; ++i) {
    printf("leaked=%d leaked=%d\n", g_leaked[i][0], g_leaked[i][1]);
  }
  return 0;
}
