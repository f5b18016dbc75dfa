// Calls getpid three times (the test-only getpid module records each) and prints the pid.
#include <stdio.h>
#include <unistd.h>

int main(void) {
  pid_t pid = 0;
  for (int i = 0; i < 3; ++i) {
    pid = getpid();
  }
  printf("%d\n", (int)pid);
  return 0;
}
