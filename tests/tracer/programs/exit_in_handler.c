/* Allocates in a loop until a CPU timer's signal handler ends the process with _exit (which POSIX
 * allows in a handler): the handler often interrupts malloc or free, holding the arena lock.
 * Blocks above a fixed mmap threshold make malloc call mmap with the lock held, which makes
 * that likely. Usage: exit_in_handler MICROSECONDS */
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

static void on_alarm(int signal_number) {
  (void)signal_number;
  _exit(3);
}

int main(int argc, char** argv) {
  const long delay_us = argc > 1 ? atol(argv[1]) : 20000;
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  /* CPU time, not wall time: on a busy machine the loop still runs that long first. */
  signal(SIGVTALRM, on_alarm);
  struct itimerval timer = {{0, 0}, {delay_us / 1000000, delay_us % 1000000}};
  setitimer(ITIMER_VIRTUAL, &timer, NULL);
  void* volatile blocks[64] = {0};
  for (unsigned long i = 0;; ++i) {
    const unsigned slot = (unsigned)(i * 2654435761u) % 64;
    free(blocks[slot]);
    blocks[slot] = malloc(i % 2 == 0 ? 16 + (i * 40503u) % 3000 : 100000 + (i * 40503u) % 100000);
  }
}
