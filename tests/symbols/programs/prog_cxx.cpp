// The C++ test program: namespaces, member functions, templates and forced inlining.
#include <cstdio>

#include "probe.h"

#define PROBE(var)                    \
  void* var = probe_return_address(); \
  __asm__ volatile("" : : "r"(var) : "memory")

namespace shapes {

struct Widget {
  __attribute__((noinline)) int grow(int by);
  int size = 1;
};

int Widget::grow(int by) {
  PROBE(here);
  std::printf("frame\t%p\tshapes::Widget::grow(int)\tprog_cxx.cpp:%d\n", here, __LINE__ - 1);
  size += by;
  return size;
}

template <typename T>
__attribute__((noinline)) T twice(T value) {
  PROBE(here);
  std::printf("frame\t%p\tdouble shapes::twice<double>(double)\tprog_cxx.cpp:%d\n", here,
              __LINE__ - 2);
  return value * 2;
}

}  // namespace shapes

// Inlined twice over into outer(): the frame must show both inlined calls. GCC gives functions
// that exist only inlined no linkage name, so DWARF knows them by bare name: "inner()" (the
// parameter list would have to be rebuilt from DWARF types, which the resolver does not do).
static int innermost_line;
static int inner_line;

// Runs `statement` and records the line it is on (the line of the macro's use).
#define AT_LINE(statement, line) \
  statement;                     \
  line = __LINE__

__attribute__((always_inline)) static inline void* innermost() {
  void* here;
  AT_LINE(here = probe_return_address(), innermost_line);
  __asm__ volatile("" : : "r"(here) : "memory");
  return here;
}

__attribute__((always_inline)) static inline void* inner(int line) {
  void* here;
  AT_LINE(here = innermost(), inner_line);
  std::printf(
      "frame\t%p\tinnermost()\tprog_cxx.cpp:%d\tinner()\tprog_cxx.cpp:%d\t"
      "outer()\tprog_cxx.cpp:%d\n",
      here, innermost_line, inner_line, line);
  return here;
}

__attribute__((noinline)) void* outer() {
  return inner(__LINE__);  // LINE_OUTER
}

int main() {
  shapes::Widget widget;
  widget.grow(2);
  shapes::twice(1.5);
  outer();
  probe_print_maps();
  return 0;
}
