#include "filters/default_suppressions.h"

#include <filesystem>
#include <stdexcept>

namespace rtrace {
namespace fs = std::filesystem;

std::string default_suppressions_path() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  // Installed: RTRACE_DATA_DIR_FROM_BIN is share/rtrace relative to bin/
  // (src/filters/CMakeLists.txt computes it from the install directories).
  if (!error) {
    const fs::path installed =
        exe.parent_path() / RTRACE_DATA_DIR_FROM_BIN / kDefaultSuppressionsName;
    if (fs::is_regular_file(installed, error)) {
      return installed.lexically_normal().string();
    }
  }
  // The build tree: its commands (and the tests' own builds of rtrace) lie in several folders,
  // the copy in one.
  const fs::path built = fs::path(RTRACE_BUILD_DATA_DIR) / kDefaultSuppressionsName;
  if (fs::is_regular_file(built, error)) {
    return built.string();
  }
  throw std::runtime_error(
      "the default suppressions file " + std::string(kDefaultSuppressionsName) +
      " is missing beside rtrace (reinstall it, or use --no-default-suppressions)");
}

}  // namespace rtrace
