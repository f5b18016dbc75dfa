// The tracing module SDK: what every module (librtrace-<name>.so) builds on. Header-only, over
// the main module's C interface (tracer_api.h). See README.md, "Adding a module".
//
//  * ModuleStart: the module's lazy start. The first interposed call of the process may come
//    from another library's constructor, before any constructor of ours: the module then finds
//    its real functions (once, into its table: never in a wrapper's hot path or a signal
//    handler), sets the session up and registers itself, so that even that first call is
//    recorded.
//  * find_real (real_symbol.h): the one way to look a real function up.
//  * GuardScope and tracing_now (tracer_api.h): the re-entrancy guard. Whatever a wrapper calls
//    while it holds the guard (the real function, the unwinder) is passed on unrecorded.
//  * record_allocation, traced_allocation, ReleaseRecorder: the record helpers, which keep the
//    ordering rule (an allocation is recorded after the real call, a release before it).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "formats/sprtrace_binary/protocol.h"
#include "tracer/real_symbol.h"
#include "tracer/tracer_api.h"

namespace rtrace::tracer {

// One per module; `Module` is a tag type of the module's own, so that each module has its own
// per-thread "starting" flag. `resolve` fills the module's table of real functions and returns
// true when it is complete; `register_module` calls rtrace_register_module,
// rtrace_register_resource (keeping the ids) and rtrace_module_ready.
template <typename Module>
class ModuleStart {
 public:
  using Resolve = bool (*)();
  using Register = void (*)();

  constexpr ModuleStart(Resolve resolve, Register register_module)
      : resolve_(resolve), register_(register_module) {}
  ModuleStart(const ModuleStart&) = delete;
  ModuleStart& operator=(const ModuleStart&) = delete;

  // True when the wrappers can call the real functions. False only while they are being found
  // on this thread (dlsym may allocate: a memory module then serves its bootstrap heap), or
  // by another thread at that very moment.
  bool ready() { return __builtin_expect(ready_.load(std::memory_order_acquire), 1) || start(); }

  // From the module's constructor: registers the module if the session was being set up (it
  // allocates, calling the module) when the module started.
  void finish_registration() {
    if (ready()) {
      register_once();
    }
  }

 private:
  bool start() {
    if (starting_) {
      return resolved_.load(std::memory_order_acquire);  // a call made by our own set-up
    }
    int expected = 0;
    if (!state_.compare_exchange_strong(expected, 1)) {
      return resolved_.load(std::memory_order_acquire);  // another thread is at it
    }
    starting_ = true;
    resolved_.store(resolve_(), std::memory_order_release);
    if (resolved_.load()) {
      register_once();
      ready_.store(true, std::memory_order_release);
    }
    starting_ = false;
    state_.store(resolved_.load() ? 2 : 0);
    return resolved_.load();
  }

  void register_once() {
    GuardScope guard;
    const int session = rtrace_bootstrap();
    if (session < 0 || registered_.exchange(true)) {
      return;  // the session is being set up: the constructor comes back
    }
    if (session > 0) {
      register_();
    }
  }

  Resolve resolve_;
  Register register_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> resolved_{false};
  std::atomic<bool> registered_{false};
  std::atomic<int> state_{0};  // 0: not started, 1: starting, 2: started
  static inline thread_local bool starting_ __attribute__((tls_model("initial-exec"))) = false;
};

// The RESR flag of a resource type whose allocations and releases count references: an
// allocation of a live id adds one, a release drops one, the last release ends it.
inline constexpr std::uint32_t kRefcountResource = 0x1;

// Records an allocation of resource `resource` (after the real call returned it).
inline void record_allocation(std::uint32_t resource, const char* name, std::uint64_t size,
                              std::uint64_t id, const void* return_address,
                              const RtraceArg* args = nullptr, std::uint32_t arg_count = 0) {
  const RtraceCall call{resource, sprtrace::kCallAlloc, name, size, id, args, arg_count};
  rtrace_record(&call, return_address);
}

// An allocation by `allocate` (which returns the pointer, null on failure), recorded under
// `name`. The real function runs under the guard: what it allocates inside is not recorded.
template <typename Allocate>
void* traced_allocation(std::uint32_t resource, const char* name, std::size_t size,
                        const void* return_address, Allocate&& allocate) {
  if (!tracing_now()) {
    return allocate();
  }
  GuardScope guard;
  void* pointer = allocate();
  if (pointer != nullptr) {
    record_allocation(resource, name, size, reinterpret_cast<std::uintptr_t>(pointer),
                      return_address);
  }
  return pointer;
}

// A release: prepares its record (with -A, its backtrace) and takes the ordering ticket on
// construction, i.e. BEFORE the real release, so that whoever gets the resource next is ordered
// after it. commit() once the release happened, cancel() when it did not.
class ReleaseRecorder {
 public:
  ReleaseRecorder(std::uint32_t resource, const char* name, std::uint64_t id,
                  const void* return_address, const RtraceArg* args = nullptr,
                  std::uint32_t arg_count = 0) {
    const RtraceCall call{resource, sprtrace::kCallFree, name, 0, id, args, arg_count};
    if (rtrace_prepare(&call, return_address) != 0) {
      ticket_ = rtrace_ticket();
    }
  }
  ReleaseRecorder(const ReleaseRecorder&) = delete;
  ReleaseRecorder& operator=(const ReleaseRecorder&) = delete;
  ~ReleaseRecorder() { cancel(); }

  void commit() {
    if (ticket_ != 0) {
      rtrace_publish(ticket_);
      ticket_ = 0;
    }
  }
  void cancel() {
    if (ticket_ != 0) {
      rtrace_cancel(ticket_);
      ticket_ = 0;
    }
  }

 private:
  std::uint64_t ticket_ = 0;
};

}  // namespace rtrace::tracer
