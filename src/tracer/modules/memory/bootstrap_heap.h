// Memory for the allocations made before the real allocator is known (dlsym itself calls
// calloc). A lock-free bump allocator over a static array; nothing in it is ever reused.
#pragma once

#include <cstddef>

namespace rtrace::tracer {

void* bootstrap_allocate(std::size_t size, std::size_t alignment);
bool bootstrap_owns(const void* pointer);
// The size asked for when `pointer` was allocated.
std::size_t bootstrap_size(const void* pointer);

}  // namespace rtrace::tracer
