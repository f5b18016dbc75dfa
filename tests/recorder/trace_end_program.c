/* Ends its trace the way its first argument says, after the same allocations every time: 8 MiB
 * touched and freed (so that the peak RSS is at least that), 50 bytes freed, 100 bytes never
 * freed.
 *   exit    returns from main (status 0)
 *   _exit   calls _exit(3)
 *   segv    writes through a null pointer (SIGSEGV)
 *   kill    waits until the tracer's control thread has written out (see wait_written_out), then
 *           SIGKILLs itself
 *   wait    prints its pid, waits for a line on standard input (the test toggles tracing off
 *           meanwhile), then returns from main */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How often the thread other than this one (the tracer's control thread) went to sleep so far
 * (voluntary context switches), or -1 when there is none. Without allocations (they would be
 * traced): raw reads of /proc/self/task. */
static long other_thread_sleeps(void) {
  const int tasks = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const long self = syscall(SYS_gettid);
  char entries[4096];
  long n = 0;
  long sleeps = -1;
  while (tasks >= 0 && (n = syscall(SYS_getdents64, tasks, entries, sizeof(entries))) > 0) {
    for (long at = 0; at < n;) {
      const struct dirent64* entry = (const struct dirent64*)(entries + at);
      at += entry->d_reclen;
      if (entry->d_name[0] == '.' || strtol(entry->d_name, NULL, 10) == self)
        continue;
      char path[64];
      char status[2048] = {0};
      snprintf(path, sizeof(path), "/proc/self/task/%.20s/status", entry->d_name);
      const int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd >= 0 && read(fd, status, sizeof(status) - 1) > 0) {
        const char* field = strstr(status, "voluntary_ctxt_switches:");
        if (field != NULL && (field == status || field[-1] == '\n'))
          sleeps = strtol(field + strlen("voluntary_ctxt_switches:"), NULL, 10);
      }
      if (fd >= 0)
        close(fd);
    }
  }
  if (tasks >= 0)
    close(tasks);
  return sleeps;
}

/* Whether the calls made so far are written out: the control thread writes out once a pass of
 * its loop, between two sleeps, and a batch at the latest in the pass after (when no call came
 * since). Four more sleeps than `before` (taken after the calls) hold two whole passes, however
 * slowly a loaded machine runs the thread: a fixed pause (it was 100 ms) could pass first. */
static void wait_written_out(void) {
  const long before = other_thread_sleeps();
  const struct timespec pause = {0, 1000 * 1000};
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const time_t give_up = now.tv_sec + 30; /* a tracer that never writes out fails, not hangs */
  while (before >= 0 && other_thread_sleeps() < before + 4 && now.tv_sec < give_up) {
    nanosleep(&pause, NULL);
    clock_gettime(CLOCK_MONOTONIC, &now);
  }
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  char* big = malloc(8 << 20);
  if (big == NULL)
    return 2;
  memset(big, 1, 8 << 20);
  free(big);
  free(malloc(50));
  volatile char* kept = malloc(100);
  kept[0] = 1;
  if (strcmp(mode, "_exit") == 0)
    _exit(3);
  if (strcmp(mode, "segv") == 0) {
    volatile int* nowhere = NULL;
    *nowhere = 1;
  }
  if (strcmp(mode, "kill") == 0) {
    wait_written_out();
    kill(getpid(), SIGKILL);
  }
  if (strcmp(mode, "exec") == 0) {
    /* the same program again, under the same name: its second trace */
    char* const again[] = {argv[0], "exit", NULL};
    execv("/proc/self/exe", again);
    return 4;
  }
  if (strcmp(mode, "wait") == 0) {
    /* write/read, not stdio: its buffers would be allocations of their own */
    char line[16];
    const int length = snprintf(line, sizeof(line), "%d\n", (int)getpid());
    if (write(1, line, (size_t)length) != length || read(0, line, sizeof(line)) <= 0)
      return 1;
  }
  return 0;
}
