#include "tracer/session/module_order.h"

#include <link.h>

#include <cstddef>
#include <cstring>

#include "tracer/core/loaded_symbol.h"

namespace rtrace::tracer {
namespace {

constexpr std::size_t kMaxModules = 16;

using RegisterFunction = void (*)();

struct ModuleRegistrations {
  RegisterFunction function[kMaxModules];
  std::size_t count = 0;
};

// Static (the set-up may run before the heap can be used) and constant-initialized: the set-up may
// run before this library's constructors (a library the program needs allocates in its own); a
// dynamic initializer would then zero the count mid-loop and leave the later modules to register
// at their first call, out of -e order.
constinit ModuleRegistrations g_modules{};

// A tracing module: librtrace-<name>.so, but not main (the session itself) nor the context
// library (a library programs link against, loaded by its SONAME librtrace-context.so.0).
bool is_module(const char* path) {
  const char* slash = std::strrchr(path, '/');
  const char* name = slash != nullptr ? slash + 1 : path;
  return std::strncmp(name, "librtrace-", 10) == 0 && std::strcmp(name, "librtrace-main.so") != 0 &&
         std::strncmp(name, "librtrace-context.so", 20) != 0;
}

// Collects each module's own rtrace_module_register from its symbol table: not dlopen+dlsym on
// it, which allocates (loaded_symbol.h). The functions are called after the walk, not while the
// loader's list is locked.
int collect(dl_phdr_info* info, std::size_t, void* data) {
  auto& modules = *static_cast<ModuleRegistrations*>(data);
  if (info->dlpi_name == nullptr || !is_module(info->dlpi_name) || modules.count >= kMaxModules) {
    return 0;
  }
  if (void* symbol = find_loaded_symbol(*info, kModuleRegisterSymbol)) {
    modules.function[modules.count++] = reinterpret_cast<RegisterFunction>(symbol);
  }
  return 0;
}

}  // namespace

void register_preloaded_modules() {
  g_modules.count = 0;
  ::dl_iterate_phdr(collect, &g_modules);
  for (std::size_t i = 0; i < g_modules.count; ++i) {
    g_modules.function[i]();
  }
}

}  // namespace rtrace::tracer
