/* Toggles tracing with SIGUSR1 twice on and twice off.
 * Markers: 1001 while on (first), 1002 while off, 1003 while on (second), 1004 after the end.
 *
 * After each toggle it waits until the toggle has taken effect, as `rtrace record -t` does: the
 * first one (no control thread yet) is carried out by the signal handler itself; the others by
 * the control thread, which then names itself "rtrace:on" or "rtrace:off". Waiting a fixed time
 * instead would lose to a slow scheduler on a loaded machine. Without allocations (they would be
 * traced): raw directory reads of /proc/self/task. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void* volatile keep;

struct task_entry { /* struct linux_dirent64 */
  uint64_t inode;
  int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[];
};

/* Whether a thread other than this one is named `name` (0, 1), or there is none (2). */
static int other_thread_named(const char* name) {
  const int tasks = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (tasks < 0)
    return 2;
  const long self = syscall(SYS_gettid);
  int others = 0;
  int named = 0;
  char entries[4096];
  long n;
  while ((n = syscall(SYS_getdents64, tasks, entries, sizeof(entries))) > 0) {
    for (long at = 0; at < n;) {
      const struct task_entry* entry = (const struct task_entry*)(entries + at);
      at += entry->length;
      if (entry->name[0] == '.' || strtol(entry->name, NULL, 10) == self)
        continue;
      ++others;
      char path[64] = "/proc/self/task/";
      strncat(path, entry->name, sizeof(path) - strlen(path) - sizeof("/comm"));
      strcat(path, "/comm");
      char comm[32] = {0};
      const int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd >= 0 && read(fd, comm, sizeof(comm) - 1) > 0 && strncmp(comm, name, strlen(name)) == 0 &&
          comm[strlen(name)] == '\n')
        named = 1;
      if (fd >= 0)
        close(fd);
    }
  }
  close(tasks);
  return others == 0 ? 2 : named;
}

static double monotonic_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* A tracer that never carries the toggle out is not waited for past 30 s (the test then fails on
 * the traces' contents rather than hanging). */
static void toggle_and_wait(const char* state) {
  raise(SIGUSR1);
  const double give_up = monotonic_seconds() + 30;
  const struct timespec pause = {0, 1000 * 1000};
  while (other_thread_named(state) == 0 && monotonic_seconds() < give_up)
    nanosleep(&pause, NULL);
}

int main(void) {
  toggle_and_wait("rtrace:on");
  keep = malloc(1001);
  toggle_and_wait("rtrace:off");
  keep = malloc(1002);
  toggle_and_wait("rtrace:on");
  keep = malloc(1003);
  toggle_and_wait("rtrace:off");
  keep = malloc(1004);
  return 0;
}
