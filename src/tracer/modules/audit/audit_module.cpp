// librtrace-audit.so: the recording half of the audit module (`rtrace record -e audit --audit
// 'g_*:gtk_widget_show'`), which traces calls of any exported functions named by patterns. The
// other half is rtrace-audit-linker.so (audit_linker.cpp), loaded by the dynamic linker through
// LD_AUDIT: it chooses the calls (its la_symbind64 matches each symbol the program binds against
// the patterns, binding those to trampolines) and hands each of their calls to rtrace_audit_call,
// with the caller's stack and frame pointers.
//
// Why two libraries: the dynamic linker loads an audit library into a link namespace of its own,
// with its own copy of libc, where librtrace-main.so (the session, the rings, the connection)
// must not run a second time. So the audit library does no tracing itself: once the linker has
// reported this module loaded (la_objopen), it looks rtrace_audit_call up with dlsym in the
// program's global scope and calls it. The record is made by the one session of the process, in
// the program's namespace, like every other module's.
//
// One resource type, `audit` ("virtual audit resource", as the original's), and calls that
// neither allocate nor release (kind 0: `name({call})` in text): `-l` never lists them, `-c`
// counts them per backtrace, `rtrace report` lists them per function under CHECKPOINTS. (The
// original recorded each call as an allocation of size 1 of id 1, which leak reports then list.)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <ucontext.h>

#include "tracer/api/module_sdk.h"
#include "tracer/core/options.h"

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

// The caller's backtrace, at most `depth` frames. The session's unwinder starts from where it
// runs, which here is below the linker's audit call: libunwind finds no unwind tables for the
// audit library's frame (dl_iterate_phdr shows only the caller's link namespace), so it would
// stop there. So the unwinding starts from the caller's own registers instead: its instruction
// pointer is the return address, its stack pointer the one above it.
std::uint32_t unwind_from_caller(const void* const* stack_pointer, std::uintptr_t frame_pointer,
                                 std::uintptr_t* frames, std::uint32_t depth) {
  if (depth == 0) {
    return 0;
  }
  unw_context_t context;  // a ucontext_t on x86-64
  unw_getcontext(&context);
  context.uc_mcontext.gregs[REG_RIP] = reinterpret_cast<greg_t>(stack_pointer[0]);
  context.uc_mcontext.gregs[REG_RSP] = reinterpret_cast<greg_t>(stack_pointer + 1);
  context.uc_mcontext.gregs[REG_RBP] = static_cast<greg_t>(frame_pointer);
  frames[0] = reinterpret_cast<std::uintptr_t>(stack_pointer[0]);
  std::uint32_t count = 1;
  unw_cursor_t cursor;
  if (unw_init_local(&cursor, &context) != 0) {
    return count;
  }
  while (count < depth && unw_step(&cursor) > 0) {
    unw_word_t ip = 0;
    unw_get_reg(&cursor, UNW_REG_IP, &ip);
    frames[count++] = ip;
  }
  return count;
}

struct AuditModule;  // the module's tag for ModuleStart
constinit ModuleStart<AuditModule> g_audit_start{resolve_nothing, register_audit_module};

}  // namespace
}  // namespace rtrace::tracer

// Called through rtrace-audit-linker.so's trampolines for each call of a chosen function, before
// the function runs: `name` is the symbol, `stack_pointer` the stack pointer at the function's
// entry (it points at the return address into the caller: frame 0), `frame_pointer` the caller's
// frame pointer register.
extern "C" RTRACE_EXPORT void rtrace_audit_call(const char* name, const void* const* stack_pointer,
                                                std::uintptr_t frame_pointer) {
  using rtrace::tracer::g_audit_start;
  if (!g_audit_start.ready() || !rtrace::tracer::tracing_now<rtrace::tracer::AuditModule>()) {
    return;
  }
  rtrace::tracer::GuardScope guard;  // unwinding is the tracer's own work
  const RtraceCall call{
      rtrace::tracer::g_audit_resource, rtrace::tracer::kCallNeither, name, 0, 0, nullptr, 0};
  std::uintptr_t frames[rtrace::tracer::TracerOptions::kMaxDepth];
  const std::uint32_t count = rtrace::tracer::unwind_from_caller(
      stack_pointer, frame_pointer, frames, rtrace_backtrace_depth(&call));
  rtrace_record_with_backtrace(&call, frames, count);
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
