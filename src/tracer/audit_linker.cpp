// rtrace-audit-linker.so: the dynamic linker audit library of the audit module (LD_AUDIT, see
// `man rtld-audit`), the half that chooses which calls are traced. audit_module.cpp, the
// preloaded half, says why there are two and records the calls.
//
//  * la_version: reads the patterns (RTRACE_OPTIONS `audit=glob[:glob...]`, written by
//    `rtrace record --audit`).
//  * la_objopen: audits the calls made by every object but rtrace's own libraries (the tracer's
//    calls are nobody's), and notes where librtrace-audit.so, the recording half, is.
//  * la_symbind64: when the program binds a symbol, keeps the linker's PLT entry hook for the
//    symbols that match a pattern; every other symbol is bound directly, at no further cost.
//  * la_x86_64_gnu_pltenter: each call of a chosen function through the PLT, before it runs:
//    hands the name and the caller's return address to rtrace_audit_call.
//
// Limits (the linker's): only calls through a lazily bound PLT entry are seen, so not those of
// objects linked with `-z now` or run with LD_BIND_NOW, nor those compiled with -fno-plt, nor
// a library's calls of its own functions; the linker sends every call of a chosen function
// through its slow path (registers saved and restored).
//
// The library lives in the linker's audit namespace, with its own libc: it allocates nothing,
// and links neither librtrace-main.so nor the C++ runtime.
#include <dlfcn.h>
#include <fnmatch.h>
#include <link.h>
#include <stdlib.h>

#include <atomic>
#include <cstring>

#include "tracer/options.h"
#include "tracer/tracer_api.h"

namespace {

using AuditCall = void (*)(const char* name, const void* const* stack_pointer,
                           std::uintptr_t frame_pointer);

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

// rtrace_audit_call, looked up at the first chosen call (the program is running by then: the
// module is loaded and relocated); null while the module is not loaded.
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

}  // namespace

extern "C" {

RTRACE_EXPORT unsigned int la_version(unsigned int version) {
  const rtrace::tracer::TracerOptions options =
      rtrace::tracer::parse_options(::getenv("RTRACE_OPTIONS"));
  std::memcpy(g_patterns, options.audit_patterns, sizeof g_patterns);
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
  *flags |= LA_SYMB_NOPLTEXIT;
  if (g_patterns[0] == '\0' || !chosen(name)) {
    *flags |= LA_SYMB_NOPLTENTER;
  }
  return symbol->st_value;
}

RTRACE_EXPORT Elf64_Addr la_x86_64_gnu_pltenter(Elf64_Sym* symbol, unsigned int, uintptr_t*,
                                                uintptr_t*, La_x86_64_regs* registers,
                                                unsigned int*, const char* name, long int*) {
  if (const AuditCall call = audit_call()) {
    // On entry to the function the stack pointer points at the caller's return address.
    call(name, reinterpret_cast<const void* const*>(registers->lr_rsp), registers->lr_rbp);
  }
  return symbol->st_value;
}
}
