#include "tracer/modules/memory/allocator_entry_point.h"

namespace rtrace::tracer {

void* fallback_aligned(std::size_t alignment, std::size_t size) {
  if (alignment < sizeof(void*)) {
    alignment = sizeof(void*);  // posix_memalign's least alignment; smaller powers divide it
  }
  void* pointer = nullptr;
  return g_real.posix_memalign(&pointer, alignment, size) == 0 ? pointer : nullptr;
}

}  // namespace rtrace::tracer
