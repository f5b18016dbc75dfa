// rtrace-audit-linker.so: the dynamic linker audit library of the audit module (LD_AUDIT, see
// `man rtld-audit`), the half that chooses which calls are traced. audit_module.cpp, the
// preloaded half, says why there are two and records the calls.
//
//  * la_version: reads the patterns (RTRACE_OPTIONS `audit=glob[:glob...]`, written by
//    `rtrace record --audit`).
//  * la_objopen: audits the bindings of every object but rtrace's own libraries (the tracer's
//    calls are nobody's), and notes when librtrace-audit.so, the recording half, is loaded.
//  * la_symbind64: when an object binds a function whose name matches a pattern, binds it to a
//    trampoline of ours instead (audit_trampolines.h), which hands each call to
//    rtrace_audit_call and jumps on to the function; every other symbol is bound as usual.
//
// la_symbind64 is called for a binding the linker makes at load time (glibc 2.35 and later, the
// audit interface's version 2), not for the lazy binding of a PLT entry at its first call; so the
// recorder also sets LD_BIND_NOW (every object binds at load). The linker's own PLT hook
// (la_pltenter) is not used: it sends every call through the linker's slow path.
//
// Limits: only calls that go through the dynamic linker's bindings are seen (the PLT, or the GOT
// with -fno-plt), so not a library's calls of its own functions (glibc's, Qt's, which bind them
// inside themselves), nor a statically linked program's.
//
// The library lives in the linker's audit namespace, with its own libc: it allocates nothing,
// and links neither librtrace-main.so nor the C++ runtime.
#include <dlfcn.h>
#include <fnmatch.h>
#include <link.h>
#include <stdlib.h>

#include <atomic>
#include <cstring>

#include "protocol/tracer_environment.h"
#include "tracer/api/tracer_api.h"
#include "tracer/core/options.h"
#include "tracer/modules/audit/audit_trampolines.h"

namespace {

using AuditCall = rtrace::tracer::AuditReport;

constexpr char kRecorderLibrary[] = "/librtrace-audit.so";
constexpr char kRecorderFunction[] = "rtrace_audit_call";
constexpr char kTracerLibraryPrefix[] = "/librtrace-";

// The patterns, as RTRACE_OPTIONS gives them: globs separated by ':'.
constinit char g_patterns[rtrace::tracer::TracerOptions::kMaxAuditPatterns] = {};
// The program's own link_map, which is also a dlopen handle on its global scope (the program,
// the preloaded libraries, their dependencies); whether librtrace-audit.so is among them; its
// rtrace_audit_call once looked up there. (A preloaded library's own link_map is no handle to
// look up in: only the program's has its search list set.)
constinit std::atomic<link_map*> g_program_map{nullptr};
constinit std::atomic<bool> g_recorder_loaded{false};
constinit std::atomic<AuditCall> g_audit_call{nullptr};

bool ends_with(const char* text, const char* suffix) {
  const std::size_t length = std::strlen(text);
  const std::size_t suffix_length = std::strlen(suffix);
  return length >= suffix_length && std::strcmp(text + length - suffix_length, suffix) == 0;
}

// True when `symbol` matches one of the ':'-separated globs.
bool chosen(const char* symbol) {
  const char* pattern = g_patterns;
  char one[sizeof g_patterns];
  while (*pattern != '\0') {
    const char* end = std::strchr(pattern, ':');
    const std::size_t length =
        end != nullptr ? static_cast<std::size_t>(end - pattern) : std::strlen(pattern);
    std::memcpy(one, pattern, length);
    one[length] = '\0';
    if (length != 0 && ::fnmatch(one, symbol, 0) == 0) {
      return true;
    }
    pattern += end != nullptr ? length + 1 : length;
  }
  return false;
}

// Functions and indirect functions (strlen, memcpy: the linker hands us what the resolver chose).
bool is_function(const Elf64_Sym* symbol) {
  const unsigned type = ELF64_ST_TYPE(symbol->st_info);
  return type == STT_FUNC || type == STT_GNU_IFUNC;
}

// rtrace_audit_call, looked up at the first call of a chosen function (every object is relocated
// by then); null while the module is not loaded.
AuditCall audit_call() {
  AuditCall call = g_audit_call.load(std::memory_order_acquire);
  if (call == nullptr) {
    link_map* program = g_program_map.load(std::memory_order_acquire);
    if (program == nullptr || !g_recorder_loaded.load(std::memory_order_acquire)) {
      return nullptr;
    }
    call = reinterpret_cast<AuditCall>(::dlsym(program, kRecorderFunction));
    g_audit_call.store(call, std::memory_order_release);
  }
  return call;
}

// What every trampoline reports to: the recording half, once it is there.
void report_call(const char* name, const void* const* stack_pointer, std::uintptr_t frame_pointer) {
  if (const AuditCall call = audit_call()) {
    call(name, stack_pointer, frame_pointer);
  }
}

}  // namespace

extern "C" {

RTRACE_EXPORT unsigned int la_version(unsigned int version) {
  const rtrace::tracer::TracerOptions options =
      rtrace::tracer::parse_options(::getenv(rtrace::tracer_environment::kOptionsVariable));
  std::memcpy(g_patterns, options.audit_patterns, sizeof g_patterns);
  rtrace::tracer::set_audit_report(report_call);
  // Version 2 (glibc 2.35) calls la_symbind64 for the bindings made at load time too.
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

RTRACE_EXPORT unsigned int la_objopen(link_map* map, Lmid_t namespace_id, uintptr_t*) {
  const char* name = map->l_name != nullptr ? map->l_name : "";
  if (namespace_id == LM_ID_BASE && name[0] == '\0' &&
      g_program_map.load(std::memory_order_relaxed) == nullptr) {
    g_program_map.store(map, std::memory_order_release);  // the first object: the program
  }
  if (namespace_id == LM_ID_BASE && ends_with(name, kRecorderLibrary)) {
    g_recorder_loaded.store(true, std::memory_order_release);
  }
  if (std::strstr(name, kTracerLibraryPrefix) != nullptr) {
    return LA_FLG_BINDTO;  // the tracer's own calls are not audited
  }
  return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

RTRACE_EXPORT uintptr_t la_symbind64(Elf64_Sym* symbol, unsigned int, uintptr_t*, uintptr_t*,
                                     unsigned int* flags, const char* name) {
  *flags |= LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT;
  if (g_patterns[0] == '\0' || !is_function(symbol) || !chosen(name)) {
    return symbol->st_value;
  }
  const std::uintptr_t trampoline = rtrace::tracer::make_trampoline(symbol->st_value, name);
  return trampoline != 0 ? trampoline : symbol->st_value;
}
}
