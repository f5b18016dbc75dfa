// The interface between librtrace-main.so and the resource modules (librtrace-memory.so, ...).
//
// A module interposes the functions it traces. Each wrapper describes the call to the main module,
// which unwinds the stack, encodes the packets into a per-thread ring and stamps them with a
// global order ticket (see trace_session.h for the ordering scheme). Everything here is callable
// from any thread and never allocates through the traced allocator; nothing is called while a
// module's own re-entrancy guard says we are already inside the tracer.
#pragma once

#include <cstddef>
#include <cstdint>

#define RTRACE_EXPORT __attribute__((visibility("default")))

extern "C" {

// Non-zero while a trace is being recorded. Wrappers read it (relaxed) before doing any work.
RTRACE_EXPORT extern int rtrace_tracing;

// The memory module's sampling interval in bytes (the option sample-bytes), 0: every allocation
// is recorded. Set by the session from its options before any module registers; read (relaxed)
// on every allocation.
RTRACE_EXPORT extern std::uint64_t rtrace_sample_bytes;

// Non-zero while this thread runs the tracer's own code (the set-up, unwinding, encoding, the
// control thread): no module records what it calls. A module's wrappers also have a guard of
// their own (OwnGuard, module_sdk.h) for the real functions they run.
// Both libraries are preloaded, so the initial-exec model (no __tls_get_addr call) is safe.
RTRACE_EXPORT extern __thread int rtrace_guard __attribute__((tls_model("initial-exec")));

// One `$name = value` pair of an ARGS packet.
struct RtraceArg {
  const char* name;
  const char* value;
};

// One traced call as a module describes it.
struct RtraceCall {
  std::uint32_t resource_type;  // id returned by rtrace_register_resource
  std::uint32_t kind;           // sprtrace::kCallAlloc or kCallFree
  const char* name;             // function name as it should appear in the trace
  std::uint64_t size;           // allocation size (0 for frees)
  std::uint64_t id;             // resource id (address)
  const RtraceArg* args;        // ARGS packet: written as given (a module whose arguments are
                                // optional asks rtrace_wants_args() first)
  std::uint32_t arg_count;
};

// Sets up the session if that was not done yet: 1 when this process is traced, 0 when it is not,
// -1 while the set-up is under way (on this thread: the set-up itself allocates; or another).
// A module calls it, then registers itself, at its first interposed call: libraries the program
// needs may call it before any constructor of ours ran, and what they do before main belongs in
// the trace. On -1 it tries again from its constructor.
RTRACE_EXPORT int rtrace_bootstrap();

// Registers a tracing module (MINF); returns its id. Call it once, after rtrace_bootstrap.
RTRACE_EXPORT std::uint32_t rtrace_register_module(const char* name, std::uint16_t major,
                                                   std::uint16_t minor);
// Registers a resource type (RESR); returns its id (1, 2, 3, ...), or 0 when the process already
// has 32 types (the protocol's resource masks have 32 bits): calls of type 0, or of any id not
// returned here, are never recorded.
RTRACE_EXPORT std::uint32_t rtrace_register_resource(const char* type, const char* description,
                                                     std::uint32_t flags);
// Says that a module has registered everything; tracing from the start (start=1) begins when
// every module named in LD_PRELOAD is ready, so that the registry packets come first.
RTRACE_EXPORT void rtrace_module_ready();

// Recording a call takes three steps, so that the ordering ticket is held as briefly as possible
// (while a thread holds one, no record after it can be written out):
//  1. rtrace_prepare: unwinds (as the options ask) and encodes the packets into this thread's
//     buffer, waiting for room if needed. `return_address` is the wrapper's
//     __builtin_return_address(0): the backtrace starts at that frame, whatever the tracer's own
//     frames look like. Returns 0 when the call cannot be recorded (no room, or a resource type
//     that is not registered).
//  2. rtrace_ticket: this thread's place in the global order. An allocation takes it after the
//     real function returned; a release BEFORE calling the real function, so that another thread
//     that gets the same id afterwards is ordered after the release.
//  3. rtrace_publish (or rtrace_cancel, when the real call failed) with that ticket.
// A thread prepares one call at a time: publish or cancel it before preparing the next.
RTRACE_EXPORT int rtrace_prepare(const RtraceCall* call, const void* return_address);
RTRACE_EXPORT std::uint64_t rtrace_ticket();
RTRACE_EXPORT void rtrace_publish(std::uint64_t ticket);
RTRACE_EXPORT void rtrace_cancel(std::uint64_t ticket);

// A release puts its record in place before the real call and keeps the ticket until it knows
// whether the call released anything: rtrace_hold publishes the prepared record under `ticket`
// (returning a handle, 0 when there was nothing to hold) but holds the ticket, so nothing after it
// is written out yet; the thread may record other calls meanwhile (what the real release does
// inside, recorded by other modules). rtrace_settle(handle, 1) confirms it; rtrace_settle(handle,
// 0) drops the record (the call failed). Holds nest; settle them innermost first.
RTRACE_EXPORT std::uint64_t rtrace_hold(std::uint64_t ticket);
RTRACE_EXPORT void rtrace_settle(std::uint64_t handle, int happened);
// rtrace_prepare, rtrace_ticket and rtrace_hold at once (one call into the tracer instead of three
// on every release's path): the handle to settle, 0 when nothing was recorded. A release without
// arguments (kind kCallFree, size 0, no args: close, fclose, free, munmap, ...) is kept as one
// record of fixed size with `call->name` BY ADDRESS until the trace is written: that name must
// stay valid as long as the library is loaded (a string literal, or a static array), never a
// buffer of the caller's. Every module's release names are literals.
RTRACE_EXPORT std::uint64_t rtrace_prepare_held(const RtraceCall* call, const void* return_address);

// All three steps at once: for allocations, after the real function returned. An allocation
// without arguments (kind kCallAlloc, no args: malloc, operator new, open, ...) is kept as one
// record of fixed size with `call->name` BY ADDRESS until the trace is written, as a release's
// in rtrace_prepare_held: a string literal or a static array, never a buffer of the caller's.
RTRACE_EXPORT void rtrace_record(const RtraceCall* call, const void* return_address);

// A call whose resource ends as soon as it is made (a memory transfer): recorded as its
// allocation (kind, size, id, name of `call`; its backtrace) immediately followed by the release
// of the same id (with the same backtrace under free-backtraces=1), at the cost of one record:
// one backtrace, one ticket. Leak reports then never count it, while its sizes still add up per
// call site. `call->kind` is ignored, `call->args` not written; `call->name` is kept by its
// address until the trace is written, so it must stay valid (a string literal).
RTRACE_EXPORT void rtrace_record_transient(const RtraceCall* call, const void* return_address);
// Records `call` (an allocation, its args ignored) with the arguments {"path", path} and
// {value_name, "0x<hex>" of value}, as rtrace_record would: open and its relatives. `path` is
// copied now; `value_name` (like call->name) must stay valid until the trace is written (a string
// literal). The formatting is the drain's, off the traced thread.
RTRACE_EXPORT void rtrace_record_path(const RtraceCall* call, const char* path,
                                      const char* value_name, unsigned int value,
                                      const void* return_address);

// A call whose record must wait (the qobject module learns an object's class only after its
// constructor returned): rtrace_backtrace unwinds now, as rtrace_prepare would for `call` (the
// options' depth; none for a release without free-backtraces), into `frames` (room for 256, the
// most the options allow) and returns the count; rtrace_record_with_backtrace records `call`
// later with those frames (all three steps at once, as rtrace_record).
RTRACE_EXPORT std::uint32_t rtrace_backtrace(const RtraceCall* call, const void* return_address,
                                             std::uintptr_t* frames);
RTRACE_EXPORT void rtrace_record_with_backtrace(const RtraceCall* call,
                                                const std::uintptr_t* frames,
                                                std::uint32_t frame_count);
// How many frames the options want for `call` (0: no backtrace), for a module that unwinds by
// itself (the audit module, from the registers the dynamic linker hands it).
RTRACE_EXPORT std::uint32_t rtrace_backtrace_depth(const RtraceCall* call);

// Non-zero when the `args` option asks for function arguments.
RTRACE_EXPORT int rtrace_wants_args();

// A function a module wants called when a trace ends (tracing toggled off, exit, _exit,
// quick_exit, exec; never after a crash), after the trace's last record and before it is closed,
// with recording already stopped. It may run inside a signal handler (_exit called from one) and
// while other threads are stopped anywhere: async-signal-safe code only (raw system calls,
// static buffers, no allocation, no locks). `directory` is where the trace's attachments go (the
// directory of the trace file); without one (`attachments=` not given, not managed) the hook is
// not called. At most 16 hooks; returns 0 when the table is full.
using RtraceStopHook = void (*)(const char* directory);
RTRACE_EXPORT int rtrace_register_stop_hook(RtraceStopHook hook);
// From a stop hook only: adds a FILE packet to the trace, attachment `name` (alphanumeric) of the
// file `file`, a name in the hook's `directory`.
RTRACE_EXPORT void rtrace_attach_file(const char* name, const char* file);
}

namespace rtrace::tracer {

// Sets the tracer guard for the lifetime of the object (every module passes calls through).
class GuardScope {
 public:
  GuardScope() { ++rtrace_guard; }
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;
  ~GuardScope() { --rtrace_guard; }
};

}  // namespace rtrace::tracer
