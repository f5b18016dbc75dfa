// Setting the session up, once per process: options, the real functions, the registries, and
// the start of tracing once every preloaded module is ready.
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "tracer/api/tracer_api.h"
#include "tracer/core/clock.h"
#include "tracer/core/environment.h"
#include "tracer/core/libc_memory.h"
#include "tracer/core/thread_rings.h"
#include "tracer/session/control_thread.h"
#include "tracer/session/exec_environment.h"
#include "tracer/session/late_attach.h"
#include "tracer/session/module_order.h"
#include "tracer/session/process_hooks.h"
#include "tracer/session/session_fork.h"
#include "tracer/session/session_state.h"
#include "tracer/session/trace_registry.h"
#include "tracer/session/trace_session.h"
#include "tracer/unwind/unwinder.h"

namespace rtrace::tracer {
namespace {

std::uint32_t g_expected_modules = 0;
std::atomic<std::uint32_t> g_ready_modules{0};

// 0: not yet, 1: in progress, 2: done.
std::atomic<int> g_bootstrap{0};
bool g_traced = false;

// Whether the file name `base` (of `length` bytes) is a tracing module's other than main's.
bool is_tracing_module(const char* base, std::size_t length) {
  static constexpr char kPrefix[] = "librtrace-";
  static constexpr char kMain[] = "librtrace-main.so";
  return length > sizeof kPrefix - 1 && std::memcmp(base, kPrefix, sizeof kPrefix - 1) == 0 &&
         !(length == sizeof kMain - 1 && std::memcmp(base, kMain, length) == 0);
}

// The number of tracing modules besides main that LD_PRELOAD names.
std::uint32_t count_preloaded_modules() {
  const char* preload = environment_value("LD_PRELOAD");
  std::uint32_t count = 0;
  for (const char* p = preload; p != nullptr && *p != '\0';) {
    const char* end = p;
    while (*end != '\0' && *end != ':' && *end != ' ') {
      ++end;
    }
    const char* base = p;
    for (const char* q = p; q < end; ++q) {
      if (*q == '/') {
        base = q + 1;
      }
    }
    count += is_tracing_module(base, static_cast<std::size_t>(end - base)) ? 1 : 0;
    p = *end == '\0' ? end : end + 1;
  }
  return count;
}

void start_when_modules_ready() {
  if (g_session.options.start && g_ready_modules.load() >= g_expected_modules) {
    start_session();
  }
}

void read_socket_path() {
  const char* attached = attach_socket_path();
  if (const char* socket_path =
          attached != nullptr ? attached : environment_value(tracer_environment::kSocketVariable)) {
    const std::size_t length = std::strlen(socket_path);
    if (length < sizeof g_session.socket_path) {
      std::memcpy(g_session.socket_path, socket_path, length + 1);
    }
  }
}

// The process-wide set-up, without the control thread (see session_bootstrap). The first
// process to load the tracer notes its pid in the environment (before the program runs, so every
// child inherits it). A process that finds another pid there is a descendant started by
// fork+exec, posix_spawn or system(): traced only with follow-forks. The traced process itself
// keeps its pid across exec, so its new image is traced.
bool initialize() {
  resolve_process_functions();
  // Loaded into a running process (late_attach.h): the settings came with rtrace_attach, and
  // the environment stays as it is; rtrace_attach starts the trace itself.
  const char* attached = attach_options_text();
  g_session.options = parse_options(
      attached != nullptr ? attached : environment_value(tracer_environment::kOptionsVariable));
  g_session.options.start = g_session.options.start && attached == nullptr;
  __atomic_store_n(&rtrace_sample_bytes, g_session.options.sample_bytes, __ATOMIC_RELAXED);
  g_session.pid = ::getpid();
  if (attached == nullptr && !claim_root_process(g_session.pid) &&
      !g_session.options.follow_forks) {
    g_session.state.store(State::Finished);
    return false;
  }
  read_socket_path();
  find_libc_memory();
  g_session.heap_bottom = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  g_expected_modules = count_preloaded_modules();
  rings_init([] { drain_if_free(); });
  install_fork_handlers();
  init_unwinder();
  init_clock();
  session_register_module("main", 1, 0);
  if (attached == nullptr) {
    exec_environment_capture();
  }
  start_when_modules_ready();
  return true;
}

}  // namespace

Bootstrap session_bootstrap() {
  if (g_bootstrap.load(std::memory_order_acquire) != 2) {
    int expected = 0;
    if (!g_bootstrap.compare_exchange_strong(expected, 1)) {
      return Bootstrap::UnderWay;
    }
    g_traced = initialize();
    if (g_traced) {
      // Still "under way": a module starting meanwhile (dlopen allocates) leaves its
      // registration to this.
      register_preloaded_modules();
    }
    g_bootstrap.store(2, std::memory_order_release);
  }
  return g_traced ? Bootstrap::Traced : Bootstrap::NotTraced;
}

void session_start_control_thread() {
  if (g_traced) {
    allow_control_thread();
    start_control_thread_if_wanted();
  }
}

const TracerOptions& session_options() {
  return g_session.options;
}

std::uint32_t session_register_module(const char* name, std::uint16_t major, std::uint16_t minor) {
  return registry_add_module(name, major, minor);
}

std::uint32_t session_register_resource(const char* type, const char* description,
                                        std::uint32_t flags) {
  return registry_add_resource(type, description, flags);
}

void session_module_ready() {
  g_ready_modules.fetch_add(1);
  start_when_modules_ready();
}

}  // namespace rtrace::tracer
