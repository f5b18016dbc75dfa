// librtrace-context.so: the context API for programs that run without the tracer. It keeps the
// same bookkeeping as the tracer's versions (which take precedence when librtrace-main.so is
// preloaded) so that a program behaves the same traced or not, and records nothing.
#include <atomic>
#include <cstdint>

#include "rtrace/sp_rtrace_context.h"

namespace {

std::atomic<unsigned int> g_created{0};
thread_local unsigned int t_mask = 0;

bool known(unsigned int context_id) {
  const unsigned int count = g_created.load(std::memory_order_relaxed);
  const unsigned int all = count >= 32 ? UINT32_MAX : (1U << count) - 1;
  return context_id != 0 && (context_id & ~all) == 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) unsigned int sp_context_create(const char* /*name*/) {
  unsigned int index = g_created.load();
  do {
    if (index >= SP_CONTEXT_MAX) {
      return 0;
    }
  } while (!g_created.compare_exchange_weak(index, index + 1));
  return 1U << index;
}

__attribute__((visibility("default"))) void sp_context_enter(unsigned int context_id) {
  if (known(context_id)) {
    t_mask |= context_id;
  }
}

__attribute__((visibility("default"))) void sp_context_exit(unsigned int context_id) {
  if (known(context_id)) {
    t_mask &= ~context_id;
  }
}

__attribute__((visibility("default"))) unsigned int sp_context_get_mask() {
  return t_mask;
}
}
