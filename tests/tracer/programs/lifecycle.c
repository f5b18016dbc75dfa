/* Ends in different ways after allocating marker blocks; the trace must hold everything before.
 * Usage: lifecycle <exit|_exit|abort|segv|overflow|thread-overflow|quick_exit|altstack|exec|
 *                   after-exec|fork|fork-exit|fork-exec|system>
 * Markers: 1111 x 3 before the end; 2222 after exec; 3333 in a forked child; 4444 in the parent
 * after fork; 5555 in an at_quick_exit handler. overflow: unbounded recursion exhausts the stack
 * (thread-overflow: of a second thread); the markers are allocated just before. altstack:
 * prints whether the main thread has an alternate signal stack after allocating
 * (main_altstack=0|1), and whether a thread that set its own before allocating still has it
 * (own_altstack_kept=0|1). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void* volatile keep;

static void markers(size_t size, int count) {
  for (int i = 0; i < count; ++i)
    keep = malloc(size);
}

/* Recurses until the stack is exhausted; the frames cannot be merged or turned into a loop. The
 * markers are allocated only near the end of the stack, so that the crash comes microseconds
 * later: only the crash handler can write them out. */
static char* stack_lowest;

static unsigned long recurse(volatile char* caller, unsigned long depth, int allocated) {
  volatile char frame[512];
  frame[0] = (char)(caller[0] + 1);
  if (depth == ~0UL) return frame[0];
  if (!allocated && (char*)frame - stack_lowest < 128 * 1024) {
    markers(1111, 3);
    allocated = 1;
  }
  return recurse(frame, depth + 1, allocated) + frame[1];
}

static void* overflow(void* unused) {
  (void)unused;
  pthread_attr_t attributes;
  void* lowest = NULL;
  size_t size = 0;
  pthread_getattr_np(pthread_self(), &attributes);
  pthread_attr_getstack(&attributes, &lowest, &size);
  pthread_attr_destroy(&attributes);
  stack_lowest = lowest;
  volatile char start[1] = {0};
  recurse(start, 0, 0);
  return NULL;
}

static int has_altstack(void) {
  stack_t current;
  return sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0;
}

static char own_stack[64 * 1024];

static void* keep_own_altstack(void* kept) {
  stack_t own = {.ss_sp = own_stack, .ss_size = sizeof own_stack, .ss_flags = 0};
  sigaltstack(&own, NULL);
  markers(1111, 3);
  stack_t current;
  *(int*)kept = sigaltstack(NULL, &current) == 0 && current.ss_sp == own_stack;
  return NULL;
}

static void allocate_at_quick_exit(void) {
  markers(5555, 1);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  if (strcmp(mode, "after-exec") == 0) {
    markers(2222, 1);
    return 0;
  }
  if (strcmp(mode, "overflow") == 0) {
    overflow(NULL);
  }
  if (strcmp(mode, "thread-overflow") == 0) {
    pthread_t thread;
    pthread_create(&thread, NULL, overflow, NULL);
    pthread_join(thread, NULL);
  }
  if (strcmp(mode, "altstack") == 0) {
    markers(1111, 1);
    int kept = 0;
    pthread_t thread;
    pthread_create(&thread, NULL, keep_own_altstack, &kept);
    pthread_join(thread, NULL);
    printf("main_altstack=%d own_altstack_kept=%d\n", has_altstack(), kept);
    return 0;
  }
  markers(1111, 3);
  if (strcmp(mode, "quick_exit") == 0) {
    at_quick_exit(allocate_at_quick_exit);
    quick_exit(0);
  }
  if (strcmp(mode, "_exit") == 0) _exit(0);
  if (strcmp(mode, "abort") == 0) abort();
  if (strcmp(mode, "segv") == 0) {
    volatile int* null_pointer = NULL;
    return *null_pointer;
  }
  if (strcmp(mode, "system") == 0) {
    char command[4096];
    snprintf(command, sizeof command, "%s after-exec", argv[0]);
    return system(command);
  }
  if (strcmp(mode, "exec") == 0) {
    execl(argv[0], argv[0], "after-exec", (char*)NULL);
    return 1;
  }
  if (strcmp(mode, "fork-exec") == 0) {
    pid_t child = fork();
    if (child == 0) {
      execl(argv[0], argv[0], "after-exec", (char*)NULL);
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    markers(4444, 1);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (strcmp(mode, "fork") == 0 || strcmp(mode, "fork-exit") == 0) {
    pid_t child = fork();
    if (child == 0) {
      markers(3333, 1);
      if (strcmp(mode, "fork") == 0) _exit(0);
      exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    markers(4444, 1);
  }
  return 0;
}
