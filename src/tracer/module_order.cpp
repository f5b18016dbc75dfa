#include "tracer/module_order.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstddef>
#include <cstring>

namespace rtrace::tracer {
namespace {

constexpr std::size_t kMaxModules = 16;

struct ModulePaths {
  char path[kMaxModules][PATH_MAX];
  std::size_t count = 0;
};

// Static (the set-up may run before the heap can be used) and constant-initialized: the set-up may
// run before this library's constructors (a library the program needs allocates in its own), and
// the first dlopen below runs them; a dynamic initializer would then zero the count mid-loop and
// leave the later modules to register at their first call, out of -e order.
constinit ModulePaths g_paths{};

// A tracing module: librtrace-<name>.so, but not main (the session itself) nor the context
// library (a library programs link against).
bool is_module(const char* path) {
  const char* slash = std::strrchr(path, '/');
  const char* name = slash != nullptr ? slash + 1 : path;
  return std::strncmp(name, "librtrace-", 10) == 0 && std::strcmp(name, "librtrace-main.so") != 0 &&
         std::strcmp(name, "librtrace-context.so") != 0;
}

// Collects the paths only: loading calls (dlopen) are not made while the loader's list is walked.
int collect(dl_phdr_info* info, std::size_t, void* data) {
  auto& paths = *static_cast<ModulePaths*>(data);
  if (info->dlpi_name == nullptr || !is_module(info->dlpi_name) || paths.count >= kMaxModules) {
    return 0;
  }
  const std::size_t length = std::strlen(info->dlpi_name);
  if (length < PATH_MAX) {
    std::memcpy(paths.path[paths.count++], info->dlpi_name, length + 1);
  }
  return 0;
}

}  // namespace

void register_preloaded_modules() {
  g_paths.count = 0;
  ::dl_iterate_phdr(collect, &g_paths);
  for (std::size_t i = 0; i < g_paths.count; ++i) {
    void* handle = ::dlopen(g_paths.path[i], RTLD_NOLOAD | RTLD_LAZY);
    if (handle == nullptr) {
      continue;
    }
    // dlsym on the module's own handle finds its own definition first.
    if (void* symbol = ::dlsym(handle, kModuleRegisterSymbol)) {
      reinterpret_cast<void (*)()>(symbol)();
    }
    ::dlclose(handle);
  }
}

}  // namespace rtrace::tracer
