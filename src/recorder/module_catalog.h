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
// The audit module's second half, loaded by the dynamic linker (LD_AUDIT), not preloaded.
inline constexpr std::string_view kAuditLinkerLibrary = "rtrace-audit-linker.so";

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

// True when `names` (as -e takes them) names the module `alias` (by alias, file name or path).
bool names_module(std::string_view names, std::string_view alias);

// The audit module's dynamic linker audit library (the LD_AUDIT value), beside the modules in
// `directory`. Throws std::invalid_argument when it is missing.
std::string audit_library(const std::string& directory);

// The LD_PRELOAD value: the main module, then the modules of `names` ("memory:file" as -e takes
// them, in the user's order, without repeats), then whatever `existing` held. Throws like
// find_module, also when the main module itself is missing.
std::string preload_value(const std::string& directory, std::string_view names,
                          std::string_view existing);

}  // namespace rtrace::recorder
