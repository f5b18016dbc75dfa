#include "recorder/module_catalog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace rtrace::recorder {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "librtrace-";
constexpr std::string_view kOriginalPrefix = "libsp-rtrace-";
constexpr std::string_view kSuffix = ".so";

// What the modules we build do: one line per rtrace_tracer_module call of the build
// (cmake/TracerModule.cmake writes the table). A module from elsewhere is listed without a
// description.
struct KnownModule {
  std::string_view alias;
  std::string_view description;
};
constexpr KnownModule kKnownModules[] = {
#include "rtrace/tracer_module_catalogue.inc"
};

std::string describe(std::string_view alias) {
  for (const KnownModule& module : kKnownModules) {
    if (module.alias == alias) {
      return std::string(module.description);
    }
  }
  return {};
}

// librtrace-context.so sits beside the modules but is a library programs link against (the
// context API), not something to preload.
constexpr std::string_view kContextLibrary = "librtrace-context.so";

bool is_module_file(std::string_view file) {
  return file.size() > kPrefix.size() + kSuffix.size() && file.starts_with(kPrefix) &&
         file.ends_with(kSuffix) && file != kContextLibrary;
}

std::string alias_of(std::string_view file) {
  return std::string(file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size()));
}

// The file name a user's module name stands for.
std::string file_name_for(std::string_view name) {
  if (name.starts_with(kOriginalPrefix)) {
    name.remove_prefix(kOriginalPrefix.size());
  }
  if (name.starts_with(kPrefix)) {
    name.remove_prefix(kPrefix.size());
  }
  if (name.ends_with(kSuffix)) {
    name.remove_suffix(kSuffix.size());
  }
  return std::string(kPrefix) + std::string(name) + std::string(kSuffix);
}

bool is_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

}  // namespace

std::string module_directory() {
  if (const char* forced = std::getenv("RTRACE_LIBDIR"); forced != nullptr && *forced != '\0') {
    return forced;
  }
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) {
    return "lib";
  }
  // Installed: where the install rules put the modules, relative to the commands (the top-level
  // CMakeLists.txt defines it, e.g. ../lib/rtrace). In the build tree: build/bin/../lib.
  const fs::path installed = exe.parent_path() / RTRACE_MODULE_DIR_FROM_BIN;
  if (is_file(installed / kMainModule)) {
    return installed.lexically_normal().string();
  }
  return (exe.parent_path().parent_path() / "lib").string();
}

std::vector<ModuleFile> list_modules(const std::string& directory) {
  std::vector<ModuleFile> modules;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    const std::string file = entry.path().filename().string();
    if (!is_module_file(file) || !is_file(entry.path())) {
      continue;
    }
    std::string alias = alias_of(file);
    std::string description = describe(alias);
    modules.push_back(
        {std::move(alias), file, fs::absolute(entry.path()).string(), std::move(description)});
  }
  std::sort(modules.begin(), modules.end(), [](const ModuleFile& a, const ModuleFile& b) {
    const bool a_main = a.alias == "main";
    const bool b_main = b.alias == "main";
    if (a_main != b_main) {
      return a_main;
    }
    return a.alias < b.alias;
  });
  return modules;
}

std::string find_module(const std::string& directory, const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (!is_file(name)) {
      throw std::invalid_argument(name + ": no such tracing module");
    }
    return fs::absolute(name).string();
  }
  const fs::path path = fs::absolute(fs::path(directory) / file_name_for(name));
  if (name.empty() || !is_file(path)) {
    // A list written as for other tools (memory,file) is a common slip: say what separates them.
    const std::string hint =
        name.find(',') != std::string::npos ? "; modules are separated by ':', as memory:file" : "";
    throw std::invalid_argument("unknown tracing module '" + name + "' (no " + path.string() +
                                hint + "; -l lists the modules)");
  }
  return path.string();
}

bool names_module(std::string_view names, std::string_view alias) {
  const std::string wanted = file_name_for(alias);
  while (!names.empty()) {
    const std::size_t colon = names.find(':');
    const std::string_view name = names.substr(0, colon);
    names = colon == std::string_view::npos ? std::string_view{} : names.substr(colon + 1);
    if (!name.empty() && file_name_for(fs::path(name).filename().string()) == wanted) {
      return true;
    }
  }
  return false;
}

std::string audit_library(const std::string& directory) {
  const fs::path library = fs::absolute(fs::path(directory) / kAuditLinkerLibrary);
  if (!is_file(library)) {
    throw std::invalid_argument("the audit library " + library.string() +
                                " does not exist (build it, or point RTRACE_LIBDIR to it)");
  }
  return library.string();
}

std::string preload_value(const std::string& directory, std::string_view names,
                          std::string_view existing) {
  const fs::path main = fs::absolute(fs::path(directory) / kMainModule);
  if (!is_file(main)) {
    throw std::invalid_argument("the tracer library " + main.string() +
                                " does not exist (build it, or point RTRACE_LIBDIR to it)");
  }
  std::vector<std::string> paths{main.string()};
  while (!names.empty()) {
    const std::size_t colon = names.find(':');
    const std::string_view name = names.substr(0, colon);
    names = colon == std::string_view::npos ? std::string_view{} : names.substr(colon + 1);
    if (name.empty()) {
      continue;
    }
    std::string path = find_module(directory, std::string(name));
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
      paths.push_back(path);
    }
  }
  std::string value;
  for (const std::string& path : paths) {
    if (!value.empty()) {
      value += ':';
    }
    value += path;
  }
  if (!existing.empty()) {
    // Appended piece by piece: `":" + std::string(existing)` trips GCC 12's false -Wrestrict
    // at -O3 (GCC bug 105329).
    value += ':';
    value += existing;
  }
  return value;
}

}  // namespace rtrace::recorder
