// What a trace file is called, for both who name one: the recorder (`NAME.PID.rtrace` in -o's
// directory, recorder/trace_file_names.h) and a traced process in managed mode (-m), which opens
// its own files (tracer/output/trace_output.cpp). sp-rtrace's binary format keeps the original's
// names, `PID-N.rtrace`.
#pragma once

#include <cstddef>
#include <string_view>

namespace rtrace::trace_file_name {

// The name field of a process whose argv[0] is empty, "." or "..".
inline constexpr std::string_view kUnknownProgram = "unknown";
// A name field longer than this is cut: a file name has at most NAME_MAX (255) bytes.
inline constexpr std::size_t kMaxFieldBytes = 100;
inline constexpr std::string_view kSuffix = ".rtrace";

// The program name as a file name field: `argv0`'s last component, cut to kMaxFieldBytes, or
// kUnknownProgram. A view into `argv0` or a constant: nothing is allocated and nothing can throw
// (the tracer names its files inside the traced process, without the C++ runtime).
constexpr std::string_view program_field(std::string_view argv0) {
  const std::size_t slash = argv0.rfind('/');
  const std::size_t start = slash == std::string_view::npos ? 0 : slash + 1;
  const std::string_view name(argv0.data() + start, argv0.size() - start);
  if (name.empty() || name == "." || name == "..") {
    return kUnknownProgram;
  }
  return {name.data(), name.size() < kMaxFieldBytes ? name.size() : kMaxFieldBytes};
}

}  // namespace rtrace::trace_file_name
