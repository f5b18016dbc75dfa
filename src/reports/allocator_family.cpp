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

// jemalloc's non-standard API: rallocx and xallocx both release and allocate.
constexpr std::array<std::string_view, 3> kJemallocAllocators{"mallocx", "rallocx", "xallocx"};
constexpr std::array<std::string_view, 4> kJemallocReleases{"rallocx", "xallocx", "dallocx",
                                                            "sdallocx"};

// tcmalloc's C++ forms belong to C++'s families.
constexpr std::array<std::string_view, 5> kTcmallocNew{"tc_new", "tc_new_nothrow", "tc_delete",
                                                       "tc_delete_sized", "tc_delete_nothrow"};
constexpr std::array<std::string_view, 5> kTcmallocNewArray{
    "tc_newarray", "tc_newarray_nothrow", "tc_deletearray", "tc_deletearray_sized",
    "tc_deletearray_nothrow"};

bool one_of(std::string_view function, std::span<const std::string_view> names) {
  return std::ranges::find(names, function) != names.end();
}

// The family of the other allocators' own functions, for allocations and releases alike.
AllocatorFamily library_family(std::string_view function,
                               std::span<const std::string_view> jemalloc_names) {
  if (function.starts_with("mi_")) {
    return AllocatorFamily::Mimalloc;
  }
  if (one_of(function, jemalloc_names)) {
    return AllocatorFamily::Jemalloc;
  }
  if (one_of(function, kTcmallocNewArray)) {
    return AllocatorFamily::NewArray;
  }
  if (one_of(function, kTcmallocNew)) {
    return AllocatorFamily::New;
  }
  if (function.starts_with("tc_")) {
    return AllocatorFamily::Tcmalloc;
  }
  return AllocatorFamily::Unknown;
}

bool replaces_malloc(AllocatorFamily family) {
  return family == AllocatorFamily::Mimalloc || family == AllocatorFamily::Jemalloc ||
         family == AllocatorFamily::Tcmalloc;
}

}  // namespace

AllocatorFamily allocation_family(std::string_view function) {
  if (function.starts_with("operator new[]")) {
    return AllocatorFamily::NewArray;
  }
  if (function.starts_with("operator new")) {
    return AllocatorFamily::New;
  }
  if (one_of(function, kMallocAllocators)) {
    return AllocatorFamily::Malloc;
  }
  return library_family(function, kJemallocAllocators);
}

AllocatorFamily release_family(std::string_view function) {
  if (function.starts_with("operator delete[]")) {
    return AllocatorFamily::NewArray;
  }
  if (function.starts_with("operator delete")) {
    return AllocatorFamily::New;
  }
  if (one_of(function, kMallocReleases)) {
    return AllocatorFamily::Malloc;
  }
  return library_family(function, kJemallocReleases);
}

std::string_view allocator_name(AllocatorFamily family) {
  switch (family) {
    case AllocatorFamily::Malloc:
      return "malloc";
    case AllocatorFamily::New:
    case AllocatorFamily::NewArray:
      return "operator new";
    case AllocatorFamily::Mimalloc:
      return "mimalloc";
    case AllocatorFamily::Jemalloc:
      return "jemalloc";
    case AllocatorFamily::Tcmalloc:
      return "tcmalloc";
    case AllocatorFamily::Unknown:
      break;
  }
  return {};
}

bool mismatched(AllocatorFamily allocated, AllocatorFamily released) {
  if (allocated == AllocatorFamily::Unknown || released == AllocatorFamily::Unknown ||
      allocated == released) {
    return false;
  }
  const bool malloc_and_library =
      (allocated == AllocatorFamily::Malloc && replaces_malloc(released)) ||
      (released == AllocatorFamily::Malloc && replaces_malloc(allocated));
  return !malloc_and_library;
}

}  // namespace rtrace::reports
