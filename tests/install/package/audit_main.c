/* Calls its library's functions through the PLT: three calls of audit_target_add, which the
 * smoke test's --audit pattern chooses, one of audit_untraced, which it does not. */
#include <stdio.h>

int audit_target_add(int a, int b);
int audit_untraced(int a);

int main(void) {
  int total = 0;
  for (int i = 0; i < 3; ++i) {
    total = audit_target_add(total, i);
  }
  printf("%d\n", audit_untraced(total));
  return 0;
}
