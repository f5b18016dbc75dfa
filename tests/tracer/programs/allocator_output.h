/* What the allocator test programs share: stdout buffered in a static array, so that printing
 * allocates nothing (the traces then hold exactly the calls the programs announce), and the two
 * kinds of announcement: "name size 0xblock" for an allocation, "name 0xblock" for a release;
 * "leaked name size 0xblock" for a block the program never releases. */
#ifndef RTRACE_TESTS_ALLOCATOR_OUTPUT_H
#define RTRACE_TESTS_ALLOCATOR_OUTPUT_H

#include <stdio.h>

static char allocator_output[65536];

static void quiet_stdout(void) {
  setvbuf(stdout, allocator_output, _IOFBF, sizeof allocator_output);
}

static void allocated(const char* name, size_t size, const void* block) {
  printf("%s %zu %p\n", name, size, block);
}

static void released(const char* name, const void* block) {
  printf("%s %p\n", name, block);
}

static void leaked(const char* name, size_t size, const void* block) {
  printf("leaked %s %zu %p\n", name, size, block);
}

#endif
