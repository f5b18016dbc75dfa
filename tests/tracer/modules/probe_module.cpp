// librtrace-probe.so: a test-only tracing module that wraps `close`, as another module may
// (shmposix does). Preloaded after (or before) the file module, it must still see the program's
// close, and both modules' releases must come out, each once, in the order the wrappers run.
// Resource type `closed`; the record is a release named "probe-close".
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer/api/module_sdk.h"

namespace {

using rtrace::tracer::ModuleStart;
using rtrace::tracer::OwnGuard;
using rtrace::tracer::ReleaseRecorder;
using rtrace::tracer::tracing_now;

struct ProbeModule;

#define REAL_FUNCTIONS(FUNCTION, SYMBOL) FUNCTION(close)
RTRACE_REAL_FUNCTIONS(RealFunctions, REAL_FUNCTIONS);
constinit RealFunctions g_real;
std::uint32_t g_closed_resource = 1;

bool resolve() {
  g_real.find_all();
  return g_real.close != nullptr;
}

void register_probe() {
  rtrace_register_module("probe", 1, 0);
  g_closed_resource = rtrace_register_resource("closed", "descriptor closed, seen by the probe", 0);
  rtrace_module_ready();
}

constinit ModuleStart<ProbeModule> g_start{resolve, register_probe};

}  // namespace

extern "C" RTRACE_EXPORT void rtrace_module_register() {
  g_start.register_in_order();
}

extern "C" RTRACE_EXPORT int close(int fd) {
  if (!g_start.ready_or_wait()) {
    return static_cast<int>(::syscall(SYS_close, fd));
  }
  if (!tracing_now<ProbeModule>()) {
    return g_real.close(fd);
  }
  ReleaseRecorder release(g_closed_resource, "probe-close", static_cast<std::uint64_t>(fd),
                          __builtin_return_address(0));
  OwnGuard<ProbeModule> guard;
  const int result = g_real.close(fd);
  if (result == 0) {
    release.commit();
  } else {
    release.cancel();
  }
  return result;
}

namespace {

__attribute__((constructor)) void probe_init() {
  g_start.finish_registration();
}

}  // namespace
