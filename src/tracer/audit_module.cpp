// librtrace-audit.so: the recording half of the audit module (`rtrace record -e audit --audit
// 'g_*:gtk_widget_show'`), which traces calls of any exported functions named by patterns. The
// other half is rtrace-audit-linker.so (audit_linker.cpp), loaded by the dynamic linker through
// LD_AUDIT: it chooses the calls (its la_symbind64 matches each symbol the program binds against
// the patterns) and hands each call of a chosen function to rtrace_audit_call below.
//
// Why two libraries: the dynamic linker loads an audit library into a link namespace of its own,
// with its own copy of libc, where librtrace-main.so (the session, the rings, the connection)
// must not run a second time. So the audit library does no tracing itself; it finds this
// preloaded module in the program's namespace when the linker reports it loaded (la_objopen),
// looks rtrace_audit_call up in it with dlsym and calls it: the record is then made by the one
// session of the process, in the program's namespace, like every other module's.
//
// One resource type, `audit` ("virtual audit resource", as the original's), and calls that
// neither allocate nor release (kind 0: `name({call})` in text): `-l` never lists them, `-c`
// counts them per backtrace, `rtrace report` lists them per function under CHECKPOINTS.
#include "tracer/module_sdk.h"

namespace rtrace::tracer {
namespace {

constinit std::uint32_t g_audit_resource = 1;
// The CALL kind of a call that neither allocates nor releases (the protocol's 1 and 2 do).
constexpr std::uint32_t kCallNeither = 0;

bool resolve_nothing() {
  return true;  // the module wraps no function: the audit library brings the calls
}

void register_audit_module() {
  rtrace_register_module("audit", 1, 0);
  g_audit_resource = rtrace_register_resource("audit", "virtual audit resource", 0);
  rtrace_module_ready();
}

struct AuditModule;  // the module's tag for ModuleStart
constinit ModuleStart<AuditModule> g_audit_start{resolve_nothing, register_audit_module};

}  // namespace
}  // namespace rtrace::tracer

// Called by rtrace-audit-linker.so's la_pltenter for each call of a chosen function, before the
// function runs: `name` is the symbol, `return_address` the call's return address in its caller
// (frame 0 of the backtrace).
extern "C" RTRACE_EXPORT void rtrace_audit_call(const char* name, const void* return_address) {
  using rtrace::tracer::g_audit_start;
  if (!g_audit_start.ready() || !rtrace::tracer::tracing_now<rtrace::tracer::AuditModule>()) {
    return;
  }
  const RtraceCall call{
      rtrace::tracer::g_audit_resource, rtrace::tracer::kCallNeither, name, 0, 0, nullptr, 0};
  rtrace_record(&call, return_address);
}

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h), so that the
// resource type ids follow the order of -e.
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_audit_start.register_in_order();
}

namespace {

__attribute__((constructor)) void audit_module_init() {
  rtrace::tracer::g_audit_start.finish_registration();
}

}  // namespace
