// Every form of operator new (and malloc) called from allocate_all(), which middle() calls from
// main(), or from the bottom of a recursion `depth` calls deep. Prints the run-time address of
// middle(), so that the test can place the frames with the symbol table.
// Usage: deep_new [RECURSION_DEPTH]
#include <cstdio>
#include <cstdlib>
#include <new>

static void* volatile keep;

// noinline and a use after each call: every function keeps its own frame and return address.
__attribute__((noinline)) void allocate_all() {
  keep = ::operator new(21);
  ::operator delete(keep);
  keep = ::operator new[](22);
  ::operator delete[](keep);
  keep = ::operator new(23, std::nothrow);
  ::operator delete(keep, std::nothrow);
  keep = ::operator new[](24, std::nothrow);
  ::operator delete[](keep, std::nothrow);
  keep = ::operator new (25, std::align_val_t{64});
  ::operator delete (keep, std::align_val_t{64});
  keep = ::operator new[](26, std::align_val_t{64});
  ::operator delete[](keep, std::align_val_t{64});
  keep = ::operator new (27, std::align_val_t{64}, std::nothrow);
  ::operator delete (keep, std::align_val_t{64}, std::nothrow);
  keep = ::operator new[](28, std::align_val_t{64}, std::nothrow);
  ::operator delete[](keep, std::align_val_t{64}, std::nothrow);
  keep = std::malloc(29);
  std::free(keep);
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void middle() {
  allocate_all();
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) int recurse(int depth) {
  if (depth > 0) {
    const int result = recurse(depth - 1);
    asm volatile("" ::: "memory");
    return result + 1;
  }
  middle();
  asm volatile("" ::: "memory");
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1) {
    recurse(static_cast<int>(std::strtol(argv[1], nullptr, 10)));
  } else {
    middle();
  }
  // Printed last: the first allocations of the process must be the operators' (stdio allocates).
  std::printf("middle=%p\n", reinterpret_cast<void*>(&middle));
  return 0;
}
