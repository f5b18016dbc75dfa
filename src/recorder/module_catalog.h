// The tracing modules: shared libraries named librtrace-<alias>.so in one directory.
//
// The directory is RTRACE_LIBDIR when set, otherwise ../lib beside the running executable, which
// is right both in the build tree (build/bin/rtrace, build/lib/librtrace-*.so) and in an install.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rtrace::recorder {

inline constexpr std::string_view kMainModule = "librtrace-main.so";

struct ModuleFile {
  std::string alias;  // "memory"
  std::string file;   // "librtrace-memory.so"
  std::string path;   // absolute path
  std::string description;
};

// Where the modules live (see above).
std::string module_directory();

// Every librtrace-*.so in `directory`, the main module first, the rest by alias.
std::vector<ModuleFile> list_modules(const std::string& directory);

// The library a user named in -e: an alias ("memory"), a file name ("librtrace-memory.so", or the
// original's "libsp-rtrace-memory.so"), or a path containing '/' (used as it is). Throws
// std::invalid_argument naming the module when there is no such library.
std::string find_module(const std::string& directory, const std::string& name);

// The LD_PRELOAD value: the main module, then the modules of `names` ("memory:file" as -e takes
// them, in the user's order, without repeats), then whatever `existing` held. Throws like
// find_module, also when the main module itself is missing.
std::string preload_value(const std::string& directory, std::string_view names,
                          std::string_view existing);

}  // namespace rtrace::recorder
