/* The library whose exported functions the package's smoke test traces with --audit. */
int audit_target_add(int a, int b) {
  return a + b;
}

int audit_untraced(int a) {
  return a * 2;
}
