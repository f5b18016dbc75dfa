/* Shared by the resolver's test programs: report a return address together with what a
 * resolver must say about it, and the program's executable mappings.
 *
 * Output lines (tab-separated):
 *   frame <return address> <function> <file:line> [<inlining caller> <file:line>]...
 *   map <from> <to> <path>
 */
#ifndef RTRACE_TEST_PROBE_H
#define RTRACE_TEST_PROBE_H

#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The return address of the call to it: a backtrace entry of its caller. */
void* probe_return_address(void);

static inline void probe_print_maps(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL) {
    unsigned long from = 0;
    unsigned long to = 0;
    char perms[8] = "";
    char path[4096] = "";
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &from, &to, perms, path) == 4 &&
        perms[2] == 'x') {
      printf("map\t0x%lx\t0x%lx\t%s\n", from, to, path);
    }
  }
  if (maps != NULL) fclose(maps);
}

#ifdef __cplusplus
}
#endif

#endif
