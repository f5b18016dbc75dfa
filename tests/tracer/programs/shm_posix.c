/* POSIX shared memory and mappings (see shmposix_test.cpp): an object created, sized, mapped
 * twice (mmap and mmap64), one mapping released, its descriptor closed and the object unlinked;
 * a file opened and mapped; an anonymous mapping. The second object mapping stays (a leak).
 * Usage: shm_posix OBJECT-NAME FILE-PATH; prints what it got, as key=value. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void check(int ok, const char* what) {
  if (!ok) {
    perror(what);
    exit(2);
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    return 2;
  }
  const int object = shm_open(argv[1], O_CREAT | O_RDWR, 0600);
  check(object >= 0, "shm_open");
  check(ftruncate(object, 8192) == 0, "ftruncate");
  char* whole = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, object, 0);
  check(whole != MAP_FAILED, "mmap");
  char* half = mmap64(NULL, 4096, PROT_READ, MAP_SHARED, object, 4096);
  check(half != MAP_FAILED, "mmap64");
  memset(whole, 7, 8192);
  check(munmap(whole, 8192) == 0, "munmap");
  check(close(object) == 0, "close");
  check(shm_unlink(argv[1]) == 0, "shm_unlink");

  const int file = open(argv[2], O_RDWR | O_CREAT, 0600);
  check(file >= 0, "open");
  check(ftruncate(file, 4096) == 0, "ftruncate file");
  char* mapped = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, file, 0);
  check(mapped != MAP_FAILED, "mmap file");
  check(close(file) == 0, "close file");

  char* anonymous = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(anonymous != MAP_FAILED, "mmap anonymous");
  anonymous[0] = half[0];
  check(munmap(anonymous, 16384) == 0, "munmap anonymous");
  check(munmap(mapped, 4096) == 0, "munmap file");

  printf("object=%d whole=%p half=%p file=%d mapped=%p anonymous=%p\n", object, (void*)whole,
         (void*)half, file, (void*)mapped, (void*)anonymous);
  return 0;
}
