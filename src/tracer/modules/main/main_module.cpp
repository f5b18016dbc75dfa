// librtrace-main.so: the entry points the resource modules call (tracer_api.h), the context API
// (sp_rtrace_context.h, overriding the stand-alone library's no-tracer versions), and the
// process-wide set-up: options, the toggle signal and the crash signals.
#include <signal.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "protocol/sprtrace_packets.h"
#include "rtrace/sp_rtrace_context.h"
#include "tracer/api/tracer_api.h"
#include "tracer/core/event_ring.h"
#include "tracer/output/allocation_record.h"
#include "tracer/output/path_record.h"
#include "tracer/output/release_record.h"
#include "tracer/output/trace_compressor.h"
#include "tracer/output/transient_record.h"
#include "tracer/session/late_attach.h"
#include "tracer/session/process_hooks.h"
#include "tracer/session/session_producer.h"
#include "tracer/session/stop_hooks.h"
#include "tracer/session/trace_session.h"
#include "tracer/unwind/backtrace_capture.h"
#include "tracer/unwind/unwinder.h"

using rtrace::tracer::FinishReason;

int rtrace_tracing = 0;
std::uint64_t rtrace_sample_bytes = 0;
__thread int rtrace_guard __attribute__((tls_model("initial-exec"))) = 0;

namespace {

void on_toggle_signal(int) {
  const int saved_errno = errno;
  rtrace::tracer::session_request_toggle();
  errno = saved_errno;
}

// A signal that ends the process: write out what we have, then let it do what it would have done.
void on_fatal_signal(int signal_number) {
  const int saved_errno = errno;
  ++rtrace_guard;
  rtrace::tracer::session_finish(FinishReason::Crash, signal_number);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);
  --rtrace_guard;
  errno = saved_errno;
}

// `flags`: SA_ONSTACK for the crash handlers, which must run even on an exhausted stack (each
// traced thread has an alternate stack, see signal_stack.h).
void install(int signal_number, void (*handler)(int), bool only_if_default, int flags) {
  struct sigaction current {};
  if (::sigaction(signal_number, nullptr, &current) != 0) {
    return;
  }
  if (only_if_default && current.sa_handler != SIG_DFL) {
    return;
  }
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART | flags;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, nullptr);
}

// Set once librtrace-main.so's constructor runs (see rtrace_bootstrap).
std::atomic<bool> g_constructor_ran{false};
// Set when the constructor ran while the session was being set up, and the process set-up below
// is left to the set-up's end (rtrace_bootstrap).
std::atomic<bool> g_process_setup_deferred{false};

// What a traced process needs besides the session: zstd for the trace, the control thread
// (periodic drains), the quick_exit flush, the toggle signal and the crash handlers.
void set_up_traced_process() {
  const rtrace::tracer::TracerOptions& options = rtrace::tracer::session_options();
  if (options.compact && options.compress_level > 0 && options.start) {
    // Before main, so that even a short program's trace is compressed; a constructor may enter
    // the loader (trace_compressor.h). A session started by an earlier constructor keeps its
    // bytes until then. With tracing off at the start, the control thread loads it when
    // tracing starts: loading allocates, and the program is not touched before.
    rtrace::tracer::compressor_load();
  }
  rtrace::tracer::session_start_control_thread();
  rtrace::tracer::register_quick_exit_flush();
  install(rtrace::tracer::session_options().toggle_signal, on_toggle_signal, false, 0);
  for (const int signal_number : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS,
                                  SIGTERM, SIGINT, SIGHUP, SIGQUIT}) {
    if (signal_number != rtrace::tracer::session_options().toggle_signal) {
      install(signal_number, on_fatal_signal, true, SA_ONSTACK);
    }
  }
}

// The session itself usually started earlier, at the first interposed call (see
// session_bootstrap): libraries the program needs run their constructors before ours. When one
// of them allocated first (libstdc++ does, in every C++ program), the session's set-up loads
// libraries, and the dynamic linker runs this constructor in the middle of that set-up: the
// process set-up then waits for the session's.
__attribute__((constructor(101))) void main_module_init() {
  g_constructor_ran.store(true);
  if (rtrace::tracer::loaded_into_running_process()) {
    return;  // rtrace_attach sets the session up, and leaves the signals alone
  }
  rtrace::tracer::GuardScope guard;
  switch (rtrace::tracer::session_bootstrap()) {
    case rtrace::tracer::Bootstrap::Traced:
      set_up_traced_process();
      break;
    case rtrace::tracer::Bootstrap::UnderWay:
      g_process_setup_deferred.store(true);
      // On another thread, the set-up may have ended meanwhile, without seeing the flag.
      if (rtrace::tracer::session_bootstrap() == rtrace::tracer::Bootstrap::Traced &&
          g_process_setup_deferred.exchange(false)) {
        set_up_traced_process();
      }
      break;
    case rtrace::tracer::Bootstrap::NotTraced:
      break;
  }
}

__attribute__((destructor(101))) void main_module_fini() {
  rtrace::tracer::GuardScope guard;
  rtrace::tracer::session_finish(FinishReason::Exit);
}

}  // namespace

extern "C" {

RTRACE_EXPORT int rtrace_bootstrap() {
  // With an LD_AUDIT library that binds symbols (the audit module), the dynamic linker relocates
  // itself a second time after the program's libraries and calls calloc meanwhile, which the
  // memory module interposes: its own PLT is not usable then, and setting the session up
  // (dlopen) would crash. That happens before libc is initialised (__libc_early_init sets
  // __libc_single_threaded, 0 until then) and before any constructor: wait for the module's
  // constructor then. (A process already threaded before our constructor waits for it too.)
  if (__libc_single_threaded == 0 && !g_constructor_ran.load()) {
    return -1;
  }
  rtrace::tracer::GuardScope guard;
  switch (rtrace::tracer::session_bootstrap()) {
    case rtrace::tracer::Bootstrap::Traced:
      if (g_process_setup_deferred.load(std::memory_order_relaxed) &&
          g_process_setup_deferred.exchange(false)) {
        set_up_traced_process();
      }
      return 1;
    case rtrace::tracer::Bootstrap::NotTraced:
      return 0;
    case rtrace::tracer::Bootstrap::UnderWay:
      break;
  }
  return -1;
}

RTRACE_EXPORT std::uint32_t rtrace_register_module(const char* name, std::uint16_t major,
                                                   std::uint16_t minor) {
  return rtrace::tracer::session_register_module(name, major, minor);
}

RTRACE_EXPORT std::uint32_t rtrace_register_resource(const char* type, const char* description,
                                                     std::uint32_t flags) {
  return rtrace::tracer::session_register_resource(type, description, flags);
}

RTRACE_EXPORT void rtrace_module_ready() {
  rtrace::tracer::GuardScope guard;
  rtrace::tracer::session_module_ready();
}

// The entry points below run under the tracer guard: what the unwinder and the encoder call
// (malloc, open, ...) is nobody's record.
namespace {

// rtrace_prepare's work, inlined into rtrace_record too: one frame less to unwind per call.
__attribute__((always_inline)) inline bool prepare(const RtraceCall* call,
                                                   const void* return_address) {
  const std::uint32_t depth = rtrace::tracer::session_options().backtrace_depth(
      call->kind == rtrace::sprtrace::kCallFree, call->size);
  std::uintptr_t frames[rtrace::tracer::TracerOptions::kMaxDepth];
  const std::uint32_t count =
      depth > 0 ? rtrace::tracer::capture_backtrace(frames, depth, return_address) : 0;
  return rtrace::tracer::session_prepare(*call, frames, count);
}

}  // namespace

RTRACE_EXPORT int rtrace_prepare(const RtraceCall* call, const void* return_address) {
  rtrace::tracer::GuardScope guard;
  return prepare(call, return_address) ? 1 : 0;
}

RTRACE_EXPORT std::uint32_t rtrace_backtrace_depth(const RtraceCall* call) {
  return rtrace::tracer::session_options().backtrace_depth(
      call->kind == rtrace::sprtrace::kCallFree, call->size);
}

RTRACE_EXPORT std::uint32_t rtrace_backtrace(const RtraceCall* call, const void* return_address,
                                             std::uintptr_t* frames) {
  rtrace::tracer::GuardScope guard;
  const std::uint32_t depth = rtrace_backtrace_depth(call);
  return depth > 0 ? rtrace::tracer::capture_backtrace(frames, depth, return_address) : 0;
}

RTRACE_EXPORT void rtrace_record_with_backtrace(const RtraceCall* call,
                                                const std::uintptr_t* frames,
                                                std::uint32_t frame_count) {
  rtrace::tracer::GuardScope guard;
  if (rtrace::tracer::session_prepare(*call, frames, frame_count)) {
    rtrace::tracer::session_publish(rtrace::tracer::session_ticket());
  }
}

RTRACE_EXPORT std::uint64_t rtrace_ticket() {
  return rtrace::tracer::session_ticket();
}

RTRACE_EXPORT void rtrace_publish(std::uint64_t ticket) {
  rtrace::tracer::GuardScope guard;
  rtrace::tracer::session_publish(ticket);
}

RTRACE_EXPORT void rtrace_cancel(std::uint64_t ticket) {
  rtrace::tracer::GuardScope guard;
  rtrace::tracer::session_cancel(ticket);
}

RTRACE_EXPORT std::uint64_t rtrace_hold(std::uint64_t ticket) {
  return rtrace::tracer::session_hold(ticket);
}

// A release without arguments (every module's close, free, fclose, munmap...) goes into the ring
// as one record of fixed size (release_record.h), unwound into in place as the transient one;
// one with arguments as its packets.
RTRACE_EXPORT std::uint64_t rtrace_prepare_held(const RtraceCall* call,
                                                const void* return_address) {
  rtrace::tracer::GuardScope guard;
  if (!rtrace::tracer::fits_release_record(*call)) {
    if (!prepare(call, return_address)) {
      return 0;
    }
    return rtrace::tracer::session_hold(rtrace::tracer::session_ticket());
  }
  std::uint32_t depth = 0;
  const rtrace::tracer::TransientSpace space =
      rtrace::tracer::session_reserve_release(*call, depth);
  if (space.record == nullptr) {
    return 0;
  }
  const std::uint32_t count =
      depth > 0 ? rtrace::tracer::capture_backtrace(
                      rtrace::tracer::release_record_frames(space.record), depth, return_address)
                : 0;
  return rtrace::tracer::session_hold_release(space, *call, count);
}

RTRACE_EXPORT void rtrace_settle(std::uint64_t handle, int happened) {
  rtrace::tracer::GuardScope guard;
  rtrace::tracer::session_settle(handle, happened != 0);
}

// An allocation without arguments (every module's malloc, new, open, ...) goes into the ring as
// one record of fixed size (allocation_record.h), unwound into in place as a release's; other
// calls as their packets. In sp-rtrace's format too: there the drain writes the packets instead
// (more instructions), but into one buffer, where an allocation's packets left in the ring
// alternated with its release's expansion, two pieces to write a call and a writev every 256
// calls; written as one piece, the churn's sp-rtrace recording takes 0.25 s of CPU, not 0.35 s.
RTRACE_EXPORT void rtrace_record(const RtraceCall* call, const void* return_address) {
  rtrace::tracer::GuardScope guard;
  if (rtrace::tracer::fits_allocation_record(*call)) {
    std::uint32_t depth = 0;
    const rtrace::tracer::TransientSpace space =
        rtrace::tracer::session_reserve_allocation(*call, depth);
    if (space.record == nullptr) {
      return;
    }
    const std::uint32_t count =
        depth > 0
            ? rtrace::tracer::capture_backtrace(
                  rtrace::tracer::allocation_record_frames(space.record), depth, return_address)
            : 0;
    rtrace::tracer::session_publish_allocation(space, *call, count);
    return;
  }
  if (prepare(call, return_address)) {
    rtrace::tracer::session_publish(rtrace::tracer::session_ticket());
  }
}

namespace {

// The most frames of ours above a transfer's caller that rtrace_record_transient has seen: its
// own (backtrace_capture.h: the capture and the memo's look-up are inlined into it, and the walk
// starts in its frame).
std::atomic<std::uint32_t> g_transient_own_frames{1};

}  // namespace

// Unwinds here, not in the session, and with the capture inlined (backtrace_capture.h): two
// frames less for the walk to go through, and for the walk memo to compare. The reserve and the
// publication are inlined too (session_producer.h): no call but the memo's misses' walk.
RTRACE_EXPORT void rtrace_record_transient(const RtraceCall* call, const void* return_address) {
  rtrace::tracer::GuardScope guard;
  std::uint32_t depth = 0;
  const rtrace::tracer::TransientSpace space =
      rtrace::tracer::session_reserve_transient(*call, depth);
  if (space.record == nullptr) {
    return;
  }
  // Up to SharedFrames::kMaxShared frames are walked aside and only those not shared with the
  // ring's previous transient record are copied into it; deeper ones straight into the record.
  // A walk the memo remembers (walk_memo.h) is not copied at all: `remembered` is its entry.
  rtrace::tracer::SharedFrames& shared = space.ring->producer_frames;
  std::uintptr_t* frames = rtrace::tracer::transient_frames(space.record);
  std::uint32_t kept = 0;
  if (depth <= rtrace::tracer::SharedFrames::kMaxShared) {
    rtrace::tracer::WalkMemo::Entry* remembered = nullptr;
    const std::uint32_t count =
        depth > 0 ? rtrace::tracer::capture_detail::capture(shared.walked, depth, return_address,
                                                            &remembered, g_transient_own_frames)
                  : 0;
    kept = remembered != nullptr ? shared.keep_remembered(*remembered, frames)
                                 : shared.keep(shared.walked, count, frames);
    rtrace::tracer::session_publish_transient(space, *call, count, kept);
  } else {
    const std::uint32_t count = rtrace::tracer::capture_backtrace(frames, depth, return_address);
    kept = shared.keep_all(count);
    rtrace::tracer::session_publish_transient(space, *call, count, kept);
  }
}

// As rtrace_record_transient: unwinds here, straight into the reserved record.
RTRACE_EXPORT void rtrace_record_path(const RtraceCall* call, const char* path,
                                      const char* value_name, unsigned int value,
                                      const void* return_address) {
  rtrace::tracer::GuardScope guard;
  const std::size_t length = path == nullptr ? 0 : std::strlen(path);
  const rtrace::tracer::PathArgument argument{
      path, length > rtrace::tracer::kMaxPathText ? rtrace::tracer::kMaxPathText : length,
      value_name, value};
  std::uint32_t depth = 0;
  const rtrace::tracer::TransientSpace space =
      rtrace::tracer::session_reserve_path(*call, argument.path_length, depth);
  if (space.record == nullptr) {
    return;
  }
  const std::uint32_t count =
      depth > 0 ? rtrace::tracer::capture_backtrace(
                      rtrace::tracer::path_record_frames(space.record, argument.path_length), depth,
                      return_address)
                : 0;
  rtrace::tracer::session_publish_path(space, *call, argument, count);
}

RTRACE_EXPORT int rtrace_wants_args() {
  return rtrace::tracer::session_options().args ? 1 : 0;
}

RTRACE_EXPORT int rtrace_register_stop_hook(RtraceStopHook hook) {
  return rtrace::tracer::add_stop_hook(hook) ? 1 : 0;
}

RTRACE_EXPORT void rtrace_attach_file(const char* name, const char* file) {
  rtrace::tracer::attach_file(name, file);
}

// ---- the context API, as the traced program sees it while the tracer is loaded -------------

RTRACE_EXPORT unsigned int sp_context_create(const char* name) {
  rtrace::tracer::GuardScope guard;
  return rtrace::tracer::session_create_context(name);
}

RTRACE_EXPORT void sp_context_enter(unsigned int context_id) {
  if (rtrace::tracer::session_context_known(context_id)) {
    rtrace::tracer::context_mask() |= context_id;
  }
}

RTRACE_EXPORT void sp_context_exit(unsigned int context_id) {
  if (rtrace::tracer::session_context_known(context_id)) {
    rtrace::tracer::context_mask() &= ~context_id;
  }
}

RTRACE_EXPORT unsigned int sp_context_get_mask() {
  return rtrace::tracer::context_mask();
}
}
