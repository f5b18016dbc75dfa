/* Closes every file descriptor it has, as daemons do, then allocates 7777 bytes. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

static void* volatile keep;

int main(void) {
  for (int fd = 0; fd < 4096; ++fd)
    close(fd);
  close_range(0, ~0U, 0);
  keep = malloc(7777);
  free(keep);
  keep = malloc(7777);
  return 0;
}
