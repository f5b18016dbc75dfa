#include "reports/allocator_family.h"

#include <algorithm>
#include <array>
#include <span>

namespace rtrace::reports {
namespace {

// Functions of the C allocator (and the C library's own allocating calls) whose blocks `free`
// releases. realloc both releases and allocates.
constexpr std::array<std::string_view, 11> kMallocAllocators{
    "malloc",        "calloc", "realloc", "reallocarray", "memalign", "posix_memalign",
    "aligned_alloc", "valloc", "pvalloc", "strdup",       "strndup"};
constexpr std::array<std::string_view, 3> kMallocReleases{"free", "realloc", "reallocarray"};

bool one_of(std::string_view function, std::span<const std::string_view> names) {
  return std::ranges::find(names, function) != names.end();
}

}  // namespace

AllocatorFamily allocation_family(std::string_view function) {
  if (function.starts_with("operator new[]")) {
    return AllocatorFamily::NewArray;
  }
  if (function.starts_with("operator new")) {
    return AllocatorFamily::New;
  }
  return one_of(function, kMallocAllocators) ? AllocatorFamily::Malloc : AllocatorFamily::Unknown;
}

AllocatorFamily release_family(std::string_view function) {
  if (function.starts_with("operator delete[]")) {
    return AllocatorFamily::NewArray;
  }
  if (function.starts_with("operator delete")) {
    return AllocatorFamily::New;
  }
  return one_of(function, kMallocReleases) ? AllocatorFamily::Malloc : AllocatorFamily::Unknown;
}

}  // namespace rtrace::reports
