// Four threads copying at once, into one shared destination and from one shared source: the
// memtransfer records of each copy (its allocation and its release) must stay together in the
// trace whatever the interleaving. Built with -fno-builtin.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { kThreads = 4, kCopies = 5000 };

static char source[256] = "shared source";
static char shared_destination[256];

static void* copy_many(void* argument) {
  char own[256];
  for (int i = 0; i < kCopies; ++i) {
    memcpy(own, source, 64 + (size_t)(i % 64));
    memcpy(shared_destination, own, 16);
  }
  (void)argument;
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    pthread_create(&threads[i], NULL, copy_many, NULL);
  }
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
  }
  printf("copies %d\n", kThreads * kCopies * 2);
  return 0;
}
