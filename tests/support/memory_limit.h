// A shell prefix that runs a command with its memory bounded, so that a test of bounded memory
// fails instead of exhausting the machine.
#pragma once

#include <cstdint>
#include <string>

#include "support/address_sanitizer.h"

namespace rtrace::test {

// Bounds the command's address space to `megabytes` (prlimit --as). Under AddressSanitizer, whose
// shadow memory alone takes terabytes of address space, bounds its resident memory instead, with
// ASan's own limit.
inline std::string memory_bounded(unsigned megabytes) {
#ifdef RTRACE_UNDER_ASAN
  return "ASAN_OPTIONS=\"$ASAN_OPTIONS:hard_rss_limit_mb=" + std::to_string(megabytes) + "\" ";
#else
  return "prlimit --as=" + std::to_string(std::uint64_t{megabytes} << 20) + " ";
#endif
}

}  // namespace rtrace::test
