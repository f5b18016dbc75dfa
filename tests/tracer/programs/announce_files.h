/* Descriptor and stream calls for the tests that trace a module together with the file module.
 * When ANNOUNCE_FILES_IN names a directory, announce_files() opens a file there with open, opens
 * it again as a stream with fopen, closes both, and prints each call as the file module records
 * it: "file open 0xfd path=... flags=0x241", "file fopen 0xstream path=... mode=r", "file fclose
 * 0xstream", "file close 0xfd". Without the variable it does nothing: the program's records are
 * then exactly those of its module. */
#ifndef RTRACE_TESTS_ANNOUNCE_FILES_H
#define RTRACE_TESTS_ANNOUNCE_FILES_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int announce_files(void) {
  const char* directory = getenv("ANNOUNCE_FILES_IN");
  if (directory == NULL) {
    return 0;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/announced.txt", directory);
  const int flags = O_WRONLY | O_CREAT | O_TRUNC;
  const int fd = open(path, flags, 0600);
  FILE* stream = fopen(path, "r");
  if (fd < 0 || stream == NULL) {
    return -1;
  }
  fclose(stream);
  close(fd);
  /* Printed once the calls are made: printing allocates stdout's buffer, nothing of fd or fp. */
  printf("file open 0x%x path=%s flags=0x%x\n", (unsigned)fd, path, (unsigned)flags);
  printf("file fopen %p path=%s mode=r\n", (void*)stream, path);
  printf("file fclose %p\n", (void*)stream);
  printf("file close 0x%x\n", (unsigned)fd);
  return 0;
}

#endif
