// The audit test program's own shared library: functions it calls through the PLT.
int target_add(int a, int b) {
  return a + b;
}

int target_scale(int a, int factor) {
  return a * factor;
}

int untraced_function(int a) {
  return a - 1;
}
