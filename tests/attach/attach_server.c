// A server started without rtrace, for `rtrace record -p`: four threads allocate and free in a
// fixed pattern, and commands on standard input (one letter a line, answered with "ok\n" on
// standard output once done) change what it does, so that a test knows exactly what it
// allocated while it was traced:
//   p  pause the four threads (answered once every thread has finished its pair and waits)
//   r  resume them
//   l  leak 5 blocks of 1234 bytes (kept, never freed)
//   f  free the 3 blocks of 3001 bytes allocated at start (before any attach)
//   o  open /dev/null and leak the descriptor (for -e file)
//   x  stop the threads and exit with status 7
// Reads and writes with read/write only, so that the commands allocate nothing themselves.
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kThreads = 4, kLeaks = 5, kLeakSize = 1234, kEarlyBlocks = 3, kEarlySize = 3001 };

static atomic_int g_paused;
static atomic_int g_idle;  // threads waiting while paused
static atomic_int g_stop;
static void* g_early[kEarlyBlocks];
static void* volatile g_leaked[kLeaks];

// Each thread: a block of its own size (100 + 8 * thread), written and freed, over and over.
static void* churn(void* argument) {
  const size_t size = 100 + 8 * (size_t)(long)argument;
  while (!atomic_load(&g_stop)) {
    if (atomic_load(&g_paused)) {
      atomic_fetch_add(&g_idle, 1);
      while (atomic_load(&g_paused) && !atomic_load(&g_stop)) {
        usleep(1000);
      }
      atomic_fetch_sub(&g_idle, 1);
      continue;
    }
    char* volatile block = malloc(size);
    memset(block, 1, size);
    free(block);
  }
  return NULL;
}

static void answer(void) {
  if (write(1, "ok\n", 3) != 3) {
    _exit(3);
  }
}

int main(void) {
  for (int i = 0; i < kEarlyBlocks; ++i) {
    g_early[i] = malloc(kEarlySize);
  }
  pthread_t threads[kThreads];
  for (long i = 0; i < kThreads; ++i) {
    pthread_create(&threads[i], NULL, churn, (void*)i);
  }
  answer();  // started
  char command = 0;
  while (read(0, &command, 1) == 1) {
    switch (command) {
      case 'p':
        atomic_store(&g_paused, 1);
        while (atomic_load(&g_idle) != kThreads) {
          usleep(1000);
        }
        break;
      case 'r':
        atomic_store(&g_paused, 0);
        break;
      case 'l':
        for (int i = 0; i < kLeaks; ++i) {
          g_leaked[i] = malloc(kLeakSize);
        }
        break;
      case 'f':
        for (int i = 0; i < kEarlyBlocks; ++i) {
          free(g_early[i]);
          g_early[i] = NULL;
        }
        break;
      case 'o':
        if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0) {
          _exit(4);
        }
        break;
      case 'x':
        atomic_store(&g_stop, 1);
        for (int i = 0; i < kThreads; ++i) {
          pthread_join(threads[i], NULL);
        }
        answer();
        return 7;
      default:
        continue;  // newlines
    }
    answer();
  }
  return 5;  // standard input closed without x
}
