#include "tracer/core/signal_stack.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>

namespace rtrace::tracer {
namespace {

// The crash path (session_finish: wait, merge the rings, write) needs a few KiB; the rest leaves
// room for the dynamic loader resolving a symbol lazily on the way.
constexpr std::size_t kStackSize = std::size_t{64} * 1024;

std::size_t page_size() {
  const long size = ::sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<std::size_t>(size) : 4096;
}

}  // namespace

void* signal_stack_create() {
  const std::size_t guard = page_size();
  void* memory = ::mmap(nullptr, guard + kStackSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED) {
    return nullptr;
  }
  // The stack grows down: a handler that overflows it faults instead of writing below it.
  ::mprotect(memory, guard, PROT_NONE);
  return static_cast<char*>(memory) + guard;
}

bool signal_stack_adopt(void* stack) {
  if (stack == nullptr) {
    return false;
  }
  stack_t current{};
  if (::sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) {
    return false;
  }
  stack_t ours{};
  ours.ss_sp = stack;
  ours.ss_size = kStackSize;
  ours.ss_flags = 0;
  return ::sigaltstack(&ours, nullptr) == 0;
}

void signal_stack_release(void* stack) {
  stack_t current{};
  if (stack == nullptr || ::sigaltstack(nullptr, &current) != 0 || current.ss_sp != stack ||
      (current.ss_flags & (SS_DISABLE | SS_ONSTACK)) != 0) {
    return;
  }
  stack_t disabled{};
  disabled.ss_flags = SS_DISABLE;
  ::sigaltstack(&disabled, nullptr);
}

}  // namespace rtrace::tracer
