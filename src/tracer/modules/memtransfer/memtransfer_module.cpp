// librtrace-memtransfer.so: traces the memory transfer functions (memcpy, memmove, memset,
// mempcpy, strcpy, strncpy, stpcpy, strcat, strncat, strdup, strndup, wmemcpy, wcscpy and the
// __*_chk forms that _FORTIFY_SOURCE makes the compiler emit) as the original's memtransfer
// module did: one resource type `memtransfer` ("memory transfer operations in bytes"), one
// record per call with the number of bytes the call wrote, so that `rtrace process -c` ranks
// the call sites by the bytes they copy.
//
// A transfer is not a resource that lives on. The original recorded each one as an allocation
// (id: the source address) and never released it, so `-l` reported every copy as a leak. Here
// each transfer is an allocation of its destination address immediately followed by the release
// of that same id: the -c groups and report sites keep the sizes, -l finds nothing, and any
// reader of the formats (the original post-processor too) agrees. The destination, not the
// source: many threads read one source at once (a shared constant), only a racy program writes
// one destination from two threads at once, and interleaved pairs of one id would pair wrongly.
//
// Sizes are the bytes written, terminators included (strcpy of "abc" is 4; the original counted
// 3); strncpy writes all n bytes (padding), strncat at most n + 1; the wide functions count
// bytes, not characters. A failed strdup/strndup (no memory) is not recorded.
//
// Safety: the tracer itself, libunwind and dlsym call memcpy and friends. Before the real
// functions are known the wrappers run byte loops (transfer_fallback.h); afterwards calls made
// inside the tracer (the guard) go straight to the real functions. The real functions are what
// dlsym gives, i.e. the implementations glibc's IFUNC resolvers chose for this CPU. Calls the
// compiler inlines (small constant sizes at -O2, __builtin_memcpy) never reach us: they are not
// in the trace.
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tracer/api/module_sdk.h"
#include "tracer/modules/memtransfer/transfer_fallback.h"

// NOLINTBEGIN(bugprone-reserved-identifier): glibc's names, which the compiler calls.
extern "C" {
// What the compiler calls under _FORTIFY_SOURCE; glibc's headers do not declare them.
void* __memcpy_chk(void* destination, const void* source, size_t size, size_t room);
void* __memmove_chk(void* destination, const void* source, size_t size, size_t room);
void* __memset_chk(void* destination, int value, size_t size, size_t room);
void* __mempcpy_chk(void* destination, const void* source, size_t size, size_t room);
char* __strcpy_chk(char* destination, const char* source, size_t room);
char* __strncpy_chk(char* destination, const char* source, size_t size, size_t room);
char* __stpcpy_chk(char* destination, const char* source, size_t room);
char* __strcat_chk(char* destination, const char* source, size_t room);
char* __strncat_chk(char* destination, const char* source, size_t size, size_t room);
wchar_t* __wmemcpy_chk(wchar_t* destination, const wchar_t* source, size_t size, size_t room);
wchar_t* __wcscpy_chk(wchar_t* destination, const wchar_t* source, size_t room);
}
// NOLINTEND(bugprone-reserved-identifier)

namespace rtrace::tracer {
namespace {

// The real functions, found once (never in a wrapper's hot path or a signal handler). strcpy,
// wcscpy and __strcpy_chk are done by stpcpy, wcpcpy and __stpcpy_chk (the same bytes written,
// the same check of the room), whose end gives the size without a second pass over the string.
#define RTRACE_MEMTRANSFER_REAL_FUNCTIONS(FUNCTION, SYMBOL)                                 \
  FUNCTION(memmove)                                                                         \
  FUNCTION(memset)                                                                          \
  FUNCTION(mempcpy)                                                                         \
  FUNCTION(strncpy)                                                                         \
  FUNCTION(stpcpy)                                                                          \
  FUNCTION(strcat)                                                                          \
  FUNCTION(strncat)                                                                         \
  FUNCTION(strdup)                                                                          \
  FUNCTION(strndup)                                                                         \
  FUNCTION(wmemcpy)                                                                         \
  FUNCTION(wcpcpy)                                                                          \
  SYMBOL(memcpy_chk, "__memcpy_chk", void*(void*, const void*, std::size_t, std::size_t))   \
  SYMBOL(memmove_chk, "__memmove_chk", void*(void*, const void*, std::size_t, std::size_t)) \
  SYMBOL(memset_chk, "__memset_chk", void*(void*, int, std::size_t, std::size_t))           \
  SYMBOL(mempcpy_chk, "__mempcpy_chk", void*(void*, const void*, std::size_t, std::size_t)) \
  SYMBOL(strncpy_chk, "__strncpy_chk", char*(char*, const char*, std::size_t, std::size_t)) \
  SYMBOL(stpcpy_chk, "__stpcpy_chk", char*(char*, const char*, std::size_t))                \
  SYMBOL(strcat_chk, "__strcat_chk", char*(char*, const char*, std::size_t))                \
  SYMBOL(strncat_chk, "__strncat_chk", char*(char*, const char*, std::size_t, std::size_t)) \
  SYMBOL(wmemcpy_chk, "__wmemcpy_chk",                                                      \
         wchar_t*(wchar_t*, const wchar_t*, std::size_t, std::size_t))                      \
  SYMBOL(wcscpy_chk, "__wcscpy_chk", wchar_t*(wchar_t*, const wchar_t*, std::size_t))       \
  FUNCTION(memcpy)
RTRACE_REAL_FUNCTIONS(RealTransfers, RTRACE_MEMTRANSFER_REAL_FUNCTIONS);

constinit RealTransfers g_real_transfer;
constinit std::uint32_t g_transfer_resource = 1;

bool resolve_transfer_functions() {
  RealTransfers& r = g_real_transfer;
  r.find_all();
  return r.memcpy != nullptr && r.memmove != nullptr && r.memset != nullptr &&
         r.stpcpy != nullptr && r.strdup != nullptr && r.wcpcpy != nullptr &&
         r.memcpy_chk != nullptr;
}

void register_memtransfer_module() {
  rtrace_register_module("memtransfer", 1, 0);
  g_transfer_resource =
      rtrace_register_resource("memtransfer", "memory transfer operations in bytes", 0);
  rtrace_module_ready();
}

struct MemtransferModule;  // the module's tag for ModuleStart
constinit ModuleStart<MemtransferModule> g_transfer_start{resolve_transfer_functions,
                                                          register_memtransfer_module};

}  // namespace

// True when the wrappers can call g_real_transfer; false while it is being filled.
inline bool transfers_ready() {
  return g_transfer_start.ready();
}

// True when a transfer is recorded: a trace is on, not inside the tracer's own work. The module
// needs no guard of its own (module_sdk.h): no real transfer function calls one of its wrappers
// (glibc's string functions call each other directly).
inline bool transfer_tracing_now() {
  return tracing_now<MemtransferModule>();
}

// One transfer of `size` bytes into `destination`: its allocation and at once its release (see
// the top of this file), written as one record (one backtrace, one ticket; in the ring a single
// record that the drain expands, transient_record.h: the names are string literals, as it needs);
// rtrace_record_transient works under the tracer guard (the unwinder copies memory too).
// Inlined into the wrappers: a frame of its own would be one more frame of ours for the unwinder
// to walk through on every traced call (about 40 instructions each,
// bench/callgrind-memtransfer.sh).
__attribute__((always_inline)) inline void record_transfer(const char* name, std::size_t size,
                                                           const void* destination,
                                                           const void* return_address) {
  const RtraceCall call{g_transfer_resource,
                        sprtrace::kCallAlloc,
                        name,
                        size,
                        reinterpret_cast<std::uintptr_t>(destination),
                        nullptr,
                        0};
  rtrace_record_transient(&call, return_address);
}

// Bytes written by strcat, strncat, strdup, strndup and __wcscpy_chk, measured on what they
// wrote (the copies to an end, stpcpy's way, take it from where the copy ended).
inline std::size_t string_bytes(const char* text) {
  return __builtin_strlen(text) + 1;
}
inline std::size_t bounded_string_bytes(const char* text, std::size_t limit) {
  return ::strnlen(text, limit) + 1;
}
inline std::size_t wide_string_bytes(const wchar_t* text) {
  return (::wcslen(text) + 1) * sizeof(wchar_t);
}

// The byte loops' versions of the string functions, for the time before the module is ready.
char* fallback_string_copy(char* destination, const char* source) {
  fallback_copy(destination, source, fallback_length(source) + 1);
  return destination;
}
char* fallback_bounded_copy(char* destination, const char* source, std::size_t size) {
  const std::size_t length = fallback_bounded_length(source, size);
  fallback_copy(destination, source, length);
  fallback_fill(destination + length, 0, size - length);
  return destination;
}
char* fallback_bounded_append(char* destination, const char* source, std::size_t size) {
  char* end = destination + fallback_length(destination);
  const std::size_t length = fallback_bounded_length(source, size);
  fallback_copy(end, source, length);
  end[length] = '\0';
  return destination;
}
char* fallback_duplicate(const char* source, std::size_t length) {
  auto* copy = static_cast<char*>(::malloc(length + 1));
  if (copy != nullptr) {
    fallback_copy(copy, source, length);
    copy[length] = '\0';
  }
  return copy;
}
wchar_t* fallback_wide_copy(wchar_t* destination, const wchar_t* source) {
  fallback_copy(destination, source, (fallback_wide_length(source) + 1) * sizeof(wchar_t));
  return destination;
}

}  // namespace rtrace::tracer

using rtrace::tracer::bounded_string_bytes;
using rtrace::tracer::g_real_transfer;
using rtrace::tracer::record_transfer;
using rtrace::tracer::string_bytes;
using rtrace::tracer::transfer_tracing_now;
using rtrace::tracer::transfers_ready;
using rtrace::tracer::wide_string_bytes;
namespace fb = rtrace::tracer;

// Each wrapper: the byte loop before the module is ready; otherwise the real function, then,
// when tracing, the record. The real function runs outside any guard: strdup's malloc belongs
// in the memory module's trace.
extern "C" {

RTRACE_EXPORT void* memcpy(void* destination, const void* source, size_t size) {
  if (!transfers_ready()) {
    return fb::fallback_copy(destination, source, size);
  }
  void* result = g_real_transfer.memcpy(destination, source, size);
  if (transfer_tracing_now()) {
    record_transfer("memcpy", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void* memmove(void* destination, const void* source, size_t size) {
  if (!transfers_ready()) {
    return fb::fallback_move(destination, source, size);
  }
  void* result = g_real_transfer.memmove(destination, source, size);
  if (transfer_tracing_now()) {
    record_transfer("memmove", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void* memset(void* destination, int value, size_t size) {
  if (!transfers_ready()) {
    return fb::fallback_fill(destination, value, size);
  }
  void* result = g_real_transfer.memset(destination, value, size);
  if (transfer_tracing_now()) {
    record_transfer("memset", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void* mempcpy(void* destination, const void* source, size_t size) {
  if (!transfers_ready() || g_real_transfer.mempcpy == nullptr) {
    return static_cast<char*>(fb::fallback_copy(destination, source, size)) + size;
  }
  void* result = g_real_transfer.mempcpy(destination, source, size);
  if (transfer_tracing_now()) {
    record_transfer("mempcpy", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT char* strcpy(char* destination, const char* source) {
  if (!transfers_ready()) {
    return fb::fallback_string_copy(destination, source);
  }
  const char* end = g_real_transfer.stpcpy(destination, source);
  if (transfer_tracing_now()) {
    record_transfer("strcpy", static_cast<size_t>(end - destination) + 1, destination,
                    __builtin_return_address(0));
  }
  return destination;
}

RTRACE_EXPORT char* strncpy(char* destination, const char* source, size_t size) {
  if (!transfers_ready() || g_real_transfer.strncpy == nullptr) {
    return fb::fallback_bounded_copy(destination, source, size);
  }
  char* result = g_real_transfer.strncpy(destination, source, size);
  if (transfer_tracing_now()) {
    record_transfer("strncpy", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT char* stpcpy(char* destination, const char* source) {
  if (!transfers_ready() || g_real_transfer.stpcpy == nullptr) {
    char* end = fb::fallback_string_copy(destination, source);
    return end + fb::fallback_length(end);
  }
  char* end = g_real_transfer.stpcpy(destination, source);
  if (transfer_tracing_now()) {
    record_transfer("stpcpy", static_cast<size_t>(end - destination) + 1, destination,
                    __builtin_return_address(0));
  }
  return end;
}

RTRACE_EXPORT char* strcat(char* destination, const char* source) {
  if (!transfers_ready() || g_real_transfer.strcat == nullptr) {
    fb::fallback_string_copy(destination + fb::fallback_length(destination), source);
    return destination;
  }
  char* result = g_real_transfer.strcat(destination, source);
  if (transfer_tracing_now()) {
    record_transfer("strcat", string_bytes(source), destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT char* strncat(char* destination, const char* source, size_t size) {
  if (!transfers_ready() || g_real_transfer.strncat == nullptr) {
    return fb::fallback_bounded_append(destination, source, size);
  }
  char* result = g_real_transfer.strncat(destination, source, size);
  if (transfer_tracing_now()) {
    record_transfer("strncat", bounded_string_bytes(source, size), destination,
                    __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT char* strdup(const char* source) {
  if (!transfers_ready()) {
    return fb::fallback_duplicate(source, fb::fallback_length(source));
  }
  char* copy = g_real_transfer.strdup(source);
  if (copy != nullptr && transfer_tracing_now()) {
    record_transfer("strdup", string_bytes(copy), copy, __builtin_return_address(0));
  }
  return copy;
}

RTRACE_EXPORT char* strndup(const char* source, size_t size) {
  if (!transfers_ready() || g_real_transfer.strndup == nullptr) {
    return fb::fallback_duplicate(source, fb::fallback_bounded_length(source, size));
  }
  char* copy = g_real_transfer.strndup(source, size);
  if (copy != nullptr && transfer_tracing_now()) {
    record_transfer("strndup", string_bytes(copy), copy, __builtin_return_address(0));
  }
  return copy;
}

RTRACE_EXPORT wchar_t* wmemcpy(wchar_t* destination, const wchar_t* source, size_t count) {
  if (!transfers_ready() || g_real_transfer.wmemcpy == nullptr) {
    fb::fallback_copy(destination, source, count * sizeof(wchar_t));
    return destination;
  }
  wchar_t* result = g_real_transfer.wmemcpy(destination, source, count);
  if (transfer_tracing_now()) {
    record_transfer("wmemcpy", count * sizeof(wchar_t), destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT wchar_t* wcscpy(wchar_t* destination, const wchar_t* source) {
  if (!transfers_ready()) {
    return fb::fallback_wide_copy(destination, source);
  }
  const wchar_t* end = g_real_transfer.wcpcpy(destination, source);
  if (transfer_tracing_now()) {
    record_transfer("wcscpy", (static_cast<size_t>(end - destination) + 1) * sizeof(wchar_t),
                    destination, __builtin_return_address(0));
  }
  return destination;
}

// NOLINTBEGIN(bugprone-reserved-identifier)
// The fortified forms. Before the module is ready they skip the overflow check (start-up code
// only); afterwards the real ones check and abort as they always do, before anything is recorded.

RTRACE_EXPORT void* __memcpy_chk(void* destination, const void* source, size_t size, size_t room) {
  if (!transfers_ready()) {
    return fb::fallback_copy(destination, source, size);
  }
  void* result = g_real_transfer.memcpy_chk(destination, source, size, room);
  if (transfer_tracing_now()) {
    record_transfer("__memcpy_chk", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void* __memmove_chk(void* destination, const void* source, size_t size, size_t room) {
  if (!transfers_ready() || g_real_transfer.memmove_chk == nullptr) {
    return fb::fallback_move(destination, source, size);
  }
  void* result = g_real_transfer.memmove_chk(destination, source, size, room);
  if (transfer_tracing_now()) {
    record_transfer("__memmove_chk", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void* __memset_chk(void* destination, int value, size_t size, size_t room) {
  if (!transfers_ready() || g_real_transfer.memset_chk == nullptr) {
    return fb::fallback_fill(destination, value, size);
  }
  void* result = g_real_transfer.memset_chk(destination, value, size, room);
  if (transfer_tracing_now()) {
    record_transfer("__memset_chk", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void* __mempcpy_chk(void* destination, const void* source, size_t size, size_t room) {
  if (!transfers_ready() || g_real_transfer.mempcpy_chk == nullptr) {
    return static_cast<char*>(fb::fallback_copy(destination, source, size)) + size;
  }
  void* result = g_real_transfer.mempcpy_chk(destination, source, size, room);
  if (transfer_tracing_now()) {
    record_transfer("__mempcpy_chk", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT char* __strcpy_chk(char* destination, const char* source, size_t room) {
  if (!transfers_ready() || g_real_transfer.stpcpy_chk == nullptr) {
    return fb::fallback_string_copy(destination, source);
  }
  const char* end = g_real_transfer.stpcpy_chk(destination, source, room);
  if (transfer_tracing_now()) {
    record_transfer("__strcpy_chk", static_cast<size_t>(end - destination) + 1, destination,
                    __builtin_return_address(0));
  }
  return destination;
}

RTRACE_EXPORT char* __strncpy_chk(char* destination, const char* source, size_t size, size_t room) {
  if (!transfers_ready() || g_real_transfer.strncpy_chk == nullptr) {
    return fb::fallback_bounded_copy(destination, source, size);
  }
  char* result = g_real_transfer.strncpy_chk(destination, source, size, room);
  if (transfer_tracing_now()) {
    record_transfer("__strncpy_chk", size, destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT char* __stpcpy_chk(char* destination, const char* source, size_t room) {
  if (!transfers_ready() || g_real_transfer.stpcpy_chk == nullptr) {
    char* end = fb::fallback_string_copy(destination, source);
    return end + fb::fallback_length(end);
  }
  char* end = g_real_transfer.stpcpy_chk(destination, source, room);
  if (transfer_tracing_now()) {
    record_transfer("__stpcpy_chk", static_cast<size_t>(end - destination) + 1, destination,
                    __builtin_return_address(0));
  }
  return end;
}

RTRACE_EXPORT char* __strcat_chk(char* destination, const char* source, size_t room) {
  if (!transfers_ready() || g_real_transfer.strcat_chk == nullptr) {
    fb::fallback_string_copy(destination + fb::fallback_length(destination), source);
    return destination;
  }
  char* result = g_real_transfer.strcat_chk(destination, source, room);
  if (transfer_tracing_now()) {
    record_transfer("__strcat_chk", string_bytes(source), destination, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT char* __strncat_chk(char* destination, const char* source, size_t size, size_t room) {
  if (!transfers_ready() || g_real_transfer.strncat_chk == nullptr) {
    return fb::fallback_bounded_append(destination, source, size);
  }
  char* result = g_real_transfer.strncat_chk(destination, source, size, room);
  if (transfer_tracing_now()) {
    record_transfer("__strncat_chk", bounded_string_bytes(source, size), destination,
                    __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT wchar_t* __wmemcpy_chk(wchar_t* destination, const wchar_t* source, size_t count,
                                     size_t room) {
  if (!transfers_ready() || g_real_transfer.wmemcpy_chk == nullptr) {
    fb::fallback_copy(destination, source, count * sizeof(wchar_t));
    return destination;
  }
  wchar_t* result = g_real_transfer.wmemcpy_chk(destination, source, count, room);
  if (transfer_tracing_now()) {
    record_transfer("__wmemcpy_chk", count * sizeof(wchar_t), destination,
                    __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT wchar_t* __wcscpy_chk(wchar_t* destination, const wchar_t* source, size_t room) {
  if (!transfers_ready() || g_real_transfer.wcscpy_chk == nullptr) {
    return fb::fallback_wide_copy(destination, source);
  }
  wchar_t* result = g_real_transfer.wcscpy_chk(destination, source, room);
  if (transfer_tracing_now()) {
    record_transfer("__wcscpy_chk", wide_string_bytes(destination), destination,
                    __builtin_return_address(0));
  }
  return result;
}
// NOLINTEND(bugprone-reserved-identifier)
}

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h), so that the
// resource type ids follow the order of -e.
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_transfer_start.register_in_order();
}

namespace {

// Usually a no-op: the first transfer of the process set the module up already.
__attribute__((constructor)) void memtransfer_module_init() {
  rtrace::tracer::g_transfer_start.finish_registration();
}

}  // namespace
