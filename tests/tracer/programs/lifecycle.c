/* Ends in different ways after allocating marker blocks; the trace must hold everything before.
 * Usage: lifecycle <exit|_exit|abort|segv|exec|after-exec|fork|fork-exit|fork-exec|system>
 * Markers: 1111 x 3 before the end; 2222 after exec; 3333 in a forked child; 4444 in the parent
 * after fork. */
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

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  if (strcmp(mode, "after-exec") == 0) {
    markers(2222, 1);
    return 0;
  }
  markers(1111, 3);
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
