/* malloc + free under the frames the tracer's fast unwinder leaves to libunwind: a function
 * without call frame information (hand-written, with a frame pointer), a function that realigns
 * its stack (its CFA is a DWARF expression), a signal handler (a signal frame), and the first two in
 * a thread (whose first frame is the C library's clone3). Each block's size names its path; the
 * test expects every stack down to _start or to the thread's first frame. */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>

#include "own_frame.h"

static void* volatile keep;

OWN_FRAME void leaf(size_t size) {
  keep = malloc(size);
  free(keep);
}

/* Calls leaf(size) in a frame of its own (rbp pushed), with no call frame information at all. */
void no_cfi(size_t size);
__asm__(
    ".text\n"
    ".globl no_cfi\n"
    ".type no_cfi, @function\n"
    "no_cfi:\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  call leaf\n"
    "  pop %rbp\n"
    "  ret\n"
    ".size no_cfi, .-no_cfi\n");

/* Realigns the stack on entry (a 64-byte aligned local): GCC describes the CFA with a DWARF
 * expression. */
OWN_FRAME __attribute__((force_align_arg_pointer)) void realigned(size_t size) {
  volatile char aligned[64] __attribute__((aligned(64)));
  aligned[0] = 1;
  leaf(size);
  no_cfi(size + 1);
  (void)aligned[0];
}

static void on_signal(int signal_number) {
  (void)signal_number;
  leaf(141);
  no_cfi(142);
}

static void* worker(void* unused) {
  (void)unused;
  leaf(151);
  no_cfi(152);
  realigned(153);
  return NULL;
}

int main(void) {
  no_cfi(111);
  realigned(121);
  signal(SIGUSR2, on_signal);
  raise(SIGUSR2);
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, NULL) != 0 || pthread_join(thread, NULL) != 0) {
    return 1;
  }
  return 0;
}
