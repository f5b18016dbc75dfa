// The tracing module SDK: what every module (librtrace-<name>.so) builds on. Header-only, over
// the main module's C interface (tracer_api.h). See README.md, "Adding a module".
//
//  * ModuleStart: the module's lazy start. The first interposed call of the process may come
//    from another library's constructor, before any constructor of ours: the module then finds
//    its real functions (once, into its table: never in a wrapper's hot path or a signal
//    handler), sets the session up and registers itself, so that even that first call is
//    recorded.
//  * RTRACE_REAL_FUNCTIONS and find_real (real_symbol.h): the module's table of real functions,
//    each declared once, and the one way to look a real function up.
//  * OwnGuard<Module> and tracing_now<Module>: the module's own re-entrancy guard. What a
//    wrapper's real function does inside is not recorded by the same module a second time
//    (operator new's malloc), but IS recorded by the other modules, as the original does (with
//    `-e file:memory`, the malloc fopen makes for its FILE is a memory record of its own). The
//    tracer's own work (unwinding, encoding, the set-up) runs under the tracer guard
//    (GuardScope, tracer_api.h), which every module respects.
//  * record_allocation, traced_allocation, ReleaseRecorder: the record helpers, which keep the
//    ordering rule (an allocation is recorded after the real call, a release before it).
#pragma once

#include <errno.h>
#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "protocol/sprtrace_packets.h"
#include "tracer/api/real_symbol.h"
#include "tracer/api/tracer_api.h"

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
  // by another thread at that very moment. Always inlined: the first thing of every wrapper
  // (GCC made it a call of its own in memtransfer's).
  __attribute__((always_inline)) bool ready() {
    return __builtin_expect(ready_.load(std::memory_order_acquire), 1) || start();
  }

  // For a module with nothing of its own to serve meanwhile (no bootstrap heap): as ready(), but
  // waits while another thread is finding the real functions. False only on the thread that is
  // finding them (a call made by dlsym itself) or when they cannot be found.
  bool ready_or_wait() {
    while (!ready()) {
      if (starting_ || state_.load() != 1) {
        return false;
      }
      ::sched_yield();
    }
    return true;
  }

  // From the session's set-up (the module's exported rtrace_module_register, module_order.h):
  // registers the module now, in LD_PRELOAD order, whichever module made the first call.
  void register_in_order() {
    if (!registered_.exchange(true)) {
      register_();
    }
  }

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

// The per-thread guard of one module (`Module` its tag type): set while the module runs a real
// function, so that the module's own wrappers pass what that function calls straight on. One
// thread-local counter per module, in the module's own library (initial-exec: preloaded).
template <typename Module>
class OwnGuard {
 public:
  OwnGuard() { ++depth_; }
  OwnGuard(const OwnGuard&) = delete;
  OwnGuard& operator=(const OwnGuard&) = delete;
  ~OwnGuard() { --depth_; }
  static bool held() { return depth_ != 0; }

 private:
  static inline thread_local int depth_ __attribute__((tls_model("initial-exec"))) = 0;
};

// True when a wrapper of `Module` should record: a trace is on, the thread is not inside the
// tracer itself, nor inside one of the module's own real functions.
template <typename Module>
inline bool tracing_now() {
  return __atomic_load_n(&rtrace_tracing, __ATOMIC_RELAXED) != 0 && rtrace_guard == 0 &&
         !OwnGuard<Module>::held();
}

// Records an allocation of resource `resource` (after the real call returned it).
inline void record_allocation(std::uint32_t resource, const char* name, std::uint64_t size,
                              std::uint64_t id, const void* return_address,
                              const RtraceArg* args = nullptr, std::uint32_t arg_count = 0) {
  const RtraceCall call{resource, sprtrace::kCallAlloc, name, size, id, args, arg_count};
  rtrace_record(&call, return_address);
}

// An allocation by `allocate` (which returns the pointer, null on failure), recorded under
// `name`. The real function runs under the module's guard: what it allocates inside is not
// recorded by this module again.
template <typename Module, typename Allocate>
void* traced_allocation(std::uint32_t resource, const char* name, std::size_t size,
                        const void* return_address, Allocate&& allocate) {
  if (!tracing_now<Module>()) {
    return allocate();
  }
  OwnGuard<Module> guard;
  void* pointer = allocate();
  if (pointer != nullptr) {
    record_allocation(resource, name, size, reinterpret_cast<std::uintptr_t>(pointer),
                      return_address);
  }
  return pointer;
}

// A release: prepares its record (with -A, its backtrace), takes the ordering ticket and puts
// the record in place on construction, i.e. BEFORE the real release, so that whoever gets the
// resource next is ordered after it. commit() once the release happened, cancel() when it did
// not (the record is then dropped). The record is in place (rtrace_hold) while the real call
// runs, so what that call does inside may be recorded by other modules (fclose's free, another
// module's close): their records come after this one. `name` is kept by address until the trace
// is written (rtrace_prepare_held): a string literal.
class ReleaseRecorder {
 public:
  // Holds nothing: a release not recorded, unless hold() starts one later.
  ReleaseRecorder() = default;
  ReleaseRecorder(std::uint32_t resource, const char* name, std::uint64_t id,
                  const void* return_address, const RtraceArg* args = nullptr,
                  std::uint32_t arg_count = 0) {
    hold(resource, name, id, return_address, args, arg_count);
  }
  ReleaseRecorder(const ReleaseRecorder&) = delete;
  ReleaseRecorder& operator=(const ReleaseRecorder&) = delete;
  ~ReleaseRecorder() { cancel(); }

  // What the constructor with arguments does, for one made holding nothing.
  void hold(std::uint32_t resource, const char* name, std::uint64_t id, const void* return_address,
            const RtraceArg* args = nullptr, std::uint32_t arg_count = 0) {
    const RtraceCall call{resource, sprtrace::kCallFree, name, 0, id, args, arg_count};
    held_ = rtrace_prepare_held(&call, return_address);
  }
  void commit() { settle(1); }
  void cancel() { settle(0); }

 private:
  void settle(int happened) {
    if (held_ != 0) {
      const int saved_errno = errno;  // what the real call said, for its caller
      rtrace_settle(held_, happened);
      held_ = 0;
      errno = saved_errno;
    }
  }

  std::uint64_t held_ = 0;
};

}  // namespace rtrace::tracer
