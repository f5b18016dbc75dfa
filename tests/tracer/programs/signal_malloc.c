/* Allocates from a signal handler while the main thread computes.
 * Prints handled=N: the number of 5555-byte blocks allocated and freed by the handler. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile sig_atomic_t handled;

static void on_alarm(int signal_number) {
  (void)signal_number;
  void* volatile p = malloc(5555); /* kept: clang leaves out a malloc freed unused */
  free(p);
  ++handled;
}

int main(void) {
  struct sigaction action = {0};
  action.sa_handler = on_alarm;
  sigaction(SIGALRM, &action, NULL);
  struct itimerval timer = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &timer, NULL);
  volatile unsigned long spin = 0;
  while (handled < 50)
    ++spin;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  for (int i = 0; i < 10; ++i)
    raise(SIGALRM);
  printf("handled=%d\n", (int)handled);
  return 0;
}
