#include "recorder/record_session.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "protocol/tracer_environment.h"
#include "recorder/attach/attached_recording.h"
#include "recorder/launcher.h"
#include "recorder/module_catalog.h"
#include "recorder/private_socket.h"
#include "recorder/raw_trace_handler.h"
#include "recorder/trace_server.h"

namespace rtrace::recorder {
namespace {

// What the tracer reads from the environment (the names the recorder sets).
namespace tracer_env = ::rtrace::tracer_environment;

volatile sig_atomic_t g_target_pid = 0;

void forward_to_target(int signal) {
  if (g_target_pid > 0) {
    ::kill(g_target_pid, signal);
  }
}

// While the target runs: a terminal's Ctrl+C and Ctrl+\ reach the target's process group anyway,
// so the recorder ignores them and keeps collecting; SIGTERM and SIGHUP sent to the recorder are
// passed on to the target, which then ends and closes its traces. SIGPIPE is ignored so that a
// closed standard output (-P into `| head`) is a write error, not the recorder's death. The target
// itself starts with every signal at its default (see TracedProcess).
class SignalPolicy {
 public:
  SignalPolicy() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    struct sigaction forward {};
    forward.sa_handler = forward_to_target;
    forward.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &ignore, &old_int_);
    ::sigaction(SIGQUIT, &ignore, &old_quit_);
    ::sigaction(SIGPIPE, &ignore, &old_pipe_);
    ::sigaction(SIGTERM, &forward, &old_term_);
    ::sigaction(SIGHUP, &forward, &old_hup_);
  }
  SignalPolicy(const SignalPolicy&) = delete;
  SignalPolicy& operator=(const SignalPolicy&) = delete;
  ~SignalPolicy() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGQUIT, &old_quit_, nullptr);
    ::sigaction(SIGPIPE, &old_pipe_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGHUP, &old_hup_, nullptr);
    g_target_pid = 0;
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_quit_ {};
  struct sigaction old_pipe_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
};

std::vector<EnvironmentChange> tracer_environment(const RecordRequest& request,
                                                  const TracerSettings& tracer,
                                                  const std::string* socket_path) {
  const char* existing = std::getenv("LD_PRELOAD");
  std::vector<EnvironmentChange> changes{
      {"LD_PRELOAD",
       preload_value(request.module_directory, request.modules, existing ? existing : ""), false},
      {tracer_env::kOptionsVariable, format_tracer_options(tracer), false},
      // Unclaimed: the first traced process writes its pid over the zeros.
      {tracer_env::kRootPidVariable, std::string(tracer_env::kRootPidWidth, '0'), false},
  };
  // The audit module's other half, loaded by the dynamic linker (audit_module.cpp says why).
  if (!tracer.audit_patterns.empty()) {
    std::string audit = audit_library(request.module_directory);
    if (const char* existing_audit = std::getenv("LD_AUDIT");
        existing_audit != nullptr && *existing_audit != '\0') {
      audit += ':';
      audit += existing_audit;
    }
    changes.push_back({"LD_AUDIT", std::move(audit), false});
    // The audit library sees the bindings the linker makes at load time (audit_linker.cpp).
    changes.push_back({"LD_BIND_NOW", "1", false});
  }
  if (socket_path != nullptr) {
    changes.push_back({tracer_env::kSocketVariable, *socket_path, false});
  } else {
    changes.push_back({tracer_env::kSocketVariable, "", true});
  }
  return changes;
}

std::unique_ptr<TraceHandler> make_handler(const RecordRequest& request,
                                           const TraceFileNames& names,
                                           const PrivateSocket& socket) {
  if (!request.convert) {
    return std::make_unique<RawTraceHandler>(names, request.quiet, request.original_protocol,
                                             request.observe);
  }
  std::optional<TraceFileNames> text_names;
  if (!request.text_to_stdout) {
    text_names = names;
  }
  return std::make_unique<TextTraceHandler>(*request.convert, text_names, socket.directory(),
                                            request.quiet);
}

RecordResult record_managed(const RecordRequest& request, const std::string& directory) {
  TracerSettings tracer = request.tracer;
  tracer.managed = directory;
  const std::vector<EnvironmentChange> environment = tracer_environment(request, tracer, nullptr);
  const SignalPolicy signals;
  TracedProcess target(request.command, environment);
  g_target_pid = target.pid();
  return {target.wait(), true, true};
}

// The tracer's settings for an attach: what a launched process would find in its environment.
attach::AttachSettings attach_settings(const RecordRequest& request, TracerSettings tracer,
                                       const std::string& socket_path) {
  tracer.start = true;  // an attach traces at once: that is what it is for
  attach::AttachSettings settings;
  settings.options = format_tracer_options(tracer);
  settings.socket_path = socket_path;
  const std::string libraries = preload_value(request.module_directory, request.modules, "");
  for (std::size_t begin = 0; begin < libraries.size();) {
    const std::size_t end = std::min(libraries.find(':', begin), libraries.size());
    (settings.main_library.empty() ? settings.main_library : settings.modules.emplace_back()) =
        libraries.substr(begin, end - begin);
    begin = end + 1;
  }
  return settings;
}

RecordResult record_attached(const RecordRequest& request, pid_t pid, const TracerSettings& tracer,
                             const PrivateSocket& socket, TraceHandler& handler) {
  const attach::AttachSettings settings = attach_settings(request, tracer, socket.path());
  const ServeResult served = attach::record_attached(pid, settings, socket, handler, request.quiet);
  return {served.exit_status, served.all_recorded, served.connections > 0};
}

}  // namespace

RecordResult record(const RecordRequest& request) {
  const TraceFileNames names(request.text_to_stdout ? std::nullopt : request.output,
                             request.name_style, request.convert ? ".rtrace.txt" : ".rtrace",
                             current_name_fields());
  const std::string& directory = names.directory();
  // The sp-rtrace command's -o is a directory, as the original's.
  if (request.original_protocol && names.is_pattern()) {
    throw std::invalid_argument(*request.output + ": no such directory");
  }
  if (request.managed) {
    // The traced processes name their files themselves, in a directory.
    if (names.is_pattern()) {
      throw std::invalid_argument(*request.output +
                                  ": -m writes NAME.PID.rtrace files into a directory, and this is "
                                  "not one (file name patterns need the recorder)");
    }
    return record_managed(request, directory);
  }

  const PrivateSocket socket;
  TracerSettings tracer = request.tracer;
  tracer.attachments = directory;  // beside the traces (the current directory for -o stdout)
  // The process writes its trace file itself unless the recorder transforms the stream: -P, or the
  // sp-rtrace command's stripping of rtrace's packets (trace_file_passing.h), or an observer reads
  // it as it comes.
  tracer.file_from_recorder = !request.convert && !request.original_protocol && !request.observe;
  const std::vector<EnvironmentChange> environment =
      tracer_environment(request, tracer, &socket.path());
  const std::unique_ptr<TraceHandler> handler = make_handler(request, names, socket);
  if (request.attach_pid) {
    return record_attached(request, *request.attach_pid, tracer, socket, *handler);
  }
  const SignalPolicy signals;
  TracedProcess target(request.command, environment);
  g_target_pid = target.pid();
  const ServeResult served = serve(socket, target, *handler);
  return {served.exit_status, served.all_recorded, served.connections > 0};
}

}  // namespace rtrace::recorder
