#include "tracer/session/late_attach.h"

#include <dlfcn.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "protocol/tracer_options.h"
#include "tracer/api/tracer_api.h"
#include "tracer/core/environment.h"
#include "tracer/core/options.h"
#include "tracer/output/trace_compressor.h"
#include "tracer/session/control_thread.h"
#include "tracer/session/got_patcher.h"
#include "tracer/session/session_state.h"
#include "tracer/session/trace_session.h"

char rtrace_attach_message[256] = {};

namespace rtrace::tracer {
namespace {

constexpr std::size_t kMaxOptions = 4096;
constexpr std::size_t kMaxModulePath = 4096;

char g_options[kMaxOptions];
char g_socket[sizeof(sockaddr_un::sun_path)];
std::atomic<bool> g_attached{false};
std::atomic<bool> g_leave{false};

// The codes rtrace_attach and rtrace_detach return (the recorder names them too).
enum AttachCode : int {
  kAttached = 0,
  kAlreadyAttached = -1,
  kBadSettings = -2,
  kNotTraced = -3,
  kModuleNotLoaded = -4,
  kNoConnection = -5,
  kNothingToHook = -6,
  kNotAttached = -7,
};

int fail(int code, const char* what, const char* detail = nullptr) {
  std::size_t length = 0;
  for (const char* part : {what, detail}) {
    for (const char* c = part;
         c != nullptr && *c != '\0' && length + 1 < sizeof rtrace_attach_message; ++c) {
      rtrace_attach_message[length++] = *c;
    }
  }
  rtrace_attach_message[length] = '\0';
  return code;
}

bool copy_text(char* target, std::size_t capacity, const char* text) {
  const std::size_t length = text != nullptr ? std::strlen(text) : 0;
  if (length >= capacity) {
    return false;
  }
  std::memcpy(target, text != nullptr ? text : "", length + 1);
  return true;
}

// Whether the ':'-separated list `preload` names librtrace-main.so.
bool preloads_main(const char* preload) {
  static constexpr char kMain[] = "librtrace-main.so";
  for (const char* found = preload; found != nullptr && (found = std::strstr(found, kMain));
       found += sizeof kMain - 1) {
    const char end = found[sizeof kMain - 1];
    if ((found == preload || found[-1] == '/' || found[-1] == ':' || found[-1] == ' ') &&
        (end == '\0' || end == ':' || end == ' ')) {
      return true;
    }
  }
  return false;
}

// Loads each module of the ':'-separated list (a module already loaded by an earlier attach is
// only counted again by the dynamic linker). Their constructors register them in the session.
int load_modules(const char* modules) {
  char path[kMaxModulePath];
  for (const char* p = modules; p != nullptr && *p != '\0';) {
    const char* end = std::strchr(p, ':');
    const std::size_t length = end != nullptr ? static_cast<std::size_t>(end - p) : std::strlen(p);
    if (length >= sizeof path) {
      return fail(kBadSettings, "a module path is too long");
    }
    std::memcpy(path, p, length);
    path[length] = '\0';
    if (length > 0 && ::dlopen(path, RTLD_NOW | RTLD_LOCAL) == nullptr) {
      const char* error = ::dlerror();
      return fail(kModuleNotLoaded, "cannot load a module: ", error);
    }
    p = end != nullptr ? end + 1 : p + length;
  }
  return kAttached;
}

// The session's options for this attach: the recorder's, started by rtrace_attach itself once
// every module is registered (not at the first module's registration).
void take_options() {
  g_session.options = parse_options(g_options);
  g_session.options.start = false;
  __atomic_store_n(&rtrace_sample_bytes, g_session.options.sample_bytes, __ATOMIC_RELAXED);
  std::memcpy(g_session.socket_path, g_socket, sizeof g_socket);
}

// Every trace of an attached process names the module "attach" among its tracing modules (the
// MINF records of its header, which every format carries): a report then knows that blocks
// released without an allocation in the trace were allocated before the attach.
void register_attach_module() {
  static bool registered = false;
  if (!registered) {
    registered = true;
    session_register_module(tracer_options::kAttachModuleName, 1, 0);
  }
}

// After a detach the control thread ends once the trace is written out; a new attach coming at
// once waits for that (up to 3 s) so that its trace gets a control thread of its own.
void wait_for_control_thread_to_leave() {
  for (int waited_ms = 0; g_leave.load() && control_thread_running() && waited_ms < 3000;
       ++waited_ms) {
    ::usleep(1000);
  }
  g_leave.store(false);
}

int start_tracing() {
  const bool compress = g_session.options.compact && g_session.options.compress_level > 0;
  if (compress) {
    compressor_load();
  }
  start_session(HeaderWrite::Now);
  if (g_session.state.load() != State::Tracing) {
    return fail(kNoConnection, "cannot connect to the recorder's socket ", g_socket);
  }
  allow_control_thread();
  want_control_thread();
  start_control_thread_if_wanted();
  return kAttached;
}

}  // namespace

bool loaded_into_running_process() {
  return environment_value(tracer_environment::kOptionsVariable) == nullptr &&
         !preloads_main(environment_value("LD_PRELOAD"));
}

const char* attach_options_text() {
  return g_options[0] != '\0' || g_socket[0] != '\0' ? g_options : nullptr;
}

const char* attach_socket_path() {
  return g_socket[0] != '\0' ? g_socket : nullptr;
}

bool control_thread_should_leave() {
  return g_leave.load() && g_session.state.load() != State::Tracing;
}

}  // namespace rtrace::tracer

namespace tracer = rtrace::tracer;

extern "C" {

int rtrace_attach(const char* options, const char* socket_path, const char* modules) {
  tracer::GuardScope guard;
  rtrace_attach_message[0] = '\0';
  if (tracer::g_attached.load() || tracer::g_session.state.load() == tracer::State::Tracing) {
    return tracer::fail(tracer::kAlreadyAttached, "the process is being traced already");
  }
  if (!tracer::copy_text(tracer::g_options, sizeof tracer::g_options, options) ||
      !tracer::copy_text(tracer::g_socket, sizeof tracer::g_socket, socket_path) ||
      tracer::g_socket[0] == '\0') {
    return tracer::fail(tracer::kBadSettings, "options or socket path too long, or no socket");
  }
  // The first attach sets the session up from the settings above (session_bootstrap.cpp asks
  // attach_options_text); a later one only takes the new settings.
  if (tracer::session_bootstrap() != tracer::Bootstrap::Traced) {
    return tracer::fail(tracer::kNotTraced, "the tracer's session could not be set up");
  }
  tracer::wait_for_control_thread_to_leave();
  tracer::take_options();
  tracer::register_attach_module();
  if (const int loaded = tracer::load_modules(modules); loaded != tracer::kAttached) {
    return loaded;
  }
  if (!tracer::got_collect_hooks()) {
    return tracer::fail(tracer::kNothingToHook, "the tracer's libraries export no function");
  }
  if (const int started = tracer::start_tracing(); started != tracer::kAttached) {
    return started;
  }
  tracer::got_patch_objects();
  tracer::g_attached.store(true);
  return tracer::kAttached;
}

int rtrace_detach() {
  tracer::GuardScope guard;
  rtrace_attach_message[0] = '\0';
  if (!tracer::g_attached.exchange(false)) {
    return tracer::fail(tracer::kNotAttached, "the process is not attached");
  }
  tracer::got_restore();
  if (tracer::g_session.state.load() == tracer::State::Tracing) {
    tracer::g_leave.store(true);
    tracer::session_request_toggle();
  }
  return tracer::kAttached;
}

}  // extern "C"
