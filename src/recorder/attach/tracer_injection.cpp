#include "recorder/attach/tracer_injection.h"

#include <dlfcn.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "recorder/attach/elf_dynamic_symbols.h"
#include "recorder/attach/process_maps.h"

namespace rtrace::recorder::attach {
namespace {

constexpr char kMainLibrary[] = "librtrace-main.so";

std::string process_name(pid_t pid) {
  return "process " + std::to_string(pid);
}

std::string read_proc(pid_t pid, const std::string& entry) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/" + entry, std::ios::binary);
  if (!file) {
    throw AttachError(process_name(pid) + ": no such process");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

bool is_c_library(const std::string& name) {
  return name == "libc.so.6" || (name.starts_with("libc-") && name.ends_with(".so"));
}

bool is_dynamic_linker(const std::string& name) {
  return name.starts_with("ld-linux") || name.starts_with("ld64.so") || name == "ld.so";
}

bool is_main_library(const std::string& name) {
  return name == kMainLibrary;
}

// The pid of the process tracing `pid` (a debugger, strace), 0 when none.
long tracer_of(pid_t pid) {
  std::istringstream status(read_proc(pid, "status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("TracerPid:")) {
      return std::stol(line.substr(10));
    }
  }
  return 0;
}

// The address of `symbol` of `file` in the process.
std::uint64_t remote_address(pid_t pid, const MappedFile& file, const std::string& symbol) {
  const ElfDynamicSymbols symbols(file.path);
  const std::optional<std::uint64_t> value = symbols.value_of(symbol);
  if (!value) {
    throw AttachError(process_name(pid) + ": " + file.path + " does not define " + symbol);
  }
  return file.start - symbols.first_load_address() + *value;
}

void check_attachable(pid_t pid, const std::vector<MappedFile>& files) {
  if (const long tracer = tracer_of(pid); tracer != 0) {
    throw AttachError(process_name(pid) + " is already traced by process " +
                      std::to_string(tracer) + " (a debugger or strace): detach it first");
  }
  if (!find_mapped(files, is_dynamic_linker) || !find_mapped(files, is_c_library)) {
    throw AttachError(process_name(pid) +
                      " has no dynamic linker or no C library loaded (statically linked?): the "
                      "tracer can only be loaded into a dynamically linked program");
  }
  if (tracer_presence(pid) == TracerPresence::Preloaded) {
    throw AttachError(
        process_name(pid) +
        " was started under rtrace record: toggle its tracing with rtrace record -t " +
        std::to_string(pid));
  }
}

// dlopen of the C library (glibc 2.34 and later), or its internal one before that.
std::uint64_t find_dlopen(pid_t pid, const MappedFile& libc) {
  const ElfDynamicSymbols symbols(libc.path);
  for (const char* name : {"dlopen", "__libc_dlopen_mode"}) {
    if (const std::optional<std::uint64_t> value = symbols.value_of(name)) {
      return libc.start - symbols.first_load_address() + *value;
    }
  }
  throw AttachError(process_name(pid) + ": " + libc.path +
                    " defines neither dlopen nor "
                    "__libc_dlopen_mode");
}

void load_main_library(pid_t pid, RemoteThread& thread, const std::vector<MappedFile>& files,
                       const std::string& path) {
  const MappedFile libc = *find_mapped(files, is_c_library);
  const std::uint64_t dlopen_address = find_dlopen(pid, libc);
  const std::uint64_t handle =
      thread.call(dlopen_address, {thread.push_string(path), RTLD_NOW | RTLD_LOCAL});
  if (handle != 0) {
    return;
  }
  std::string why = "dlopen failed";
  if (const std::optional<std::uint64_t> dlerror =
          ElfDynamicSymbols(libc.path).value_of("dlerror")) {
    const std::uint64_t message =
        thread.call(libc.start - ElfDynamicSymbols(libc.path).first_load_address() + *dlerror, {});
    if (message != 0) {
      why = thread.read_string(message);
    }
  }
  throw AttachError(process_name(pid) + ": cannot load the tracer: " + why);
}

// Calls the main library's `function` with `arguments`; a nonzero result is an error the
// library describes in rtrace_attach_message.
void call_main_library(pid_t pid, RemoteThread& thread, const std::string& function,
                       const std::vector<std::uint64_t>& arguments) {
  const std::optional<MappedFile> main = find_mapped(mapped_files(pid), is_main_library);
  if (!main) {
    throw AttachError(process_name(pid) + ": the tracer is not loaded in it");
  }
  const auto result =
      static_cast<int>(thread.call(remote_address(pid, *main, function), arguments));
  if (result != 0) {
    const std::string message =
        thread.read_string(remote_address(pid, *main, "rtrace_attach_message"), 256);
    throw AttachError(process_name(pid) + ": " +
                      (message.empty() ? function + " failed" : message));
  }
}

std::string joined(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& path : paths) {
    text += text.empty() ? "" : ":";
    text += path;
  }
  return text;
}

}  // namespace

TracerPresence tracer_presence(pid_t pid) {
  if (!find_mapped(mapped_files(pid), is_main_library)) {
    return TracerPresence::None;
  }
  // The environment the process started with: the recorder's variables there mean it was
  // launched under the tracer.
  const std::string environment = read_proc(pid, "environ");
  std::istringstream entries(environment);
  std::string entry;
  while (std::getline(entries, entry, '\0')) {
    if (entry.starts_with("RTRACE_OPTIONS=") ||
        (entry.starts_with("LD_PRELOAD=") && entry.find(kMainLibrary) != std::string::npos)) {
      return TracerPresence::Preloaded;
    }
  }
  return TracerPresence::Loaded;
}

void inject_tracer(pid_t pid, const AttachSettings& settings) {
  const std::vector<MappedFile> files = mapped_files(pid);
  check_attachable(pid, files);
  RemoteThread thread(pid);
  if (!find_mapped(files, is_main_library)) {
    load_main_library(pid, thread, files, settings.main_library);
  }
  call_main_library(pid, thread, "rtrace_attach",
                    {thread.push_string(settings.options), thread.push_string(settings.socket_path),
                     thread.push_string(joined(settings.modules))});
}

void inject_detach(pid_t pid) {
  if (tracer_presence(pid) != TracerPresence::Loaded) {
    throw AttachError(process_name(pid) + " is not attached (rtrace record -p PID attaches)");
  }
  RemoteThread thread(pid);
  call_main_library(pid, thread, "rtrace_detach", {});
}

}  // namespace rtrace::recorder::attach
