// librtrace-getpid.so: a test-only tracing module, as small as a module gets. Each getpid call
// is recorded as an allocation of type `getpid` and size 1 whose id is the call's number in the
// process (1, 2, ...), never released: a program that calls getpid three times leaks three.
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "tracer/api/module_sdk.h"

namespace {

using rtrace::tracer::ModuleStart;
using rtrace::tracer::OwnGuard;
using rtrace::tracer::record_allocation;
using rtrace::tracer::tracing_now;

struct GetpidModule;

#define REAL_FUNCTIONS(FUNCTION, SYMBOL) FUNCTION(getpid)
RTRACE_REAL_FUNCTIONS(RealFunctions, REAL_FUNCTIONS);
constinit RealFunctions g_real;
std::uint32_t g_getpid_resource = 0;
constinit std::atomic<std::uint64_t> g_calls{0};

bool resolve() {
  g_real.find_all();
  return g_real.getpid != nullptr;
}

void register_getpid() {
  rtrace_register_module("getpid", 1, 0);
  g_getpid_resource = rtrace_register_resource("getpid", "getpid call", 0);
  rtrace_module_ready();
}

constinit ModuleStart<GetpidModule> g_start{resolve, register_getpid};

}  // namespace

extern "C" RTRACE_EXPORT void rtrace_module_register() {
  g_start.register_in_order();
}

extern "C" RTRACE_EXPORT pid_t getpid() {
  if (!g_start.ready_or_wait()) {
    return static_cast<pid_t>(::syscall(SYS_getpid));
  }
  if (!tracing_now<GetpidModule>()) {
    return g_real.getpid();
  }
  pid_t pid = 0;
  {
    OwnGuard<GetpidModule> guard;
    pid = g_real.getpid();
  }
  record_allocation(g_getpid_resource, "getpid", 1, g_calls.fetch_add(1) + 1,
                    __builtin_return_address(0));
  return pid;
}

namespace {

__attribute__((constructor)) void getpid_init() {
  g_start.finish_registration();
}

}  // namespace
