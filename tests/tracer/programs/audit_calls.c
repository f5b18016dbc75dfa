// Calls of library functions through the PLT for the audit module: three of target_add, two of
// target_scale, one of untraced_function (its own library, audit_target.c) and four of libc's
// strlen (built with -fno-builtin: real calls). Prints "call name" for each call of a function
// that the patterns 'target_*:strlen' choose, in order.
#include <stdio.h>
#include <string.h>

#include "announce_files.h"

int target_add(int a, int b);
int target_scale(int a, int factor);
int untraced_function(int a);

static void say(const char* name) {
  printf("call %s\n", name);
}

int main(void) {
  if (announce_files() != 0) {
    return 4;
  }
  int total = 0;
  for (int i = 0; i < 3; ++i) {
    total = target_add(total, i);
    say("target_add");
  }
  for (int i = 0; i < 2; ++i) {
    total = target_scale(total, 2);
    say("target_scale");
  }
  total = untraced_function(total);
  static const char* const words[] = {"one", "three", "seven", "eleven"};
  for (int i = 0; i < 4; ++i) {
    total += (int)strlen(words[i]);
    say("strlen");
  }
  printf("total %d\n", total);
  return 0;
}
